/**
 * The space supervisor's implementations: routing (routeEvent), formatting
 * (formatTurnLogEntry), spawning turns (fresh or from a persisted snapshot),
 * deliveries (answers, cards, top-level entries) and the anchors it persists.
 */
import { enqueueActions, type Snapshot, sendTo } from 'xstate';
import type { DeliveryOutput } from '../../machines/delivery.machine.js';
import {
  MAX_WARNINGS,
  presenceChildId,
  type SpaceContext,
  spaceEventOf,
  type spaceMachine,
  takeSlot,
  turnActorId,
  turnChildId,
} from '../../machines/space.machine.js';
import type { TurnInput, TurnLogItem } from '../../machines/turn.machine.js';
import { normalizeOption, type RunEvent } from '../events/schema.js';
import type { TurnlogStore } from '../store/store.js';
import { type FrameLine, proseFrame } from '../surfaces/frame.js';
import { formatClockTime } from '../turnlog/clock-time.js';
import { formatTurnLogEntry, frameLineOf } from '../turnlog/format.js';
import { cardOf, isCardEvent } from './cards.js';
import { deadLetterReason, undeliveredText, withDeadLetter } from './dead-letters.js';
import { type DeliveryImplementationDeps, provideDeliveryMachine } from './delivery.implementations.js';
import { headerAnchorOf } from './header-anchor.js'; // [writes]
import { observed, type SnapshotListener } from './observed.js';
import type { PendingAnswerSink } from './pending-answers.js';
import { surfaceResolver } from './posting.js';
import { providePresenceMachine } from './presence.implementations.js';
import { restorable } from './restorable.js';
import {
  answerParts,
  answersAfterEnd,
  BATCHED_ENTRY_TYPES,
  depthOf,
  nextDelivery,
  optionalClientId,
  placeholderInput,
  resolveAnchor,
  restoredInput,
  routeFor,
  threadsOn,
} from './space.decisions.js';
import { createSpacePresence } from './space.presence.js';
import { provideStrayLogMachine } from './stray-log.implementations.js';
import { provideTurnMachine } from './turn.implementations.js';

export interface SpaceImplementationDeps extends DeliveryImplementationDeps {
  store?: TurnlogStore;
  /** `HH:MM:SS` stamps and the tool preview cap. */
  format: { maxToolPreview: number; timeZone?: string };
  now: () => number;
  /** The latest persisted snapshot of each live turn (kept by the runtime), for restarting a crashed one. */
  snapshotOf: (turnId: string) => Snapshot<unknown> | undefined;
  /** Warnings worth a log line (unknown turn, missing anchor, crashed turn …). */
  onWarning?: (space: string, message: string) => void;
  /** A turn crashed for good: it has no actor any more (its log goes top-level until its `turn_ended`). */
  onTurnCrashed?: (space: string, turnId: string) => void;
  /** The `turn_ended` of a turn with no actor here (it crashed for good, or is unknown to this space). */
  onTurnEndedWithoutActor?: (space: string, turnId: string, outcome: 'ok' | 'error' | 'stopped') => void;
  /** Every snapshot a turn actor makes (the runtime persists live turns from it). */
  onTurnSnapshot?: SnapshotListener;
  /** Every snapshot a space's stray log makes (the runtime persists it, so a restart keeps its message). */
  onStraySnapshot?: SnapshotListener;
  /** A host's write (the channel adapter) is done, delivered or failed: its caller waits on `ticket`. */
  onHostWrite?: (ticket: string, output: DeliveryOutput) => void;
  /** A turn's answer was refused for good (the turn may have ended): its view says so. */
  onAnswerFailed?: (turnId: string, reason: string) => void;
  /** Keeps each answer's parts until posted, so a restart posts the rest (src/runtime/pending-answers.ts). */
  pendingAnswers?: DeliveryImplementationDeps['pendingAnswers'] & Pick<PendingAnswerSink, 'save'>;
}

export type SpaceImplementations = Parameters<typeof spaceMachine.provide>[0];

export function createSpaceImplementations(deps: SpaceImplementationDeps): SpaceImplementations {
  const restorableTurn = restorable(provideTurnMachine(deps));
  const turnLogic = deps.onTurnSnapshot ? observed(restorableTurn, deps.onTurnSnapshot) : restorableTurn;
  const deliveryLogic = provideDeliveryMachine(deps);
  const presenceLogic = providePresenceMachine(deps);
  /** The platform's limit for one message, from its surface. */
  const surfaceFor = surfaceResolver(deps.surfaces, deps.platforms);
  const acksOf = (space: string): boolean => {
    try {
      return surfaceFor(space).capabilities.ackCard === true;
    } catch {
      return false;
    }
  };
  const maxCharsOf = (space: string): number => {
    try {
      return surfaceFor(space).capabilities.maxChars;
    } catch {
      return Number.POSITIVE_INFINITY;
    }
  };

  const restorableStrays = restorable(
    provideStrayLogMachine({
      ...deps,
      onDeadLetter: (space, reason, text) => {
        deps.onWarning?.(space, `${reason}; kept as a dead letter`);
        const stored = deps.store?.deadLetter({ at: deps.now(), source: 'delivery', reason, payload: text });
        if (stored instanceof Promise) stored.catch(() => {});
      },
    }),
  );
  const strayLogic = deps.onStraySnapshot
    ? observed(restorableStrays, deps.onStraySnapshot)
    : restorableStrays;

  /** The log line of an event that goes top-level instead of into a thread log (a stray). */
  const strayLineOf = (event: RunEvent): FrameLine => {
    const entry = formatTurnLogEntry(event, { ...deps.format, now: deps.now(), depth: depthOf(event) });
    if (entry) return frameLineOf(entry);
    return {
      kind: 'system',
      depth: 0,
      time: formatClockTime(event.at ?? deps.now(), deps.format.timeZone),
      text: 'text' in event && typeof event.text === 'string' ? event.text : event.type,
    };
  };

  /** The entry an event adds to its turn's log, and the tool a `tool_call` starts; null when it shows nothing. */
  const logItemOf = (event: RunEvent): TurnLogItem | null => {
    const entry = formatTurnLogEntry(event, { ...deps.format, now: deps.now(), depth: depthOf(event) });
    if (!entry) return null;
    if (event.type === 'tool_call') return { entry, tool: event.tool };
    if (event.type === 'policy_decision') return { entry, decision: event.decision };
    return { entry };
  };

  /**
   * An event a `space.entry` would only forward to a live turn's log: a
   * plain log entry type (no lifecycle, card or answer, which have
   * transitions of their own) routed to the thread log of a live turn.
   */
  const isLiveLogEntry = (context: SpaceContext, event: RunEvent): boolean =>
    BATCHED_ENTRY_TYPES.has(event.type) &&
    event.turnId !== undefined &&
    context.turns[event.turnId]?.mode === 'live' &&
    routeFor(context, event).kind === 'thread-log';

  const clientIdOf = (event: RunEvent, what: string): string | undefined =>
    event.turnId !== undefined && event.seq !== undefined
      ? `${event.turnId}:${what}:${event.seq}`
      : undefined;

  /** A card the registry could not keep: its buttons will answer "unknown"; said in the log. */
  const cardNotRegistered = (space: string, messageId: string) => (error: unknown) =>
    deps.onWarning?.(
      space,
      `card ${messageId} was posted but not registered (its buttons will not work): ${String(error)}`,
    );

  const presenceParts = createSpacePresence({ deps, surfaceFor, logItemOf });

  return {
    actors: {
      turn: turnLogic,
      delivery: deliveryLogic,
      strays: strayLogic,
      presence: presenceLogic,
    },
    guards: {
      routesTo: ({ context }, params) => routeFor(context, params.event).kind === params.kind,
      routesToLiveTurnLog: ({ context }, params) =>
        params.event.turnId !== undefined &&
        context.turns[params.event.turnId]?.mode === 'live' &&
        routeFor(context, params.event).kind === 'thread-log',
      /**
       * A restart resumes the turn from its last persisted snapshot: a turn
       * that crashed before its first one (an entry action of its first state
       * threw) cannot be restarted, and goes the crashed-for-good way (child
       * stopped, slot freed, note top-level). Nothing is lost: no entry of it
       * was applied yet, and its later entries go top-level.
       */
      canRestart: ({ context }, params) => {
        const record = context.turns[params.turnId];
        return (
          record !== undefined &&
          record.slot !== null &&
          record.restarts < context.settings.maxRestarts &&
          deps.snapshotOf(params.turnId) !== undefined
        );
      },
    },
    actions: {
      startTurn: enqueueActions(({ context, enqueue }, params) => {
        const event = params.event;
        const turnId = event.turnId;
        const { anchor, reason, header } = resolveAnchor(context, event);
        const dm = event.dm === true || context.settings.routing.dm === true;
        const headed = header !== undefined && !dm && threadsOn(context);
        // A lost root is worth a warning (in the log and the turn's view); threads off, a DM or a job is as configured.
        const warning =
          reason && !dm && threadsOn(context) && event.title === undefined
            ? `turn ${turnId}: ${reason}; its log goes ${headed ? 'in a thread under a header' : 'top-level'}`
            : undefined;
        if (warning) deps.onWarning?.(context.space, warning);
        const input: TurnInput = {
          turnId,
          space: context.space,
          anchor,
          settings: context.settings.turn,
          ...(reason ? { degradedReason: reason } : {}),
          ...(headed ? { header } : {}),
          ...(warning ? { warnings: [warning] } : {}),
          ...(event.title !== undefined ? { title: event.title } : {}),
          // A platform that acks (Slack's 👀 card) posts the empty log at once, in the person's thread only.
          ...(anchor !== null && !headed && !dm && threadsOn(context) && acksOf(context.space)
            ? { ack: true }
            : {}),
          startedAt: event.at ?? deps.now(),
        };
        const { slot, slots } = takeSlot(context.turnSlots, turnId);
        enqueue.spawnChild('turn', { id: turnChildId(slot), input });
        // Its presence (issue 26): 👀 on the person's message and typing from the start, then the outcome.
        const presence = presenceParts.inputFor(context, turnId, headed ? null : anchor);
        const presenceSlot = presence ? takeSlot(context.presenceSlots, turnId) : undefined;
        if (presence && presenceSlot) {
          enqueue.spawnChild('presence', { id: presenceChildId(presenceSlot.slot), input: presence });
        }
        enqueue.assign({
          turns: { ...context.turns, [turnId]: { anchor, dm, restarts: 0, mode: 'live', slot } },
          turnSlots: slots,
          ...(presenceSlot ? { presenceSlots: presenceSlot.slots } : {}),
        });
      }),
      adoptMessages: presenceParts.adoptMessages,
      endPresence: presenceParts.endPresence,
      forwardEntry: enqueueActions(({ context, enqueue }, params) => {
        const item = logItemOf(params.event);
        if (item && params.event.turnId !== undefined) {
          enqueue.sendTo(turnActorId(context, params.event.turnId), { type: 'turn.log', ...item });
        }
      }),
      forwardEntries: enqueueActions(({ context, enqueue }, params) => {
        const { events } = params;
        // The head of the batch that only adds entries to live turns' logs: one `turn.log` per turn.
        const perTurn = new Map<string, TurnLogItem[]>();
        let next = 0;
        for (; next < events.length && isLiveLogEntry(context, events[next] as RunEvent); next++) {
          const event = events[next] as RunEvent & { turnId: string };
          const item = logItemOf(event);
          if (!item) continue;
          const items = perTurn.get(event.turnId);
          if (items) items.push(item);
          else perTurn.set(event.turnId, [item]);
        }
        for (const [turnId, [first, ...following]] of perTurn) {
          if (!first) continue;
          enqueue.sendTo(turnActorId(context, turnId), {
            type: 'turn.log',
            ...first,
            ...(following.length > 0 ? { following } : {}),
          });
        }
        // The next event goes its own typed way (it may start or end a turn), the rest after it.
        const stop = events[next];
        if (stop === undefined) return;
        const rest = events.slice(next + 1);
        const reordered = answersAfterEnd(context, stop, rest);
        if (reordered !== null) {
          enqueue.raise({ type: 'space.events', events: reordered });
          return;
        }
        enqueue.raise(spaceEventOf(stop));
        if (rest.length > 0) enqueue.raise({ type: 'space.events', events: rest });
      }),
      // A stray: coalesced by the stray log, never a notifying message of its own.
      deliverOrphan: enqueueActions(({ context, enqueue }, params) => {
        deps.onWarning?.(context.space, params.reason);
        enqueue.sendTo('strays', {
          type: 'strays.add' as const,
          line: strayLineOf(params.event),
          at: deps.now(),
        });
      }),
      deliverCard: enqueueActions(({ context, enqueue, self }, params) => {
        const event = params.event;
        if (!isCardEvent(event)) return;
        const record = event.turnId !== undefined ? context.turns[event.turnId] : undefined;
        // [writes] A proactive turn has no root: its thread is the one its header started (the turn's anchor).
        const anchor = record?.anchor ?? headerAnchorOf(self, record?.slot ?? null);
        const thread = record?.mode === 'live' && threadsOn(context) ? anchor : null;
        const card = cardOf(event);
        const delivery = nextDelivery(context, {
          purpose: `${card.kind} card`,
          request: {
            space: context.space,
            frame: { kind: 'card', card },
            ...(thread ? { thread } : {}),
            ...optionalClientId(clientIdOf(event, 'card')),
          },
          card: {
            turnId: event.turnId,
            ...(event.type === 'question' ? { options: event.options.map(normalizeOption) } : {}),
          },
        });
        enqueue.spawnChild('delivery', { id: delivery.id, input: delivery.input });
        enqueue.assign(delivery.assignment);
      }),
      deliverTopLevel: enqueueActions(({ context, enqueue }, params) => {
        const event = params.event;
        const route = routeFor(context, event);
        if (route.kind === 'top-level' && route.warning) deps.onWarning?.(context.space, route.warning);
        const record = event.turnId !== undefined ? context.turns[event.turnId] : undefined;
        if (event.type !== 'answer') {
          enqueue.sendTo('strays', { type: 'strays.add' as const, line: strayLineOf(event), at: deps.now() });
          return;
        }
        const thread =
          context.settings.finalReplyInThread && record?.anchor && threadsOn(context) && !record.dm
            ? record.anchor
            : null;
        // [writes] Threads off: log lines go top-level through the stray log; its pending lines go out first.
        if (!thread && !threadsOn(context)) enqueue.sendTo('strays', { type: 'strays.flush' as const });
        // An answer over the platform's limit goes out in parts rather than being refused whole.
        const parts = answerParts(event.text, maxCharsOf(context.space));
        const [first, ...continuation] = parts;
        const clientId = clientIdOf(event, 'answer');
        // Kept until each part is posted, committed with the event that carried it: a restart posts the rest.
        const kept = clientId !== undefined && deps.pendingAnswers !== undefined;
        if (kept) {
          const savedAt = deps.now();
          deps.pendingAnswers?.save(
            parts.map((text, part) => ({
              space: context.space,
              key: clientId,
              part,
              parts: parts.length,
              ...(event.turnId !== undefined ? { turnId: event.turnId } : {}),
              ...(thread ? { thread } : {}),
              text,
              savedAt,
            })),
          );
        }
        const delivery = nextDelivery(context, {
          purpose: 'answer',
          request: {
            space: context.space,
            frame: proseFrame(first ?? event.text),
            ...(thread ? { thread } : {}),
            ...optionalClientId(clientId),
          },
          ...(continuation.length > 0 ? { continuation } : {}),
          ...(event.turnId !== undefined ? { turnId: event.turnId } : {}),
          ...(kept ? { pendingKey: clientId } : {}),
        });
        enqueue.spawnChild('delivery', { id: delivery.id, input: delivery.input });
        enqueue.assign(delivery.assignment);
      }),
      restoreTurns: enqueueActions(({ context, enqueue }, params) => {
        const turns = { ...context.turns };
        let turnSlots = context.turnSlots;
        for (const restored of params.turns) {
          // A turn restored again (it is live here already) replaces its actor in the same slot.
          let slot = turns[restored.turnId]?.slot ?? null;
          if (slot !== null) enqueue.stopChild(turnChildId(slot));
          else ({ slot, slots: turnSlots } = takeSlot(turnSlots, restored.turnId));
          enqueue.spawnChild('turn', {
            id: turnChildId(slot),
            input: {
              ...(restoredInput(restored.snapshot) ?? placeholderInput(context, restored.turnId)),
              persisted: restored.snapshot,
            },
          });
          enqueue.sendTo(turnChildId(slot), { type: 'turn.recover' });
          turns[restored.turnId] = { ...restored.record, slot };
        }
        enqueue.assign({ turns, turnSlots });
      }),
      restartTurn: enqueueActions(({ context, enqueue }, params) => {
        const record = context.turns[params.turnId];
        const persisted = deps.snapshotOf(params.turnId);
        // `canRestart` let it through: a record with a slot and a snapshot.
        if (!record || record.slot === null || persisted === undefined) {
          throw new Error(
            `space ${context.space}: turn ${params.turnId} cannot be restarted (no actor or no persisted snapshot)`,
          );
        }
        deps.onWarning?.(
          context.space,
          `turn ${params.turnId} crashed (${String(params.error)}); restarting from its last snapshot (${record.restarts + 1}/${context.settings.maxRestarts})`,
        );
        // The restarted actor keeps the turn's slot.
        const id = turnChildId(record.slot);
        enqueue.stopChild(id);
        enqueue.spawnChild('turn', { id, input: { ...placeholderInput(context, params.turnId), persisted } });
        enqueue.sendTo(id, { type: 'turn.recover' });
        enqueue.assign({
          turns: { ...context.turns, [params.turnId]: { ...record, restarts: record.restarts + 1 } },
        });
      }),
      resumeAnswers: enqueueActions(({ context, enqueue }, params) => {
        if (params.answers.length === 0) return;
        let current = context;
        for (const input of params.answers) {
          const delivery = nextDelivery(current, input);
          enqueue.spawnChild('delivery', { id: delivery.id, input: delivery.input });
          current = { ...current, ...delivery.assignment };
        }
        enqueue.assign({ deliverySlots: current.deliverySlots, deliveries: current.deliveries });
      }),
      flush: enqueueActions(({ context, enqueue }, params) => {
        for (const turnId of params.turnIds) {
          if (context.turns[turnId]?.mode === 'live')
            enqueue.sendTo(turnActorId(context, turnId), { type: 'turn.flush' });
        }
        if (params.strays) enqueue.sendTo('strays', { type: 'strays.flush' });
      }),
      recoverStrays: sendTo('strays', () => ({ type: 'strays.recover' as const, now: deps.now() })),
      persistAnchor: ({ context }, params) => {
        void deps.store?.saveAnchor(context.space, params.anchor);
      },
      forgetTurn: ({ context }, params) => {
        if (params.outcome !== undefined)
          deps.onTurnEndedWithoutActor?.(context.space, params.turnId, params.outcome);
      },
      reportCrashed: ({ context }, params) => deps.onTurnCrashed?.(context.space, params.turnId),
      deliverForHost: enqueueActions(({ context, enqueue }, params) => {
        const delivery = nextDelivery(context, params.delivery);
        enqueue.spawnChild('delivery', { id: delivery.id, input: delivery.input });
        enqueue.assign(delivery.assignment);
      }),
      settleHostWrite: (_, params) => {
        const { output } = params;
        if (output?.ticket !== undefined) deps.onHostWrite?.(output.ticket, output);
      },
      deliverCardOutcome: enqueueActions(({ context, enqueue }, params) => {
        const delivery = nextDelivery(context, {
          purpose: `${params.card.kind} card outcome`,
          request: { space: context.space, frame: { kind: 'card', card: params.card } },
          edit: {
            messageId: params.messageId,
            ...(params.threadId !== undefined ? { threadId: params.threadId } : {}),
          },
        });
        enqueue.spawnChild('delivery', { id: delivery.id, input: delivery.input });
        enqueue.assign(delivery.assignment);
      }),
      registerCard: ({ context }, params) => {
        const { output } = params;
        if (output?.status !== 'delivered' || output.card === undefined) return;
        const { frame } = output.request;
        if (frame.kind !== 'card') return;
        const { messageId, threadId } = output.message;
        try {
          const stored = deps.store?.registerCard({
            space: context.space,
            messageId,
            ...(threadId !== undefined ? { threadId } : {}),
            turnId: output.card.turnId,
            kind: frame.card.kind,
            cardId: frame.card.id,
            card: frame.card,
            ...(output.card.options ? { options: output.card.options } : {}),
            postedAt: deps.now(),
          });
          if (stored instanceof Promise) stored.catch(cardNotRegistered(context.space, messageId));
        } catch (error) {
          cardNotRegistered(context.space, messageId)(error);
        }
      },
      recordDeliveryFailure: enqueueActions(({ context, enqueue }, params) => {
        const { output } = params;
        if (output === null) return;
        if (output.status === 'failed' && output.edit !== undefined && output.errorKind === 'not-found') {
          // A person deleted the card: there is nothing left to show the outcome on (the action still counts).
          const warning = `${output.purpose} not shown: message ${output.edit.messageId} was deleted`;
          deps.onWarning?.(context.space, warning);
          enqueue.assign({ warnings: [...context.warnings, warning].slice(-MAX_WARNINGS) });
          return;
        }
        if (output.status === 'failed') {
          deps.onWarning?.(context.space, `${output.purpose} not delivered: ${output.error}`);
          // Kept in the store too, so what the platform refused outlives the process.
          const stored = deps.store?.deadLetter({
            at: deps.now(),
            source: 'delivery',
            reason: deadLetterReason(output),
            payload: undeliveredText(output),
          });
          if (stored instanceof Promise) stored.catch(() => {});
          if (output.turnId !== undefined)
            deps.onAnswerFailed?.(output.turnId, `${output.purpose} not delivered: ${output.error}`);
        }
        enqueue.assign({ deadLetters: withDeadLetter(context, output, deps.now()) });
      }),
    },
  };
}
