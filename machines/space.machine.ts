/**
 * The space supervisor: one per chat space. It keeps the space's settings
 * (threads on/off, DM), the ring buffer of recent inbound user messages that
 * anchor turns, routes every (already validated, redacted, sequenced) event
 * to a destination, spawns one turn actor per `turnId`, delivers top-level
 * messages and policy cards, and supervises its turns: a crashed turn is
 * restarted from its last persisted snapshot up to `maxRestarts` times, then
 * its log is degraded to top-level with a visible note; an ended turn is
 * stopped and forgotten, and so is a finished delivery (nothing in a space
 * grows with the turns it has finished).
 *
 * Children: `turn:<slot>` (turn machine), `delivery:<slot>` (delivery machine),
 * `strays` (the stray log: top-level notes and warnings coalesced into one
 * edited message per minute, so they never flood the space or starve answers).
 * Slots are reused: a slot is freed when its child is stopped and taken (the
 * lowest free one) by the next spawn, so a space uses as many child ids as it
 * ever ran children at once. XState memoizes each state node's transitions
 * per event type and never forgets them; `xstate.done.actor.<id>` carries the
 * child id in its type, so ids unique per turn would cost memory per finished
 * turn for the life of the process. `turns[turnId].slot` and `turnSlots` map
 * between a turn and its child.
 *
 * Pure definition: routing, formatting, spawning with restored snapshots and
 * the platform calls are provided by `createSpaceImplementations`.
 */
import { assign, sendTo, setup, stopChild } from 'xstate';
import type { RunEvent } from '../src/events/schema.js';
import type { DestinationKind, SpaceRoutingConfig } from '../src/routing/types.js';
import { type FrameCard, plainText } from '../src/surfaces/frame.js';
import type { ThreadAnchor } from '../src/surfaces/surface.js';
import { type DeliveryInput, type DeliveryOutput, deliveryMachine } from './delivery.machine.js';
import { strayLogMachine } from './stray-log.machine.js';
import { type TurnSettings, turnMachine } from './turn.machine.js';

export interface InboundAnchor {
  messageId: string;
  threadId?: string;
  ref?: string;
}

export interface SpaceSettings {
  routing: SpaceRoutingConfig;
  turn: TurnSettings;
  /** Recent inbound messages kept to anchor turns. Default 50. */
  anchorCapacity: number;
  /** Restarts of a crashed turn before its log is degraded to top-level. Default 3. */
  maxRestarts: number;
  /** Post the final answer in the turn's thread instead of top-level. Default false. */
  finalReplyInThread: boolean;
  /** Proactive turns (a title, no root): `header` posts `🕒 <title>` and threads the log under it. Default `header`. */
  jobs: 'header' | 'top-level';
}

export interface SpaceInput {
  space: string;
  settings: SpaceSettings;
  anchors?: InboundAnchor[];
  /** The stray log's persisted snapshot (an earlier process, or this space before it crashed): it resumes from it. */
  strays?: unknown;
}

export interface TurnRecord {
  /** Where the turn's thread hangs; null when it has none. */
  anchor: ThreadAnchor | null;
  dm: boolean;
  restarts: number;
  /** `live` while the turn actor runs; `crashed` once restarts ran out (its entries go top-level). */
  mode: 'live' | 'crashed';
  /** The slot its actor runs in (child id `turn:<slot>`); null once it crashed for good (no actor). */
  slot: number | null;
}

/** A turn handed to `space.restore`: the space gives it a slot like a new one. */
export type RestoredTurnRecord = Omit<TurnRecord, 'slot'>;

export interface SpaceDeadLetter {
  at: number;
  turnId?: string;
  reason: string;
  text: string;
}

export interface SpaceContext {
  space: string;
  settings: SpaceSettings;
  anchors: InboundAnchor[];
  turns: Record<string, TurnRecord>;
  /** Slot → the turn whose actor is `turn:<slot>`; null while the slot is free. */
  turnSlots: (string | null)[];
  /** Slot → the purpose of the delivery `delivery:<slot>`; null while the slot is free. */
  deliverySlots: (string | null)[];
  /** Deliveries started so far (a count: their children reuse slots). */
  deliveries: number;
  warnings: string[];
  deadLetters: SpaceDeadLetter[];
  /** The stray log's persisted snapshot it starts from; null for a fresh one. */
  restoredStrays: unknown;
}

export type SpaceEvent =
  | { type: 'space.event'; event: RunEvent }
  /**
   * Several events of one batch (one `POST /v1/events` body), in order: the
   * log entries of live turns at its head go to their turns in one
   * `turn.log` per turn; the first other event is handled as a `space.event`
   * and the rest as a batch again, so the outcome is that of one
   * `space.event` per event.
   */
  | { type: 'space.events'; events: RunEvent[] }
  /**
   * Restore turns persisted by an earlier process (or a crashed space); the
   * stray log re-arms its timers; `answers` are the deliveries of answer
   * parts not posted yet, started again in order.
   */
  | {
      type: 'space.restore';
      turns: { turnId: string; record: RestoredTurnRecord; snapshot: unknown }[];
      answers?: DeliveryInput[];
    }
  /** Per-space settings changed at run time (the HTTP API): applies to events from now on. */
  | { type: 'space.configure'; threadsDisabled?: boolean; dm?: boolean }
  /** The run-time settings cleared: the space's routing is the config's again. */
  | { type: 'space.reset'; routing: SpaceRoutingConfig }
  /** Someone decided a card (src/actions/clicks.ts): edit its message to show `card` (no buttons, the outcome). */
  | { type: 'space.cardOutcome'; messageId: string; threadId?: string; card: FrameCard }
  /** The host writes through its channel adapter (src/adapter/): one must-land post, edit or reaction, its output told by `ticket`. */
  | { type: 'space.hostWrite'; delivery: HostDelivery }
  | { type: `xstate.done.actor.${string}`; output?: unknown }
  | { type: `xstate.error.actor.${string}`; error?: unknown };

/** A host's write through the channel adapter: a delivery with a ticket its caller waits on. */
export type HostDelivery = Pick<
  DeliveryInput,
  'request' | 'purpose' | 'edit' | 'reaction' | 'card' | 'continuation'
> & {
  ticket: string;
};

/** Bounded lists in context: a space lives for the life of the process. */
export const MAX_WARNINGS = 100;
export const MAX_DEAD_LETTERS = 1000;

export const turnChildId = (slot: number): string => `turn:${slot}`;
export const deliveryChildId = (slot: number): string => `delivery:${slot}`;

/** The id of the child an `xstate.done.actor.<id>` / `xstate.error.actor.<id>` event is about. */
export const childIdOf = (eventType: string): string =>
  eventType.replace(/^xstate\.(?:done|error)\.actor\./, '');

/** The slot of a `turn:<slot>` / `delivery:<slot>` child an actor event is about; null for another child. */
export function childSlot(eventType: string, kind: 'turn' | 'delivery'): number | null {
  const m = /^xstate\.(?:done|error)\.actor\.(turn|delivery):(\d+)$/.exec(eventType);
  return m && m[1] === kind ? Number(m[2]) : null;
}

/** The turn whose actor an actor event is about, or undefined (a delivery, or a slot no turn holds). */
export function turnOfChild(context: SpaceContext, eventType: string): string | undefined {
  const slot = childSlot(eventType, 'turn');
  return slot === null ? undefined : (context.turnSlots[slot] ?? undefined);
}

/** The child id of a turn's actor; a turn without one (unknown, crashed for good) is a bug in the caller. */
export function turnActorId(context: SpaceContext, turnId: string): string {
  const slot = context.turns[turnId]?.slot;
  if (slot === null || slot === undefined) {
    throw new Error(
      `space ${context.space}: turn ${turnId} has no actor (it is unknown or crashed for good)`,
    );
  }
  return turnChildId(slot);
}

/** Takes the lowest free slot for `holder`. */
export function takeSlot(
  slots: readonly (string | null)[],
  holder: string,
): { slot: number; slots: (string | null)[] } {
  const free = slots.indexOf(null);
  const slot = free === -1 ? slots.length : free;
  const next = [...slots];
  next[slot] = holder;
  return { slot, slots: next };
}

/** Frees a slot (free slots at the end are dropped: the list is as long as the highest slot in use). */
export function releaseSlot(slots: readonly (string | null)[], slot: number): (string | null)[] {
  const next = [...slots];
  if (slot < next.length) next[slot] = null;
  while (next.length > 0 && next[next.length - 1] === null) next.pop();
  return next;
}

/** The dead letters with a failed delivery's added (a delivered one adds nothing). */
export function withDeadLetter(context: SpaceContext, output: DeliveryOutput, at: number): SpaceDeadLetter[] {
  if (output.status !== 'failed') return context.deadLetters;
  return [
    ...context.deadLetters,
    { at, reason: deadLetterReason(output), text: undeliveredText(output) },
  ].slice(-MAX_DEAD_LETTERS);
}

/** A failed delivery's reason, naming the parts after the refused one that were never sent. */
export function deadLetterReason(output: Extract<DeliveryOutput, { status: 'failed' }>): string {
  const unsent = output.unsent?.length ?? 0;
  const after = unsent > 0 ? ` (and the ${unsent} part${unsent === 1 ? '' : 's'} after it, not sent)` : '';
  return `${output.purpose}: ${output.error}${after}`;
}

/** What a failed delivery did not deliver: the refused message and the parts after it, none lost. */
export function undeliveredText(output: Extract<DeliveryOutput, { status: 'failed' }>): string {
  return [plainText(output.request.frame), ...(output.unsent ?? [])].join('\n\n');
}

const eventOf = (event: SpaceEvent): RunEvent => (event as { event: RunEvent }).event;
const isType = (event: SpaceEvent, type: RunEvent['type']): boolean =>
  event.type === 'space.event' && eventOf(event).type === type;

export const spaceMachine = setup({
  types: {
    context: {} as SpaceContext,
    events: {} as SpaceEvent,
    input: {} as SpaceInput,
  },
  actors: {
    turn: turnMachine,
    delivery: deliveryMachine,
    strays: strayLogMachine,
  },
  actions: {
    // Provided: they format entries, resolve anchors, spawn children, persist.
    startTurn: (_, _params: { event: RunEvent }) => {},
    forwardEntry: (_, _params: { event: RunEvent }) => {},
    forwardEntries: (_, _params: { events: RunEvent[] }) => {},
    deliverOrphan: (_, _params: { event: RunEvent; reason: string }) => {},
    deliverCard: (_, _params: { event: RunEvent }) => {},
    deliverTopLevel: (_, _params: { event: RunEvent }) => {},
    restoreTurns: () => {},
    /** The stray log was restored with the space: its timers are re-armed (`strays.recover`, with the time). */
    recoverStrays: () => {},
    /** Answer parts an earlier process (or the failed space) did not post: a delivery each, in order. */
    resumeAnswers: () => {},
    restartTurn: (_, _params: { turnId: string; error: unknown }) => {},
    persistAnchor: (_, _params: { anchor: InboundAnchor }) => {},
    /**
     * The space forgets a turn. `outcome` is given when that is at its
     * `turn_ended` without an actor (crashed for good, or unknown here): the
     * runtime completes what it keeps of a crashed turn.
     */
    forgetTurn: (_, _params: { turnId: string; outcome?: 'ok' | 'error' | 'stopped' }) => {},
    /** A turn crashed for good (its actor is stopped, no restart left): the runtime finishes its live snapshot. */
    reportCrashed: (_, _params: { turnId: string }) => {},
    /** Stamps the failure with the runtime clock's time: `withDeadLetter(context, output, now)`. */
    recordDeliveryFailure: (_, _params: { output: DeliveryOutput }) => {},
    /** A delivered card goes in the card registry, so a click on it is understood. */
    registerCard: (_, _params: { output: DeliveryOutput }) => {},
    /** A host's write (a delivery with a ticket) is done: its caller hears how it went. */
    settleHostWrite: (_, _params: { output: DeliveryOutput }) => {},
    /** Spawns a delivery for a host's write (the channel adapter), through the budget like every delivery. */
    deliverForHost: (_, _params: { delivery: HostDelivery }) => {},
    /** Edits a card's message to show its outcome, through the budget (a delivery child). */
    deliverCardOutcome: (_, _params: { messageId: string; threadId?: string; card: FrameCard }) => {},

    configure: assign(({ context }, params: { threadsDisabled?: boolean; dm?: boolean }) => ({
      settings: { ...context.settings, routing: { ...context.settings.routing, ...params } },
    })),
    resetRouting: assign(({ context }, params: { routing: SpaceRoutingConfig }) => ({
      settings: { ...context.settings, routing: params.routing },
    })),
    recordInbound: assign(({ context }, params: { anchor: InboundAnchor }) => ({
      anchors: [...context.anchors, params.anchor].slice(-context.settings.anchorCapacity),
    })),
    endTurn: sendTo(
      ({ context }, params: { turnId: string; outcome: 'ok' | 'error' | 'stopped' }) =>
        turnActorId(context, params.turnId),
      (_, params: { turnId: string; outcome: 'ok' | 'error' | 'stopped' }) => ({
        type: 'turn.end' as const,
        outcome: params.outcome,
      }),
    ),
    stopTurn: stopChild(({ context }, params: { turnId: string }) => turnActorId(context, params.turnId)),
    /**
     * A finished (or failed) delivery leaves the space's children: XState keeps
     * a done child there until it is stopped, and copies the children on every
     * spawn and stop, so kept ones would slow every later turn.
     */
    stopDelivery: stopChild((_, params: { childId: string }) => params.childId),
    /** After `stopDelivery`: the slot is free for the next delivery. */
    releaseDeliverySlot: assign(({ context }, params: { slot: number | null }) =>
      params.slot === null ? {} : { deliverySlots: releaseSlot(context.deliverySlots, params.slot) },
    ),
    /** After `stopTurn`: the turn is forgotten and its slot is free for the next turn. */
    dropTurnRecord: assign(({ context }, params: { turnId: string }) => {
      const { [params.turnId]: ended, ...turns } = context.turns;
      const slot = ended?.slot ?? null;
      return slot === null ? { turns } : { turns, turnSlots: releaseSlot(context.turnSlots, slot) };
    }),
    /** After `stopTurn`: the record stays (its entries go top-level), its slot is free. */
    markCrashed: assign(({ context }, params: { turnId: string }) => {
      const record = context.turns[params.turnId];
      if (!record) return {};
      return {
        turns: { ...context.turns, [params.turnId]: { ...record, mode: 'crashed' as const, slot: null } },
        turnSlots: record.slot === null ? context.turnSlots : releaseSlot(context.turnSlots, record.slot),
      };
    }),
    warn: assign(({ context }, params: { message: string }) => ({
      warnings: [...context.warnings, params.message].slice(-MAX_WARNINGS),
    })),
  },
  guards: {
    // Provided: they call routeEvent with the space's routing config and the turn's DM flag.
    routesTo: (_, _params: { event: RunEvent; kind: DestinationKind }) => false,
    /** Routes to the thread log of a turn whose actor is live. */
    routesToLiveTurnLog: (_, _params: { event: RunEvent }) => false,
    isLiveTurn: ({ context }, params: { turnId: string | undefined }) =>
      params.turnId !== undefined && context.turns[params.turnId]?.mode === 'live',
    isKnownTurn: ({ context }, params: { turnId: string | undefined }) =>
      params.turnId !== undefined && context.turns[params.turnId] !== undefined,
    canRestart: ({ context }, params: { turnId: string }) =>
      (context.turns[params.turnId]?.restarts ?? Number.POSITIVE_INFINITY) < context.settings.maxRestarts,
  },
}).createMachine({
  id: 'space',
  context: ({ input }) => ({
    space: input.space,
    settings: input.settings,
    anchors: (input.anchors ?? []).slice(-input.settings.anchorCapacity),
    turns: {},
    turnSlots: [],
    deliverySlots: [],
    deliveries: 0,
    warnings: [],
    deadLetters: [],
    restoredStrays: input.strays ?? null,
  }),
  initial: 'active',
  states: {
    active: {
      // Top-level notes and warnings that are not answers or cards: one edited message per minute.
      invoke: {
        id: 'strays',
        src: 'strays',
        input: ({ context }) => ({
          space: context.space,
          ...(context.restoredStrays !== null ? { persisted: context.restoredStrays } : {}),
        }),
        onError: {
          actions: {
            type: 'warn',
            params: ({ event }) => ({ message: `the stray log failed: ${String(event.error)}` }),
          },
        },
      },
      on: {
        'space.event': [
          {
            guard: ({ event }) => isType(event, 'inbound'),
            actions: [
              { type: 'recordInbound', params: ({ event }) => ({ anchor: anchorOf(event.event) }) },
              { type: 'persistAnchor', params: ({ event }) => ({ anchor: anchorOf(event.event) }) },
            ],
          },
          {
            guard: ({ event, context }) =>
              isType(event, 'turn_started') && context.turns[event.event.turnId ?? ''] !== undefined,
            actions: {
              type: 'warn',
              params: ({ event }) => ({
                message: `turn ${event.event.turnId} started twice; the second start is ignored`,
              }),
            },
          },
          {
            guard: ({ event }) => isType(event, 'turn_started'),
            actions: { type: 'startTurn', params: ({ event }) => ({ event: event.event }) },
          },
          {
            guard: ({ event, context }) =>
              isType(event, 'turn_ended') && context.turns[event.event.turnId ?? '']?.mode === 'live',
            actions: {
              type: 'endTurn',
              params: ({ event }) => ({
                turnId: event.event.turnId ?? '',
                outcome: (event.event as { outcome: 'ok' | 'error' | 'stopped' }).outcome,
              }),
            },
          },
          {
            guard: ({ event }) => isType(event, 'turn_ended'),
            actions: [
              {
                type: 'warn',
                params: ({ event, context }) => ({
                  message: context.turns[event.event.turnId ?? '']
                    ? `turn ${event.event.turnId} ended after its log was degraded`
                    : `turn_ended for unknown turn ${event.event.turnId}`,
                }),
              },
              {
                type: 'forgetTurn',
                params: ({ event }) => ({
                  turnId: event.event.turnId ?? '',
                  outcome: (event.event as { outcome: 'ok' | 'error' | 'stopped' }).outcome,
                }),
              },
              // A turn that crashed for good has a record (no actor, no slot): it goes with its end.
              { type: 'dropTurnRecord', params: ({ event }) => ({ turnId: event.event.turnId ?? '' }) },
            ],
          },
          {
            guard: { type: 'routesToLiveTurnLog', params: ({ event }) => ({ event: event.event }) },
            actions: { type: 'forwardEntry', params: ({ event }) => ({ event: event.event }) },
          },
          {
            guard: { type: 'routesTo', params: ({ event }) => ({ event: event.event, kind: 'thread-log' }) },
            actions: {
              type: 'deliverOrphan',
              params: ({ event, context }) => ({
                event: event.event,
                reason: orphanReason(event.event, context),
              }),
            },
          },
          {
            guard: {
              type: 'routesTo',
              params: ({ event }) => ({ event: event.event, kind: 'thread-message' }),
            },
            actions: { type: 'deliverCard', params: ({ event }) => ({ event: event.event }) },
          },
          {
            guard: { type: 'routesTo', params: ({ event }) => ({ event: event.event, kind: 'top-level' }) },
            actions: { type: 'deliverTopLevel', params: ({ event }) => ({ event: event.event }) },
          },
          // Dropped: the event stays in the run record (the store), nothing is posted.
        ],
        'space.events': {
          actions: { type: 'forwardEntries', params: ({ event }) => ({ events: event.events }) },
        },
        'space.restore': { actions: ['restoreTurns', 'recoverStrays', 'resumeAnswers'] },
        'space.hostWrite': {
          actions: { type: 'deliverForHost', params: ({ event }) => ({ delivery: event.delivery }) },
        },
        'space.cardOutcome': {
          actions: {
            type: 'deliverCardOutcome',
            params: ({ event }) => ({
              messageId: event.messageId,
              ...(event.threadId !== undefined ? { threadId: event.threadId } : {}),
              card: event.card,
            }),
          },
        },
        'space.reset': {
          actions: { type: 'resetRouting', params: ({ event }) => ({ routing: event.routing }) },
        },
        'space.configure': {
          actions: {
            type: 'configure',
            params: ({ event }) => ({
              ...(event.threadsDisabled !== undefined ? { threadsDisabled: event.threadsDisabled } : {}),
              ...(event.dm !== undefined ? { dm: event.dm } : {}),
            }),
          },
        },
        'xstate.done.actor.*': [
          {
            guard: {
              type: 'isKnownTurn',
              params: ({ event, context }) => ({ turnId: turnOfChild(context, event.type) }),
            },
            // The slot is freed last: the actions before it find the turn through it.
            actions: [
              {
                type: 'stopTurn',
                params: ({ event, context }) => ({ turnId: turnOfChild(context, event.type) ?? '' }),
              },
              {
                type: 'forgetTurn',
                params: ({ event, context }) => ({ turnId: turnOfChild(context, event.type) ?? '' }),
              },
              {
                type: 'dropTurnRecord',
                params: ({ event, context }) => ({ turnId: turnOfChild(context, event.type) ?? '' }),
              },
            ],
          },
          {
            actions: [
              {
                type: 'recordDeliveryFailure',
                params: ({ event }) => ({ output: (event as { output: DeliveryOutput }).output }),
              },
              {
                type: 'registerCard',
                params: ({ event }) => ({ output: (event as { output: DeliveryOutput }).output }),
              },
              {
                type: 'settleHostWrite',
                params: ({ event }) => ({ output: (event as { output: DeliveryOutput }).output }),
              },
              { type: 'stopDelivery', params: ({ event }) => ({ childId: childIdOf(event.type) }) },
              {
                type: 'releaseDeliverySlot',
                params: ({ event }) => ({ slot: childSlot(event.type, 'delivery') }),
              },
            ],
          },
        ],
        'xstate.error.actor.*': [
          {
            guard: {
              type: 'canRestart',
              params: ({ event, context }) => ({ turnId: turnOfChild(context, event.type) ?? '' }),
            },
            actions: {
              type: 'restartTurn',
              params: ({ event, context }) => ({
                turnId: turnOfChild(context, event.type) ?? '',
                error: (event as { error?: unknown }).error,
              }),
            },
          },
          {
            guard: {
              type: 'isKnownTurn',
              params: ({ event, context }) => ({ turnId: turnOfChild(context, event.type) }),
            },
            // The slot is freed last (markCrashed): the actions before it find the turn through it.
            actions: [
              {
                type: 'stopTurn',
                params: ({ event, context }) => ({ turnId: turnOfChild(context, event.type) ?? '' }),
              },
              {
                type: 'warn',
                params: ({ event, context }) => ({
                  message: `turn ${turnOfChild(context, event.type)} crashed and could not be restarted; its log continues top-level`,
                }),
              },
              {
                type: 'deliverOrphan',
                params: ({ event, context }) => ({
                  event: crashNote(context.space, turnOfChild(context, event.type) ?? ''),
                  reason: 'crashed',
                }),
              },
              {
                type: 'reportCrashed',
                params: ({ event, context }) => ({ turnId: turnOfChild(context, event.type) ?? '' }),
              },
              {
                type: 'markCrashed',
                params: ({ event, context }) => ({ turnId: turnOfChild(context, event.type) ?? '' }),
              },
            ],
          },
          {
            // A delivery child failed outside its own error handling: keep the reason, drop the child.
            actions: [
              {
                type: 'warn',
                params: ({ event }) => ({
                  message: `${childIdOf(event.type)} failed: ${String((event as { error?: unknown }).error)}`,
                }),
              },
              { type: 'stopDelivery', params: ({ event }) => ({ childId: childIdOf(event.type) }) },
              {
                type: 'releaseDeliverySlot',
                params: ({ event }) => ({ slot: childSlot(event.type, 'delivery') }),
              },
            ],
          },
        ],
      },
    },
  },
});

function anchorOf(event: RunEvent): InboundAnchor {
  const e = event as { messageId?: string; threadId?: string; ref?: string };
  return {
    messageId: e.messageId ?? '',
    ...(e.threadId ? { threadId: e.threadId } : {}),
    ...(e.ref ? { ref: e.ref } : {}),
  };
}

function orphanReason(event: RunEvent, context: SpaceContext): string {
  if (event.turnId === undefined) return 'event from a subagent without a turnId (never opens a thread)';
  const record = context.turns[event.turnId];
  if (!record) return `event for unknown turn ${event.turnId}`;
  return `turn ${event.turnId} log degraded after repeated crashes`;
}

function crashNote(space: string, turnId: string): RunEvent {
  return {
    type: 'note',
    space,
    turnId,
    level: 'warn',
    text: `⚠️ The activity log of this turn stopped after an error it could not recover from; its remaining activity is posted here.`,
  };
}
