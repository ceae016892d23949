/**
 * The budget as it was before it stopped polling (a refused card asked again
 * after the shortest wait, and every request copied and scanned every card),
 * kept only so `npm run bench -- budget` can run it side by side.
 */
/**
 * The budget machine's actions: the pure bucket math (bucket.ts) applied at
 * the time `now()` reads, and the replies sent to the asking turn. Passed to
 * `budgetMachine.provide(...)`; tests give `now: () => clock.now()` of the
 * same `SimulatedClock` the actor runs on.
 */
import { enqueueActions } from 'xstate';
import type { FundedEvent, GrantedEvent, RefusedEvent } from '../../../machines/budget.protocol.js';
import type { BudgetConfig } from '../../../src/budget/config.js';
import {
  type BudgetState,
  bookTerminal,
  closeCard,
  coolOff,
  coolOffRemainingMs,
  nextFundingAt,
  type ProgressDecision,
  refuseDuringCoolOff,
  requestProgress,
  settleBookings,
} from './bucket.js';
import type { BudgetMachine, BudgetMachineContext, FrameRequestParams } from './budget.machine.js';

export interface BudgetImplementationsOptions {
  /** The clock the actor runs on (epoch ms). */
  now: () => number;
}

type BudgetImplementations = Parameters<BudgetMachine['provide']>[0];

const funded: FundedEvent = { type: 'budget.funded' };

function replyFor(decision: ProgressDecision): GrantedEvent | RefusedEvent {
  return decision.granted
    ? { type: 'budget.granted' }
    : { type: 'budget.refused', retryInMs: decision.retryInMs, reason: decision.reason };
}

interface Settlement {
  context: Pick<BudgetMachineContext, 'budget' | 'waiters' | 'nextFundingAt' | 'nextFundingInMs'>;
  /** The waiters whose frames are funded now, in booking order. */
  fundedWaiters: BudgetMachineContext['waiters'];
}

/** Answers every booking funded by `at`, and schedules the funding timer for the earliest still waiting. */
function settleAt(
  budget: BudgetState,
  config: BudgetConfig,
  waiters: BudgetMachineContext['waiters'],
  at: number,
): Settlement {
  const settled = settleBookings(budget, config, at);
  const fundedIds = new Set(settled.funded.map((booking) => booking.id));
  const next = nextFundingAt(settled.state);
  return {
    context: {
      budget: settled.state,
      waiters: waiters.filter((waiter) => !fundedIds.has(waiter.bookingId)),
      nextFundingAt: next,
      nextFundingInMs: next === null ? 0 : Math.max(0, next - at),
    },
    fundedWaiters: waiters.filter((waiter) => fundedIds.has(waiter.bookingId)),
  };
}

export function createBudgetImplementations({ now }: BudgetImplementationsOptions): BudgetImplementations {
  return {
    actions: {
      answerProgress: enqueueActions(({ context, enqueue }, params: FrameRequestParams) => {
        const { state, decision } = requestProgress(context.budget, context.config, {
          cardId: params.cardId,
          channel: params.channel,
          now: now(),
        });
        enqueue.assign({ budget: state });
        enqueue.sendTo(params.replyTo, replyFor(decision));
      }),
      refuseDuringCoolOff: enqueueActions(({ context, enqueue }, params: FrameRequestParams) => {
        const { state, decision } = refuseDuringCoolOff(context.budget, context.config, {
          cardId: params.cardId,
          channel: params.channel,
          now: now(),
        });
        enqueue.assign({ budget: state });
        enqueue.sendTo(params.replyTo, replyFor(decision));
      }),
      bookTerminal: enqueueActions(({ context, enqueue }, params: FrameRequestParams) => {
        const { state, booking } = bookTerminal(context.budget, context.config, {
          cardId: params.cardId,
          channel: params.channel,
          now: now(),
        });
        const waiters = [...context.waiters, { bookingId: booking.id, replyTo: params.replyTo }];
        const settlement = settleAt(state, context.config, waiters, state.clockAt ?? booking.fundedAt);
        enqueue.assign(settlement.context);
        for (const waiter of settlement.fundedWaiters) enqueue.sendTo(waiter.replyTo, funded);
      }),
      fundDueBookings: enqueueActions(({ context, enqueue }) => {
        // The timer fired, so the earliest booking is due even if the clock reads earlier (it went back).
        const at = Math.max(now(), context.nextFundingAt ?? Number.NEGATIVE_INFINITY);
        const settlement = settleAt(context.budget, context.config, context.waiters, at);
        enqueue.assign(settlement.context);
        for (const waiter of settlement.fundedWaiters) enqueue.sendTo(waiter.replyTo, funded);
      }),
      startCoolOff: enqueueActions(({ context, enqueue }, params: { retryAfterMs: number }) => {
        const state = coolOff(context.budget, context.config, {
          retryAfterMs: params.retryAfterMs,
          now: now(),
        });
        const next = nextFundingAt(state);
        enqueue.assign({
          budget: state,
          coolOffMs: coolOffRemainingMs(state),
          nextFundingAt: next,
          nextFundingInMs: next === null ? 0 : Math.max(0, next - (state.clockAt ?? next)),
        });
      }),
      closeCard: enqueueActions(({ context, enqueue }, params: { cardId: string }) => {
        enqueue.assign({ budget: closeCard(context.budget, params.cardId) });
      }),
    },
  };
}
