/**
 * The edit budget: one actor per platform app (systemId `budget:<platform>`,
 * see budget.protocol.ts) that every turn asks before it edits.
 *
 *   rate:     open ──budget.rate-limited──▶ coolingOff ──after coolOff──▶ open
 *             (coolingOff re-enters itself on another 429: the wait extends)
 *   serving:  idle ──a booking or a card is waiting──▶ waiting ──after nextDue──▶ waiting | idle
 *             (waiting re-enters on every booking and every 429, and when a card joining the line
 *             makes it move sooner than the timer: the timer follows the earliest booking, queued
 *             write or move of the line)
 *
 * `budget.progress.request` is answered with `budget.granted`, or with
 * `budget.refused{retryInMs, reason}` saying exactly when what stands in the
 * card's own way (its fair share, its channel, a cool-off) is over; while
 * tokens are short (a terminal frame the bucket is in debt for among them:
 * one waiting only for its own channel holds back no other channel), the
 * card waits in a line and is
 * answered (`budget.granted`, or refused for its own wait) when its turn
 * comes, so nobody polls. `budget.terminal.book` is answered with
 * `budget.funded`, at once when the frame is funded now, else when its time
 * comes; it also takes the card out of the line. `budget.queued.book` (a
 * policy card) is answered with `budget.funded` when its channel is free and
 * a token is there that no terminal frame is owed: cards never delay answers,
 * and a channel's turns take turns. `budget.advisory.request` (typing) is
 * answered at once, granted only from spare tokens. `budget.card.closed` drops
 * the card from the fair share and the line. The math is in src/budget/bucket.ts.
 *
 * Pure definition: every action, guard and delay is declared by name. The
 * actions read the clock, so they are provided by `createBudgetImplementations`
 * (src/budget/implementations.ts) through `.provide()`; this file pastes into
 * Stately Studio as it is.
 */
import { type AnyActorRef, assign, not, setup } from 'xstate';
import { type BudgetState, createBudgetState } from '../src/budget/bucket.js';
import { type BudgetConfig, type BudgetInput, resolveBudgetConfig } from '../src/budget/config.js';
import type { BudgetInEvent, BudgetWrite } from './budget.protocol.js';

/** Who to tell when a booked terminal frame is funded. */
export interface BudgetWaiter {
  bookingId: number;
  replyTo: AnyActorRef;
}

export interface BudgetMachineContext {
  config: BudgetConfig;
  budget: BudgetState;
  waiters: BudgetWaiter[];
  /** Who to tell when a queued write is funded, by its id. */
  queuedReplyTo: Record<number, AnyActorRef>;
  /** Who to answer for each card waiting in the line (updated in place: one entry per waiting card). */
  lineReplyTo: Record<string, AnyActorRef>;
  /** How long the current cool-off lasts from when it was (re)started. */
  coolOffMs: number;
  /** When the earliest booking is funded or, with none, when the line can move; null when nothing waits. */
  nextDueAt: number | null;
  /** The delay to `nextDueAt`, from when it was scheduled. */
  nextDueInMs: number;
  /**
   * The `nextDueAt` the running serving timer was set for (null: none set).
   * A card joining the line may make the line move sooner than that (a
   * booking waiting for its own channel no longer holds the line back, issue
   * 24 item 2): then the timer is set again.
   */
  scheduledDueAt: number | null;
}

export interface QueuedBookParams {
  channel: string;
  group: string;
  write?: BudgetWrite | undefined;
  replyTo: AnyActorRef;
}

export interface AdvisoryParams {
  purpose: string;
  replyTo: AnyActorRef;
}

export interface FrameRequestParams {
  cardId: string;
  channel: string;
  /** What the write is (default an edit); a kind the platform limits apart takes no edit token. */
  write?: BudgetWrite | undefined;
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
    bookQueued: providedBySrc<QueuedBookParams>('bookQueued'),
    answerAdvisory: providedBySrc<AdvisoryParams>('answerAdvisory'),
    startCoolOff: providedBySrc<{ retryAfterMs: number }>('startCoolOff'),
    serveDue: providedBySrc<undefined>('serveDue'),
    closeCard: providedBySrc<{ cardId: string }>('closeCard'),
    noteSchedule: assign({ scheduledDueAt: ({ context }) => context.nextDueAt }),
    forgetSchedule: assign({ scheduledDueAt: null }),
  },
  guards: {
    hasSomethingDue: ({ context }) => context.nextDueAt !== null,
    isDueSooner: ({ context }) =>
      context.nextDueAt !== null &&
      context.scheduledDueAt !== null &&
      context.nextDueAt < context.scheduledDueAt,
  },
  delays: {
    coolOff: ({ context }) => context.coolOffMs,
    nextDue: ({ context }) => context.nextDueInMs,
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
      queuedReplyTo: {},
      lineReplyTo: {},
      coolOffMs: 0,
      nextDueAt: null,
      nextDueInMs: 0,
      scheduledDueAt: null,
    };
  },
  states: {
    rate: {
      initial: 'open',
      on: {
        'budget.terminal.book': {
          actions: {
            type: 'bookTerminal',
            params: ({ event }) => ({
              cardId: event.cardId,
              channel: event.channel,
              write: event.write,
              replyTo: event.replyTo,
            }),
          },
        },
        'budget.queued.book': {
          actions: {
            type: 'bookQueued',
            params: ({ event }) => ({
              channel: event.channel,
              group: event.group,
              write: event.write,
              replyTo: event.replyTo,
            }),
          },
        },
        'budget.card.closed': {
          actions: { type: 'closeCard', params: ({ event }) => ({ cardId: event.cardId }) },
        },
      },
      states: {
        open: {
          on: {
            'budget.advisory.request': {
              actions: {
                type: 'answerAdvisory',
                params: ({ event }) => ({ purpose: event.purpose, replyTo: event.replyTo }),
              },
            },
            'budget.progress.request': {
              actions: {
                type: 'answerProgress',
                params: ({ event }) => ({
                  cardId: event.cardId,
                  channel: event.channel,
                  write: event.write,
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
        /** The platform answered 429: no progress frame until the cool-off is over, no advisory write. */
        coolingOff: {
          after: { coolOff: 'open' },
          on: {
            'budget.advisory.request': {
              actions: {
                type: 'answerAdvisory',
                params: ({ event }) => ({ purpose: event.purpose, replyTo: event.replyTo }),
              },
            },
            'budget.progress.request': {
              actions: {
                type: 'refuseDuringCoolOff',
                params: ({ event }) => ({
                  cardId: event.cardId,
                  channel: event.channel,
                  write: event.write,
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
    serving: {
      initial: 'idle',
      states: {
        idle: {
          entry: 'forgetSchedule',
          always: { guard: 'hasSomethingDue', target: 'waiting' },
        },
        /**
         * A booked terminal frame waits for its funding time, a queued write for its channel, or a card in the
         * line for a token. Set again when something is due sooner than the timer (a card joined the line).
         */
        waiting: {
          entry: 'noteSchedule',
          always: [
            { guard: not('hasSomethingDue'), target: 'idle' },
            { guard: 'isDueSooner', target: 'waiting', reenter: true },
          ],
          after: {
            nextDue: { target: 'waiting', reenter: true, actions: 'serveDue' },
          },
          on: {
            'budget.terminal.book': { target: 'waiting', reenter: true },
            'budget.queued.book': { target: 'waiting', reenter: true },
            'budget.rate-limited': { target: 'waiting', reenter: true },
          },
        },
      },
    },
  },
});

export type BudgetMachine = typeof budgetMachine;
