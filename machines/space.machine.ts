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
 * Run events come typed (`spaceEventOf`, machines/space.types.ts): an
 * inbound anchor, a turn's start, a turn's end, and every other event as an
 * entry that routing sends on; each case is a transition with named guards.
 *
 * Pure definition: routing, formatting, spawning with restored snapshots and
 * the platform calls are provided by `createSpaceImplementations`.
 */
import { assign, sendTo, setup, stopChild } from 'xstate';
import type { ActionUser } from '../src/actions/types.js';
import type { RunEvent, RunEventOf } from '../src/events/schema.js';
import type { DestinationKind, SpaceRoutingConfig } from '../src/routing/types.js';
import type { FrameCard } from '../src/surfaces/frame.js';
import type { DeliveryInput, DeliveryOutput } from './delivery.machine.js';
import { deliveryMachine } from './delivery.machine.js';
import { presenceMachine } from './presence.machine.js';
import {
  anchorOf,
  childIdOf,
  childSlot,
  crashNote,
  deliveryOutputOf,
  isPresenceEvent,
  MAX_WARNINGS,
  orphanReason,
  presenceSlotOf,
  releaseSlot,
  turnActorId,
  turnOfChild,
} from './space.children.js';
import type {
  HostDelivery,
  InboundAnchor,
  RestoredTurn,
  SpaceContext,
  SpaceEvent,
  SpaceInput,
  TurnOutcome,
  TurnRecord,
} from './space.types.js';
import { strayLogMachine } from './stray-log.machine.js';
import { turnMachine } from './turn.machine.js';

export * from './space.children.js';
export * from './space.types.js';

/** The turn an actor event (`xstate.done.actor.turn:<slot>`, …) is about, as params; '' for another child. */
const childTurn = ({ context, event }: { context: SpaceContext; event: { type: string } }) => ({
  turnId: turnOfChild(context, event.type) ?? '',
});

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
    /** A turn's reactions and typing (machines/presence.machine.ts), child `presence:<slot>`. */
    presence: presenceMachine,
  },
  actions: {
    // Provided: they format entries, resolve anchors, spawn children, persist.
    startTurn: (_, _params: { event: RunEventOf<'turn_started'> }) => {},
    /** Folds later messages into a live turn: `turn.adopt` and a log line each, its presence reacts on them. */
    adoptMessages: (_, _params: { event: RunEventOf<'messages_adopted'> }) => {},
    forwardEntry: (_, _params: { event: RunEvent }) => {},
    forwardEntries: (_, _params: { events: RunEvent[] }) => {},
    deliverOrphan: (_, _params: { event: RunEvent; reason: string }) => {},
    deliverCard: (_, _params: { event: RunEvent }) => {},
    deliverTopLevel: (_, _params: { event: RunEvent }) => {},
    restoreTurns: (_, _params: { turns: RestoredTurn[] }) => {},
    /** The stray log was restored with the space: its timers are re-armed (`strays.recover`, with the time). */
    recoverStrays: () => {},
    /** Answer parts an earlier process (or the failed space) did not post: a delivery each, in order. */
    resumeAnswers: (_, _params: { answers: DeliveryInput[] }) => {},
    restartTurn: (_, _params: { turnId: string; error: unknown }) => {},
    persistAnchor: (_, _params: { anchor: InboundAnchor }) => {},
    /**
     * The space forgets a turn. `outcome` is given when that is at its
     * `turn_ended` without an actor (crashed for good, or unknown here): the
     * runtime completes what it keeps of a crashed turn.
     */
    forgetTurn: (_, _params: { turnId: string; outcome?: TurnOutcome }) => {},
    /** A turn crashed for good (its actor is stopped, no restart left): the runtime finishes its live snapshot. */
    reportCrashed: (_, _params: { turnId: string }) => {},
    /** Stamps the failure with the runtime clock's time: `withDeadLetter(context, output, now)`; null: not a delivery's output. */
    recordDeliveryFailure: (_, _params: { output: DeliveryOutput | null }) => {},
    /** A delivered card goes in the card registry, so a click on it is understood. */
    registerCard: (_, _params: { output: DeliveryOutput | null }) => {},
    /** A host's write (a delivery with a ticket) is done: its caller hears how it went. */
    settleHostWrite: (_, _params: { output: DeliveryOutput | null }) => {},
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
      ({ context }, params: { turnId: string; outcome: TurnOutcome }) => turnActorId(context, params.turnId),
      (_, params: { turnId: string; outcome: TurnOutcome }): { type: 'turn.end'; outcome: TurnOutcome } => ({
        type: 'turn.end',
        outcome: params.outcome,
      }),
    ),
    stopTurn: stopChild(({ context }, params: { turnId: string }) => turnActorId(context, params.turnId)),
    /** Provided: tells the turn's presence (if it has one) how the turn ended: its final reactions go out. */
    endPresence: (_, _params: { turnId: string; outcome: TurnOutcome }) => {},
    /** A presence child is done (every reaction written) or failed: it leaves the space's children. */
    stopPresence: stopChild((_, params: { childId: string }) => params.childId),
    /** After `stopPresence`: the slot is free for the next turn's presence. */
    releasePresenceSlot: assign(({ context }, params: { slot: number | null }) =>
      params.slot === null ? {} : { presenceSlots: releaseSlot(context.presenceSlots, params.slot) },
    ),
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
      const crashed: TurnRecord = { ...record, mode: 'crashed', slot: null };
      return {
        turns: { ...context.turns, [params.turnId]: crashed },
        turnSlots: record.slot === null ? context.turnSlots : releaseSlot(context.turnSlots, record.slot),
      };
    }),
    warn: assign(({ context }, params: { message: string }) => ({
      warnings: [...context.warnings, params.message].slice(-MAX_WARNINGS),
    })),
    stopRequested: sendTo(
      ({ context }, params: { turnId: string; user: ActionUser }) => turnActorId(context, params.turnId),
      (_, params: { turnId: string; user: ActionUser }) => ({
        type: 'turn.stopRequested',
        user: params.user,
      }),
    ),
    /** Asks the given live turns, and the stray log when `strays`, to send what they have pending (provided). */
    flush: (_, _params: { turnIds: string[]; strays: boolean }) => {},
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
    isPresenceChild: (_, params: { eventType: string }) => isPresenceEvent(params.eventType),
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
    presenceSlots: [],
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
        'space.inbound': {
          actions: [
            { type: 'recordInbound', params: ({ event }) => ({ anchor: anchorOf(event.event) }) },
            { type: 'persistAnchor', params: ({ event }) => ({ anchor: anchorOf(event.event) }) },
          ],
        },
        'space.turnStarted': [
          {
            guard: { type: 'isKnownTurn', params: ({ event }) => ({ turnId: event.event.turnId }) },
            actions: {
              type: 'warn',
              params: ({ event }) => ({
                message: `turn ${event.event.turnId} started twice; the second start is ignored`,
              }),
            },
          },
          { actions: { type: 'startTurn', params: ({ event }) => ({ event: event.event }) } },
        ],
        'space.adopted': [
          {
            guard: { type: 'isLiveTurn', params: ({ event }) => ({ turnId: event.event.turnId }) },
            actions: { type: 'adoptMessages', params: ({ event }) => ({ event: event.event }) },
          },
          {
            actions: {
              type: 'warn',
              params: ({ event }) => ({
                message: `messages_adopted for turn ${event.event.turnId}, which is not live here; nothing adopted`,
              }),
            },
          },
        ],
        'space.turnEnded': [
          {
            guard: { type: 'isLiveTurn', params: ({ event }) => ({ turnId: event.event.turnId }) },
            actions: [
              {
                type: 'endTurn',
                params: ({ event }) => ({ turnId: event.event.turnId, outcome: event.event.outcome }),
              },
              {
                type: 'endPresence',
                params: ({ event }) => ({ turnId: event.event.turnId, outcome: event.event.outcome }),
              },
            ],
          },
          {
            // Crashed for good: its record (no actor, no slot) goes with its end.
            guard: { type: 'isKnownTurn', params: ({ event }) => ({ turnId: event.event.turnId }) },
            actions: [
              {
                type: 'warn',
                params: ({ event }) => ({
                  message: `turn ${event.event.turnId} ended after its log was degraded`,
                }),
              },
              {
                type: 'forgetTurn',
                params: ({ event }) => ({ turnId: event.event.turnId, outcome: event.event.outcome }),
              },
              { type: 'dropTurnRecord', params: ({ event }) => ({ turnId: event.event.turnId }) },
            ],
          },
          {
            actions: [
              {
                type: 'warn',
                params: ({ event }) => ({ message: `turn_ended for unknown turn ${event.event.turnId}` }),
              },
              {
                type: 'forgetTurn',
                params: ({ event }) => ({ turnId: event.event.turnId, outcome: event.event.outcome }),
              },
            ],
          },
        ],
        'space.entry': [
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
        'space.restore': {
          actions: [
            { type: 'restoreTurns', params: ({ event }) => ({ turns: event.turns }) },
            'recoverStrays',
            { type: 'resumeAnswers', params: ({ event }) => ({ answers: event.answers ?? [] }) },
          ],
        },
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
        'space.stopTurn': {
          guard: { type: 'isLiveTurn', params: ({ event }) => ({ turnId: event.turnId }) },
          actions: {
            type: 'stopRequested',
            params: ({ event }) => ({ turnId: event.turnId, user: event.user }),
          },
        },
        'space.flush': {
          actions: {
            type: 'flush',
            params: ({ event }) => ({ turnIds: event.turnIds, strays: event.strays }),
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
            guard: { type: 'isPresenceChild', params: ({ event }) => ({ eventType: event.type }) },
            actions: [
              { type: 'stopPresence', params: ({ event }) => ({ childId: childIdOf(event.type) }) },
              { type: 'releasePresenceSlot', params: ({ event }) => ({ slot: presenceSlotOf(event.type) }) },
            ],
          },
          {
            guard: {
              type: 'isKnownTurn',
              params: ({ event, context }) => ({ turnId: turnOfChild(context, event.type) }),
            },
            // The slot is freed last: the actions before it find the turn through it.
            actions: [
              { type: 'stopTurn', params: childTurn },
              { type: 'forgetTurn', params: childTurn },
              { type: 'dropTurnRecord', params: childTurn },
            ],
          },
          {
            actions: [
              {
                type: 'recordDeliveryFailure',
                params: ({ event }) => ({ output: deliveryOutputOf(event.output) }),
              },
              { type: 'registerCard', params: ({ event }) => ({ output: deliveryOutputOf(event.output) }) },
              {
                type: 'settleHostWrite',
                params: ({ event }) => ({ output: deliveryOutputOf(event.output) }),
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
            // Reactions and typing are advisory: a failed presence is a warning, never the turn's failure.
            guard: { type: 'isPresenceChild', params: ({ event }) => ({ eventType: event.type }) },
            actions: [
              {
                type: 'warn',
                params: ({ event }) => ({
                  message: `${childIdOf(event.type)} failed: ${String(event.error)}`,
                }),
              },
              { type: 'stopPresence', params: ({ event }) => ({ childId: childIdOf(event.type) }) },
              { type: 'releasePresenceSlot', params: ({ event }) => ({ slot: presenceSlotOf(event.type) }) },
            ],
          },
          {
            guard: { type: 'canRestart', params: childTurn },
            actions: {
              type: 'restartTurn',
              params: ({ event, context }) => ({ ...childTurn({ event, context }), error: event.error }),
            },
          },
          {
            guard: {
              type: 'isKnownTurn',
              params: ({ event, context }) => ({ turnId: turnOfChild(context, event.type) }),
            },
            // The slot is freed last (markCrashed): the actions before it find the turn through it.
            actions: [
              { type: 'stopTurn', params: childTurn },
              {
                type: 'warn',
                params: ({ event, context }) => ({
                  message: `turn ${turnOfChild(context, event.type)} crashed and could not be restarted; its log continues top-level`,
                }),
              },
              {
                type: 'deliverOrphan',
                params: ({ event, context }) => ({
                  event: crashNote(context.space, childTurn({ event, context }).turnId),
                  reason: 'crashed',
                }),
              },
              { type: 'reportCrashed', params: childTurn },
              { type: 'markCrashed', params: childTurn },
            ],
          },
          {
            // A delivery child failed outside its own error handling: keep the reason, drop the child.
            actions: [
              {
                type: 'warn',
                params: ({ event }) => ({
                  message: `${childIdOf(event.type)} failed: ${String(event.error)}`,
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
