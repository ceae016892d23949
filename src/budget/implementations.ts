/**
 * The budget machine's actions: the bucket math (bucket.ts) applied at the
 * time `now()` reads, and the replies sent to the asking turn. Passed to
 * `budgetMachine.provide(...)`; tests give `now: () => clock.now()` of the
 * same `SimulatedClock` the actor runs on.
 *
 * The bucket state and the line's reply-to map are updated in place (the
 * registry holds one entry per live turn; a copy per request is what made
 * every request O(n)) and assigned back as the same objects.
 */
import { type AnyActorRef, enqueueActions } from 'xstate';
import type {
  AdvisoryParams,
  BudgetMachine,
  BudgetMachineContext,
  FrameRequestParams,
  QueuedBookParams,
} from '../../machines/budget.machine.js';
import type {
  AdvisoryAnswerEvent,
  FundedEvent,
  GrantedEvent,
  RefusedEvent,
} from '../../machines/budget.protocol.js';
import {
  type BudgetState,
  bookQueued,
  bookTerminal,
  closeCard,
  coolOff,
  coolOffRemainingMs,
  holdsToken,
  nextFundingAt,
  nextQueuedAt,
  nextWakeAt,
  type ProgressAnswer,
  type ProgressDecision,
  refuseDuringCoolOff,
  requestAdvisory,
  requestProgress,
  serveQueued,
  settleBookings,
  wakeLine,
} from './bucket.js';
import type { BudgetConfig, WriteKind } from './config.js';
import type { SharedTakeClass } from './shared-bucket.js';
import type { BudgetGate } from './shared-budget.js';

export interface BudgetImplementationsOptions {
  /** The clock the actor runs on (epoch ms). */
  now: () => number;
  /**
   * Issue 23 item 5: the app's budget shared with other processes
   * (src/budget/shared-budget.ts). What this bucket lets out takes its tokens
   * there too before the asker hears it; absent, replies go at once.
   */
  gate?: BudgetGate | undefined;
}

type BudgetImplementations = Parameters<BudgetMachine['provide']>[0];

const funded: FundedEvent = { type: 'budget.funded' };
const granted: GrantedEvent = { type: 'budget.granted' };

function replyFor(answer: ProgressAnswer): GrantedEvent | RefusedEvent {
  return answer.granted
    ? granted
    : { type: 'budget.refused', retryInMs: answer.retryInMs, reason: answer.reason };
}

const earliest = (...times: (number | null)[]): number | null =>
  times.reduce<number | null>((a, b) => (b === null ? a : a === null ? b : Math.min(a, b)), null);

/** When the serving timer is next due: the earliest booking's funding, queued write or move of the line. */
function nextDue(
  budget: BudgetState,
  config: BudgetConfig,
): Pick<BudgetMachineContext, 'nextDueAt' | 'nextDueInMs'> {
  const next = earliest(nextFundingAt(budget), nextQueuedAt(budget, config), nextWakeAt(budget, config));
  const at = budget.clockAt ?? next ?? 0;
  return { nextDueAt: next, nextDueInMs: next === null ? 0 : Math.max(0, next - at) };
}

/** What a reply lets out, for the shared gate: the write's channel and kind, and its class. */
interface Outgoing {
  channel?: string | undefined;
  write?: WriteKind | undefined;
  cls: SharedTakeClass;
}

/**
 * The serving timer after a progress request: computed when none is set; with
 * one set, moved sooner only when the card joined the line and the line can
 * move before it (the machine sets its timer again: `isDueSooner`). Nothing
 * else is recomputed on a request.
 */
function dueAfterJoining(
  context: BudgetMachineContext,
  budget: BudgetState,
  joined: boolean,
): Partial<Pick<BudgetMachineContext, 'nextDueAt' | 'nextDueInMs'>> {
  if (context.nextDueAt === null) return nextDue(budget, context.config);
  if (!joined) return {};
  const wakeAt = nextWakeAt(budget, context.config);
  if (wakeAt === null || wakeAt >= context.nextDueAt) return {};
  return { nextDueAt: wakeAt, nextDueInMs: Math.max(0, wakeAt - (budget.clockAt ?? wakeAt)) };
}

type Reply = {
  to: AnyActorRef;
  event: GrantedEvent | RefusedEvent | FundedEvent | AdvisoryAnswerEvent;
  /** Set when the reply lets a write out (a grant, a funding): it passes the gate first. */
  out?: Outgoing;
};

/** What sending a reply needs of an action's `enqueue`. */
interface ReplyEnqueue {
  (action: () => void): void;
  sendTo(to: AnyActorRef, event: Reply['event']): void;
}

/** Sends a reply; one that lets a write out passes the shared gate first (when there is one). */
function sendReply(
  enqueue: ReplyEnqueue,
  config: BudgetConfig,
  gate: BudgetGate | undefined,
  reply: Reply,
): void {
  const { out } = reply;
  if (gate === undefined || out === undefined) {
    enqueue.sendTo(reply.to, reply.event);
    return;
  }
  enqueue(() =>
    gate.admit({ config, channel: out.channel, write: out.write, cls: out.cls }, (ok) => {
      // Only an advisory write is ever refused by the gate: skip it.
      const event: Reply['event'] =
        ok || reply.event.type !== 'budget.advisory.answer'
          ? reply.event
          : { ...reply.event, granted: false };
      reply.to.send(event);
    }),
  );
}
/** The reply to a progress request now; none while the card waits in the line (its reply-to is kept). */
function answerOrWait(
  context: BudgetMachineContext,
  params: FrameRequestParams,
  decision: ProgressDecision,
): Reply | null {
  if ('waiting' in decision) {
    context.lineReplyTo[params.cardId] = params.replyTo;
    return null;
  }
  return {
    to: params.replyTo,
    event: replyFor(decision),
    ...(decision.granted
      ? { out: { channel: params.channel, write: params.write, cls: 'progress' as const } }
      : {}),
  };
}

/** Each queued write's channel and kind (read before serving, which forgets them), for the shared gate. */
function queuedOutgoing(state: BudgetState): Map<number, Outgoing> {
  const out = new Map<number, Outgoing>();
  if (state.queuedCount === 0) return out;
  for (const [channel, lane] of Object.entries(state.queued)) {
    for (const ids of Object.values(lane.groups)) {
      for (const id of ids) out.set(id, { channel, write: state.queuedWrites?.[id], cls: 'queued' });
    }
  }
  return out;
}

/**
 * Funds every booking due by `at`, then the queued writes that may go, then
 * answers the line while tokens are there; returns the replies, in that order.
 */
function serveAt(
  context: BudgetMachineContext,
  waiters: BudgetMachineContext['waiters'],
  at: number,
  gated = false,
): { replies: Reply[]; budget: BudgetState; waiters: BudgetMachineContext['waiters'] } {
  const replies: Reply[] = [];
  const settled = settleBookings(context.budget, context.config, at);
  let stillWaiting = waiters;
  if (settled.funded.length > 0) {
    const fundedById = new Map(settled.funded.map((booking) => [booking.id, booking]));
    for (const waiter of waiters) {
      const booking = fundedById.get(waiter.bookingId);
      if (booking === undefined) continue;
      // A booking that holds no token of the bucket (a separate kind) takes none of the shared one either.
      const out: Outgoing | undefined = holdsToken(booking)
        ? { channel: booking.channel, cls: 'terminal' }
        : undefined;
      replies.push({ to: waiter.replyTo, event: funded, ...(out ? { out } : {}) });
    }
    stillWaiting = waiters.filter((waiter) => !fundedById.has(waiter.bookingId));
  }
  // Only a gate needs to know what each queued write is (a pass over the queue).
  const queuedOut = gated ? queuedOutgoing(settled.state) : new Map<number, Outgoing>();
  const queued = serveQueued(settled.state, context.config, at);
  for (const id of queued.funded) {
    const to = context.queuedReplyTo[id];
    delete context.queuedReplyTo[id];
    if (to) replies.push({ to, event: funded, ...(queuedOut.has(id) ? { out: queuedOut.get(id)! } : {}) });
  }
  const woken = wakeLine(queued.state, context.config, at);
  for (const answer of woken.answers) {
    const to = context.lineReplyTo[answer.cardId];
    delete context.lineReplyTo[answer.cardId];
    const channel = woken.state.registry.cards[answer.cardId]?.channel;
    if (to)
      replies.push({
        to,
        event: replyFor(answer.decision),
        ...(answer.decision.granted ? { out: { channel, cls: 'progress' as const } } : {}),
      });
  }
  return { replies, budget: woken.state, waiters: stillWaiting };
}

export function createBudgetImplementations({
  now,
  gate,
}: BudgetImplementationsOptions): BudgetImplementations {
  return {
    actions: {
      answerProgress: enqueueActions(({ context, enqueue }, params: FrameRequestParams) => {
        const { state, decision } = requestProgress(context.budget, context.config, {
          cardId: params.cardId,
          channel: params.channel,
          now: now(),
          ...(params.write === undefined ? {} : { write: params.write }),
        });
        const reply = answerOrWait(context, params, decision);
        enqueue.assign({
          budget: state,
          lineReplyTo: context.lineReplyTo,
          ...dueAfterJoining(context, state, reply === null),
        });
        if (reply) sendReply(enqueue, context.config, gate, reply);
      }),
      refuseDuringCoolOff: enqueueActions(({ context, enqueue }, params: FrameRequestParams) => {
        const { state, decision } = refuseDuringCoolOff(context.budget, context.config, {
          cardId: params.cardId,
          channel: params.channel,
          now: now(),
          ...(params.write === undefined ? {} : { write: params.write }),
        });
        const reply = answerOrWait(context, params, decision);
        enqueue.assign({ budget: state, lineReplyTo: context.lineReplyTo });
        if (reply) sendReply(enqueue, context.config, gate, reply);
      }),
      bookTerminal: enqueueActions(({ context, enqueue }, params: FrameRequestParams) => {
        // Its turn is ending: it no longer waits for a progress token.
        delete context.lineReplyTo[params.cardId];
        const { state, booking } = bookTerminal(context.budget, context.config, {
          cardId: params.cardId,
          channel: params.channel,
          now: now(),
          ...(params.write === undefined ? {} : { write: params.write }),
        });
        const waiters = [...context.waiters, { bookingId: booking.id, replyTo: params.replyTo }];
        const served = serveAt(context, waiters, state.clockAt ?? booking.fundedAt, gate !== undefined);
        enqueue.assign({
          budget: served.budget,
          waiters: served.waiters,
          queuedReplyTo: context.queuedReplyTo,
          lineReplyTo: context.lineReplyTo,
          ...nextDue(served.budget, context.config),
        });
        for (const reply of served.replies) sendReply(enqueue, context.config, gate, reply);
      }),
      bookQueued: enqueueActions(({ context, enqueue }, params: QueuedBookParams) => {
        const { state, id } = bookQueued(context.budget, context.config, {
          channel: params.channel,
          group: params.group,
          now: now(),
          ...(params.write === undefined ? {} : { write: params.write }),
        });
        context.queuedReplyTo[id] = params.replyTo;
        const served = serveAt(context, context.waiters, state.clockAt ?? now(), gate !== undefined);
        enqueue.assign({
          budget: served.budget,
          waiters: served.waiters,
          queuedReplyTo: context.queuedReplyTo,
          lineReplyTo: context.lineReplyTo,
          ...nextDue(served.budget, context.config),
        });
        for (const reply of served.replies) sendReply(enqueue, context.config, gate, reply);
      }),
      answerAdvisory: enqueueActions(({ context, enqueue }, params: AdvisoryParams) => {
        const { state, granted: ok } = requestAdvisory(context.budget, context.config, now());
        enqueue.assign({ budget: state });
        const answer: AdvisoryAnswerEvent = {
          type: 'budget.advisory.answer',
          purpose: params.purpose,
          granted: ok,
        };
        sendReply(enqueue, context.config, gate, {
          to: params.replyTo,
          event: answer,
          ...(ok ? { out: { cls: 'advisory' as const } } : {}),
        });
      }),
      serveDue: enqueueActions(({ context, enqueue }) => {
        // The timer fired, so what it was set for is due even if the clock reads earlier (it went back).
        const at = Math.max(now(), context.nextDueAt ?? Number.NEGATIVE_INFINITY);
        const served = serveAt(context, context.waiters, at, gate !== undefined);
        enqueue.assign({
          budget: served.budget,
          waiters: served.waiters,
          queuedReplyTo: context.queuedReplyTo,
          lineReplyTo: context.lineReplyTo,
          ...nextDue(served.budget, context.config),
        });
        for (const reply of served.replies) sendReply(enqueue, context.config, gate, reply);
      }),
      startCoolOff: enqueueActions(({ context, enqueue }, params: { retryAfterMs: number }) => {
        const state = coolOff(context.budget, context.config, {
          retryAfterMs: params.retryAfterMs,
          now: now(),
        });
        enqueue.assign({
          budget: state,
          coolOffMs: coolOffRemainingMs(state),
          ...nextDue(state, context.config),
        });
      }),
      closeCard: enqueueActions(({ context, enqueue }, params: { cardId: string }) => {
        delete context.lineReplyTo[params.cardId];
        enqueue.assign({
          budget: closeCard(context.budget, params.cardId),
          lineReplyTo: context.lineReplyTo,
        });
      }),
    },
  };
}
