/**
 * The delivery machine's implementations: the post (edit, reaction) through the surface, and
 * its slot from the budget: a terminal slot for an answer or a top-level
 * entry, a queued one for a card, which yields to every terminal frame and
 * takes turns with the other turns' cards in its channel (a flood of cards
 * never holds an answer back).
 */
import { fromPromise, raise, sendTo } from 'xstate';
import { budgetSystemId } from '../../machines/budget.protocol.js';
import { deliveryMachine, type ReactRequest } from '../../machines/delivery.machine.js';

import type { EditRequest, PostRequest } from '../surfaces/surface.js';
import type { PendingAnswerSink } from './pending-answers.js';
import { paceFor, postActor, rateChannel, surfaceResolver } from './posting.js';
import type { TurnImplementationDeps } from './turn.implementations.js';

export interface DeliveryImplementationDeps extends TurnImplementationDeps {
  /** Where an answer's parts are kept until posted (a delivery with a `pendingKey` forgets them). */
  pendingAnswers?: Pick<PendingAnswerSink, 'forget'>;
}

export type DeliveryImplementations = Parameters<typeof deliveryMachine.provide>[0];

export function createDeliveryImplementations(deps: DeliveryImplementationDeps): DeliveryImplementations {
  const { store } = deps;
  const platforms = deps.platforms;
  const surfaceFor = surfaceResolver(deps.surfaces, platforms);
  const budgetOf = (request: PostRequest) => budgetSystemId(platforms.forSpace(request.space).id);
  const channelOf = (request: PostRequest): string =>
    rateChannel(request.space, request.thread?.threadId, platforms);
  const useBudget = (deps.budget ?? 'system') === 'system';
  return {
    actions: {
      forgetParts: ({ context }, params) => {
        if (context.pendingKey === null || params.count < 1) return;
        const parts = Array.from({ length: params.count }, (_, i) => params.from + i);
        deps.pendingAnswers?.forget(context.request.space, context.pendingKey, parts);
      },
      bookTerminalSlot: useBudget
        ? sendTo(
            ({ system, context }) => system.get(budgetOf(context.request)),
            ({ context, self }) => {
              // Unique among the live bookings of all spaces (a space's slots are reused once a delivery is done).
              const cardId = `${self.id}@${context.request.space}`;
              const channel = channelOf(context.request);
              // A post, or the edit of a card already posted (its outcome).
              const write = context.edit === null ? ('post' as const) : ('edit' as const);
              if (context.request.frame.kind === 'card') {
                const group = context.request.thread?.threadId ?? 'top-level';
                return { type: 'budget.queued.book' as const, cardId, channel, group, write, replyTo: self };
              }
              return { type: 'budget.terminal.book' as const, cardId, channel, write, replyTo: self };
            },
          )
        : raise({ type: 'budget.funded' as const }),
      reportRateLimited: useBudget
        ? sendTo(
            ({ system, context }) => system.get(budgetOf(context.request)),
            ({ context }, params: { retryAfterMs: number }) => ({
              type: 'budget.rate-limited' as const,
              retryAfterMs: params.retryAfterMs,
              channel: channelOf(context.request),
            }),
          )
        : () => {},
    },
    actors: {
      postMessage: postActor(surfaceFor, store),
      editMessage: fromPromise<void, EditRequest>(async ({ input, signal, system }) => {
        const surface = surfaceFor(input.space);
        const { space, threadId, messageId } = input;
        await paceFor(
          surface,
          'edit',
          { space, messageId, ...(threadId ? { threadId } : {}) },
          system._clock,
          signal,
        );
        await surface.edit(input, { signal });
      }),
      // The surface paces a reaction itself; the budget booked its slot before.
      reactMessage: fromPromise<void, ReactRequest>(async ({ input, signal }) => {
        await surfaceFor(input.space).react(input, { signal });
      }),
    },
  };
}

export const provideDeliveryMachine = (deps: DeliveryImplementationDeps) =>
  deliveryMachine.provide(createDeliveryImplementations(deps));
