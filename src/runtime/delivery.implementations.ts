/** The delivery machine's implementations: the post through the surface, the budget's terminal slot. */
import { raise, sendTo } from 'xstate';
import { budgetSystemId } from '../../machines/budget.protocol.js';
import { deliveryMachine } from '../../machines/delivery.machine.js';
import type { PostRequest } from '../surfaces/surface.js';
import { postActor } from './posting.js';
import type { TurnImplementationDeps } from './turn.implementations.js';

export type DeliveryImplementations = Parameters<typeof deliveryMachine.provide>[0];

const channelOf = (request: PostRequest): string =>
  `${request.space}#${request.thread?.threadId ?? request.thread?.rootMessageId ?? ''}`;

export function createDeliveryImplementations(deps: TurnImplementationDeps): DeliveryImplementations {
  const { surface, store } = deps;
  const budgetId = budgetSystemId(surface.platform);
  const useBudget = (deps.budget ?? 'system') === 'system';
  return {
    actions: {
      bookTerminalSlot: useBudget
        ? sendTo(
            ({ system }) => system.get(budgetId),
            ({ context, self }) => ({
              type: 'budget.terminal.book' as const,
              cardId: `delivery:${self.id}`,
              channel: channelOf(context.request),
              replyTo: self,
            }),
          )
        : raise({ type: 'budget.funded' as const }),
      reportRateLimited: useBudget
        ? sendTo(
            ({ system }) => system.get(budgetId),
            ({ context }, params: { retryAfterMs: number }) => ({
              type: 'budget.rate-limited' as const,
              retryAfterMs: params.retryAfterMs,
              channel: channelOf(context.request),
            }),
          )
        : () => {},
    },
    actors: {
      postMessage: postActor(surface, store),
    },
  };
}

export const provideDeliveryMachine = (deps: TurnImplementationDeps) =>
  deliveryMachine.provide(createDeliveryImplementations(deps));
