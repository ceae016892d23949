/**
 * The delivery machine's implementations: the post (edit, reaction) through the surface, and
 * its slot from the budget: a terminal slot for an answer or a top-level
 * entry, a queued one for a card, which yields to every terminal frame and
 * takes turns with the other turns' cards in its channel (a flood of cards
 * never holds an answer back).
 */
import { fromPromise, raise, sendTo } from 'xstate';
import { deliveryMachine, type ReactRequest } from '../../machines/delivery.machine.js';
import { systemClock } from '../clock.js';
import { createBudgetClient } from './budget-client.js';
import type { PendingAnswerSink } from './pending-answers.js';
import { createWriteActors, surfaceResolver } from './posting.js';
import type { TurnImplementationDeps } from './turn.implementations.js';

export interface DeliveryImplementationDeps extends TurnImplementationDeps {
  /** Where an answer's parts are kept until posted (a delivery with a `pendingKey` forgets them). */
  pendingAnswers?: Pick<PendingAnswerSink, 'forget'>;
}

export type DeliveryImplementations = Parameters<typeof deliveryMachine.provide>[0];

export function createDeliveryImplementations(deps: DeliveryImplementationDeps): DeliveryImplementations {
  const surfaceFor = surfaceResolver(deps.surfaces, deps.platforms);
  const budget = createBudgetClient(deps);
  return {
    actions: {
      forgetParts: ({ context }, params) => {
        if (context.pendingKey === null || params.count < 1) return;
        const parts = Array.from({ length: params.count }, (_, i) => params.from + i);
        deps.pendingAnswers?.forget(context.request.space, context.pendingKey, parts);
      },
      bookTerminalSlot: budget.enabled
        ? sendTo(
            ({ system, context }) => system.get(budget.systemIdOf(context.request.space)),
            ({ context, self }) => {
              const { request } = context;
              const ask = {
                space: request.space,
                threadId: request.thread?.threadId,
                // Unique among the live bookings of all spaces (a space's slots are reused once a delivery is done).
                cardId: `${self.id}@${request.space}`,
                // A post, or the edit of a card already posted (its outcome).
                write: context.edit === null ? ('post' as const) : ('edit' as const),
              };
              if (request.frame.kind === 'card')
                return budget.queued({ ...ask, group: request.thread?.threadId ?? 'top-level' }, self);
              return budget.terminal(ask, self);
            },
          )
        : raise({ type: 'budget.funded' as const }),
      reportRateLimited: budget.enabled
        ? sendTo(
            ({ system, context }) => system.get(budget.systemIdOf(context.request.space)),
            ({ context }, params: { retryAfterMs: number }) =>
              budget.rateLimited(
                { space: context.request.space, threadId: context.request.thread?.threadId },
                params.retryAfterMs,
              ),
          )
        : () => {},
    },
    actors: {
      ...createWriteActors({ surfaceFor, refs: deps.store, clock: deps.clock ?? systemClock }),
      // The surface paces a reaction itself; the budget booked its slot before.
      reactMessage: fromPromise<void, ReactRequest>(async ({ input, signal }) => {
        await surfaceFor(input.space).react(input, { signal });
      }),
    },
  };
}

export const provideDeliveryMachine = (deps: DeliveryImplementationDeps) =>
  deliveryMachine.provide(createDeliveryImplementations(deps));
