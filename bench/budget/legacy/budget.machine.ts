/**
 * The budget as it was before it stopped polling (a refused card asked again
 * after the shortest wait, and every request copied and scanned every card),
 * kept only so `npm run bench -- budget` can run it side by side.
 */
/**
 * The edit budget: one actor per platform app (systemId `budget:<platform>`,
 * see budget.protocol.ts) that every turn asks before it edits.
 *
 *   rate:     open ──budget.rate-limited──▶ coolingOff ──after coolOff──▶ open
 *             (coolingOff re-enters itself on another 429: the wait extends)
 *   funding:  idle ──a booking is waiting──▶ waiting ──after nextFunding──▶ waiting | idle
 *             (waiting re-enters on every booking and every 429: the timer follows the earliest booking)
 *
 * `budget.progress.request` is answered at once with `budget.granted` or
 * `budget.refused{retryInMs, reason}` (always refused while coolingOff);
 * `budget.terminal.book` with `budget.funded`, at once when the frame is
 * funded now, else when its time comes; `budget.card.closed` drops the card
 * from the fair share. The math is pure (src/budget/bucket.ts).
 *
 * Pure definition: every action, guard and delay is declared by name. The
 * actions read the clock, so they are provided by `createBudgetImplementations`
 * (src/budget/implementations.ts) through `.provide()`; this file pastes into
 * Stately Studio as it is.
 */
import { type AnyActorRef, not, setup } from 'xstate';
import type { BudgetInEvent } from '../../../machines/budget.protocol.js';
import { type BudgetConfig, type BudgetInput, resolveBudgetConfig } from '../../../src/budget/config.js';
import { type BudgetState, createBudgetState } from './bucket.js';

/** Who to tell when a booked terminal frame is funded. */
export interface BudgetWaiter {
  bookingId: number;
  replyTo: AnyActorRef;
}

export interface BudgetMachineContext {
  config: BudgetConfig;
  budget: BudgetState;
  waiters: BudgetWaiter[];
  /** How long the current cool-off lasts from when it was (re)started. */
  coolOffMs: number;
  /** When the earliest waiting booking is funded; null when none waits. */
  nextFundingAt: number | null;
  /** The delay to `nextFundingAt`, from when it was scheduled. */
  nextFundingInMs: number;
}

export interface FrameRequestParams {
  cardId: string;
  channel: string;
  replyTo: AnyActorRef;
}

/** A required implementation: fails loudly when the machine runs without `.provide()`. */
function providedBySrc<TParams>(name: string) {
  return (_: unknown, _params: TParams): void => {
    throw new Error(
      `budgetMachine: action "${name}" is implemented in src/budget/implementations.ts; run budgetMachine.provide(createBudgetImplementations({ now }))`,
    );
  };
}

export const budgetMachine = setup({
  types: {
    context: {} as BudgetMachineContext,
    events: {} as BudgetInEvent,
    input: {} as BudgetInput,
  },
  actions: {
    answerProgress: providedBySrc<FrameRequestParams>('answerProgress'),
    refuseDuringCoolOff: providedBySrc<FrameRequestParams>('refuseDuringCoolOff'),
    bookTerminal: providedBySrc<FrameRequestParams>('bookTerminal'),
    startCoolOff: providedBySrc<{ retryAfterMs: number }>('startCoolOff'),
    fundDueBookings: providedBySrc<undefined>('fundDueBookings'),
    closeCard: providedBySrc<{ cardId: string }>('closeCard'),
  },
  guards: {
    hasWaitingBookings: ({ context }) => context.nextFundingAt !== null,
  },
  delays: {
    coolOff: ({ context }) => context.coolOffMs,
    nextFunding: ({ context }) => context.nextFundingInMs,
  },
}).createMachine({
  id: 'budget',
  type: 'parallel',
  context: ({ input }) => {
    const config = resolveBudgetConfig(input);
    return {
      config,
      budget: createBudgetState(config),
      waiters: [],
      coolOffMs: 0,
      nextFundingAt: null,
      nextFundingInMs: 0,
    };
  },
  states: {
    rate: {
      initial: 'open',
      on: {
        'budget.terminal.book': {
          actions: {
            type: 'bookTerminal',
            params: ({ event }) => ({ cardId: event.cardId, channel: event.channel, replyTo: event.replyTo }),
          },
        },
        'budget.card.closed': {
          actions: { type: 'closeCard', params: ({ event }) => ({ cardId: event.cardId }) },
        },
      },
      states: {
        open: {
          on: {
            'budget.progress.request': {
              actions: {
                type: 'answerProgress',
                params: ({ event }) => ({
                  cardId: event.cardId,
                  channel: event.channel,
                  replyTo: event.replyTo,
                }),
              },
            },
            'budget.rate-limited': {
              target: 'coolingOff',
              actions: {
                type: 'startCoolOff',
                params: ({ event }) => ({ retryAfterMs: event.retryAfterMs }),
              },
            },
          },
        },
        /** The platform answered 429: no progress frame until the cool-off is over. */
        coolingOff: {
          after: { coolOff: 'open' },
          on: {
            'budget.progress.request': {
              actions: {
                type: 'refuseDuringCoolOff',
                params: ({ event }) => ({
                  cardId: event.cardId,
                  channel: event.channel,
                  replyTo: event.replyTo,
                }),
              },
            },
            'budget.rate-limited': {
              target: 'coolingOff',
              reenter: true,
              actions: {
                type: 'startCoolOff',
                params: ({ event }) => ({ retryAfterMs: event.retryAfterMs }),
              },
            },
          },
        },
      },
    },
    funding: {
      initial: 'idle',
      states: {
        idle: {
          always: { guard: 'hasWaitingBookings', target: 'waiting' },
        },
        /** A booked terminal frame waits for its funding time. */
        waiting: {
          always: { guard: not('hasWaitingBookings'), target: 'idle' },
          after: {
            nextFunding: { target: 'waiting', reenter: true, actions: 'fundDueBookings' },
          },
          on: {
            'budget.terminal.book': { target: 'waiting', reenter: true },
            'budget.rate-limited': { target: 'waiting', reenter: true },
          },
        },
      },
    },
  },
});

export type BudgetMachine = typeof budgetMachine;
