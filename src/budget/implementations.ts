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
import type { BudgetConfig } from './config.js';

export interface BudgetImplementationsOptions {
  /** The clock the actor runs on (epoch ms). */
  now: () => number;
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

type Reply = { to: AnyActorRef; event: GrantedEvent | RefusedEvent | FundedEvent | AdvisoryAnswerEvent };

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
  return { to: params.replyTo, event: replyFor(decision) };
}

/**
 * Funds every booking due by `at`, then the queued writes that may go, then
 * answers the line while tokens are there; returns the replies, in that order.
 */
function serveAt(
  context: BudgetMachineContext,
  waiters: BudgetMachineContext['waiters'],
  at: number,
): { replies: Reply[]; budget: BudgetState; waiters: BudgetMachineContext['waiters'] } {
  const replies: Reply[] = [];
  const settled = settleBookings(context.budget, context.config, at);
  let stillWaiting = waiters;
  if (settled.funded.length > 0) {
    const fundedIds = new Set(settled.funded.map((booking) => booking.id));
    for (const waiter of waiters) {
      if (fundedIds.has(waiter.bookingId)) replies.push({ to: waiter.replyTo, event: funded });
    }
    stillWaiting = waiters.filter((waiter) => !fundedIds.has(waiter.bookingId));
  }
  const queued = serveQueued(settled.state, context.config, at);
  for (const id of queued.funded) {
    const to = context.queuedReplyTo[id];
    delete context.queuedReplyTo[id];
    if (to) replies.push({ to, event: funded });
  }
  const woken = wakeLine(queued.state, context.config, at);
  for (const answer of woken.answers) {
    const to = context.lineReplyTo[answer.cardId];
    delete context.lineReplyTo[answer.cardId];
    if (to) replies.push({ to, event: replyFor(answer.decision) });
  }
  return { replies, budget: woken.state, waiters: stillWaiting };
}

export function createBudgetImplementations({ now }: BudgetImplementationsOptions): BudgetImplementations {
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
        if (reply) enqueue.sendTo(reply.to, reply.event);
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
        if (reply) enqueue.sendTo(reply.to, reply.event);
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
        const served = serveAt(context, waiters, state.clockAt ?? booking.fundedAt);
        enqueue.assign({
          budget: served.budget,
          waiters: served.waiters,
          queuedReplyTo: context.queuedReplyTo,
          lineReplyTo: context.lineReplyTo,
          ...nextDue(served.budget, context.config),
        });
        for (const reply of served.replies) enqueue.sendTo(reply.to, reply.event);
      }),
      bookQueued: enqueueActions(({ context, enqueue }, params: QueuedBookParams) => {
        const { state, id } = bookQueued(context.budget, context.config, {
          channel: params.channel,
          group: params.group,
          now: now(),
          ...(params.write === undefined ? {} : { write: params.write }),
        });
        context.queuedReplyTo[id] = params.replyTo;
        const served = serveAt(context, context.waiters, state.clockAt ?? now());
        enqueue.assign({
          budget: served.budget,
          waiters: served.waiters,
          queuedReplyTo: context.queuedReplyTo,
          lineReplyTo: context.lineReplyTo,
          ...nextDue(served.budget, context.config),
        });
        for (const reply of served.replies) enqueue.sendTo(reply.to, reply.event);
      }),
      answerAdvisory: enqueueActions(({ context, enqueue }, params: AdvisoryParams) => {
        const { state, granted: ok } = requestAdvisory(context.budget, context.config, now());
        enqueue.assign({ budget: state });
        const answer: AdvisoryAnswerEvent = {
          type: 'budget.advisory.answer',
          purpose: params.purpose,
          granted: ok,
        };
        enqueue.sendTo(params.replyTo, answer);
      }),
      serveDue: enqueueActions(({ context, enqueue }) => {
        // The timer fired, so what it was set for is due even if the clock reads earlier (it went back).
        const at = Math.max(now(), context.nextDueAt ?? Number.NEGATIVE_INFINITY);
        const served = serveAt(context, context.waiters, at);
        enqueue.assign({
          budget: served.budget,
          waiters: served.waiters,
          queuedReplyTo: context.queuedReplyTo,
          lineReplyTo: context.lineReplyTo,
          ...nextDue(served.budget, context.config),
        });
        for (const reply of served.replies) enqueue.sendTo(reply.to, reply.event);
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
