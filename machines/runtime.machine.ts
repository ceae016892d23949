/**
 * The runtime root: one budget actor per platform app (systemId
 * `budget:<platform>`), one space supervisor per chat space (spawned on the
 * space's first event, id `space:<space>`), and supervision of both: a space
 * whose actor fails is started again and its live turns restored from the
 * store; a budget that fails is started again with a fresh bucket (it holds
 * no state worth keeping beyond a minute).
 *
 * Every event for a space goes through here, never straight to the space or
 * its turns, so the root's order is the order a space sees (a space that
 * failed is started again before the events after its failure reach it).
 *
 * Pure definition: which platforms have budgets, each space's settings and
 * the restoring of turns are provided by `createRuntimeImplementations`.
 */
import { sendTo, setup } from 'xstate';
import type { RunEvent } from '../src/events/schema.js';
import { budgetMachine } from './budget.machine.js';
import { type SpaceEvent, spaceEventOf, spaceMachine } from './space.machine.js';

export interface RuntimeContext {
  /** Spaces with a live supervisor. */
  spaces: Record<string, true>;
  /** Times each space's supervisor was started again after failing. */
  spaceRestarts: Record<string, number>;
}

export type RuntimeEvent =
  | { type: 'runtime.event'; event: RunEvent }
  /** Events of one batch for one space, in order (one `POST /v1/events` body): one pass through the space. */
  | { type: 'runtime.events'; space: string; events: RunEvent[] }
  /** After a restart: live turns from the store, grouped by space. */
  | { type: 'runtime.restore'; spaces: string[] }
  /** Something for a space that is not a run event (a decided card): its supervisor is started if need be. */
  | { type: 'runtime.toSpace'; space: string; event: SpaceEvent }
  /**
   * Something for a space only if it runs (its settings changed, Stop on a
   * turn's log, a shutdown flush): a space not started yet has nothing to
   * change and is not started for it.
   */
  | { type: 'runtime.toLiveSpace'; space: string; event: SpaceEvent }
  | { type: `xstate.error.actor.${string}`; error?: unknown }
  | { type: `xstate.done.actor.${string}`; output?: unknown };

export const spaceChildId = (space: string): string => `space:${space}`;
const failedChild = (eventType: string): string => eventType.slice('xstate.error.actor.'.length);

export const runtimeMachine = setup({
  types: {
    context: {} as RuntimeContext,
    events: {} as RuntimeEvent,
  },
  actors: {
    space: spaceMachine,
    budget: budgetMachine,
  },
  actions: {
    // Provided: they read the config and the store.
    spawnBudgets: () => {},
    spawnSpace: (_, _params: { space: string }) => {},
    /** A run event reaches its space typed (`spaceEventOf`). */
    forwardToSpace: sendTo(
      (_, params: { event: RunEvent }) => spaceChildId(params.event.space),
      (_, params: { event: RunEvent }) => spaceEventOf(params.event),
    ),
    forwardBatchToSpace: sendTo(
      (_, params: { space: string; events: RunEvent[] }) => spaceChildId(params.space),
      (_, params: { space: string; events: RunEvent[] }): SpaceEvent => ({
        type: 'space.events',
        events: params.events,
      }),
    ),
    restoreSpaces: (_, _params: { spaces: string[] }) => {},
    restartSpace: (_, _params: { space: string; error: unknown }) => {},
    restartBudget: (_, _params: { childId: string; error: unknown }) => {},
    sendToSpace: sendTo(
      (_, params: { space: string; event: SpaceEvent }) => spaceChildId(params.space),
      (_, params: { space: string; event: SpaceEvent }) => params.event,
    ),
  },
  guards: {
    isKnownSpace: ({ context }, params: { space: string }) => context.spaces[params.space] === true,
    isSpaceChild: (_, params: { childId: string }) => params.childId.startsWith('space:'),
  },
}).createMachine({
  id: 'runtime',
  context: { spaces: {}, spaceRestarts: {} },
  entry: 'spawnBudgets',
  initial: 'running',
  states: {
    running: {
      on: {
        'runtime.event': [
          {
            guard: { type: 'isKnownSpace', params: ({ event }) => ({ space: event.event.space }) },
            actions: { type: 'forwardToSpace', params: ({ event }) => ({ event: event.event }) },
          },
          {
            actions: [
              { type: 'spawnSpace', params: ({ event }) => ({ space: event.event.space }) },
              { type: 'forwardToSpace', params: ({ event }) => ({ event: event.event }) },
            ],
          },
        ],
        'runtime.toSpace': [
          {
            guard: { type: 'isKnownSpace', params: ({ event }) => ({ space: event.space }) },
            actions: {
              type: 'sendToSpace',
              params: ({ event }) => ({ space: event.space, event: event.event }),
            },
          },
          {
            actions: [
              { type: 'spawnSpace', params: ({ event }) => ({ space: event.space }) },
              { type: 'sendToSpace', params: ({ event }) => ({ space: event.space, event: event.event }) },
            ],
          },
        ],
        'runtime.toLiveSpace': {
          guard: { type: 'isKnownSpace', params: ({ event }) => ({ space: event.space }) },
          actions: {
            type: 'sendToSpace',
            params: ({ event }) => ({ space: event.space, event: event.event }),
          },
        },
        'runtime.events': [
          {
            guard: { type: 'isKnownSpace', params: ({ event }) => ({ space: event.space }) },
            actions: {
              type: 'forwardBatchToSpace',
              params: ({ event }) => ({ space: event.space, events: event.events }),
            },
          },
          {
            actions: [
              { type: 'spawnSpace', params: ({ event }) => ({ space: event.space }) },
              {
                type: 'forwardBatchToSpace',
                params: ({ event }) => ({ space: event.space, events: event.events }),
              },
            ],
          },
        ],
        'runtime.restore': {
          actions: { type: 'restoreSpaces', params: ({ event }) => ({ spaces: event.spaces }) },
        },
        'xstate.error.actor.*': [
          {
            guard: { type: 'isSpaceChild', params: ({ event }) => ({ childId: failedChild(event.type) }) },
            actions: {
              type: 'restartSpace',
              params: ({ event }) => ({
                space: failedChild(event.type).slice('space:'.length),
                error: event.error,
              }),
            },
          },
          {
            actions: {
              type: 'restartBudget',
              params: ({ event }) => ({
                childId: failedChild(event.type),
                error: event.error,
              }),
            },
          },
        ],
      },
    },
  },
});
