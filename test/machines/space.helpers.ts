/**
 * A space supervisor on the memory surface whose turn `crashingTurn` throws
 * in `requestProgressToken` (the entry action of every write it asks the budget for), as
 * a bug in an action would: for the supervision tests. Persisted snapshots of
 * active turns are kept the way the runtime keeps them, for restarts.
 */
import {
  type AnyActorRef,
  type AnyMachineSnapshot,
  createActor,
  enqueueActions,
  SimulatedClock,
  type Snapshot,
} from 'xstate';
import { spaceEventOf, spaceMachine } from '../../machines/space.machine.js';
import type { TurnContext } from '../../machines/turn.machine.js';
import { resolveConfig } from '../../src/config.js';
import type { RunEvent } from '../../src/events/schema.js';
import { builtinPlatforms } from '../../src/platforms/all.js';
import { restorable } from '../../src/runtime/restorable.js';
import { createSpaceImplementations } from '../../src/runtime/space.implementations.js';
import { provideTurnMachine } from '../../src/runtime/turn.implementations.js';
import { spaceSettingsFor } from '../../src/runtime.js';
import { createMemorySurface } from '../../src/testing/memory-surface.js';
import { SPACE } from './turn.helpers.js';

export function startCrashingSpace(crashingTurn: string, error: string) {
  const clock = new SimulatedClock();
  const surface = createMemorySurface({ platform: 'gchat', now: () => clock.now() });
  const snapshots = new Map<string, Snapshot<unknown>>();
  const warnings: string[] = [];
  const deps = {
    surfaces: surface,
    platforms: builtinPlatforms,
    budget: 'unlimited' as const,
    format: { maxToolPreview: 400, timeZone: 'UTC' },
    now: () => clock.now(),
    snapshotOf: (turnId: string) => snapshots.get(turnId),
    onWarning: (_space: string, message: string) => warnings.push(message),
  };
  const implementations = createSpaceImplementations(deps);
  const turnLogic = provideTurnMachine(deps).provide({
    actions: {
      // The crashing turn throws as it asks for a token (the first action of any write it makes itself).
      requestProgressToken: enqueueActions(({ context, enqueue }) => {
        if (context.turnId === crashingTurn) throw new Error(error);
        enqueue.raise({ type: 'budget.granted' });
      }),
    },
    guards: {
      // A proactive turn's first step (its header's token is its frame sender's): it throws there.
      needsHeader: ({ context }) => {
        if (context.turnId === crashingTurn && context.header !== null) throw new Error(error);
        return context.header !== null;
      },
    },
  });
  const space = createActor(
    spaceMachine.provide({
      ...implementations,
      actors: { ...implementations.actors, turn: restorable(turnLogic) },
    }),
    {
      clock,
      input: { space: SPACE, settings: spaceSettingsFor(resolveConfig({}), SPACE) },
      inspect: (event) => {
        const ref = event.actorRef as AnyActorRef;
        if (event.type === '@xstate.snapshot' && ref.id.startsWith('turn:')) {
          const snap = event.snapshot as AnyMachineSnapshot;
          const { turnId } = snap.context as TurnContext;
          if (snap.status === 'active') snapshots.set(turnId, ref.getPersistedSnapshot());
        }
      },
    },
  ).start();
  let seq = 0;
  const send = (event: Record<string, unknown>) =>
    space.send(spaceEventOf({ space: SPACE, seq: ++seq, ...event } as RunEvent));
  return { clock, surface, space, send, warnings };
}
