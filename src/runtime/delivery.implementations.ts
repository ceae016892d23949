/** The delivery machine's implementations: the post through the surface, the budget's terminal slot. */
import { raise, sendTo } from 'xstate';
import { budgetSystemId } from '../../machines/budget.protocol.js';
import { deliveryMachine } from '../../machines/delivery.machine.js';
import { platformOf } from '../events/schema.js';
import type { PostRequest } from '../surfaces/surface.js';
import { postActor, rateChannel, surfaceResolver } from './posting.js';
import type { TurnImplementationDeps } from './turn.implementations.js';

export type DeliveryImplementations = Parameters<typeof deliveryMachine.provide>[0];

const channelOf = (request: PostRequest): string => rateChannel(request.space, request.thread?.threadId);

export function createDeliveryImplementations(deps: TurnImplementationDeps): DeliveryImplementations {
  const { store } = deps;
  const surfaceFor = surfaceResolver(deps.surfaces);
  const budgetOf = (request: PostRequest) => budgetSystemId(platformOf(request.space));
  const useBudget = (deps.budget ?? 'system') === 'system';
  return {
    actions: {
      bookTerminalSlot: useBudget
        ? sendTo(
            ({ system, context }) => system.get(budgetOf(context.request)),
            ({ context, self }) => ({
              type: 'budget.terminal.book' as const,
              // Unique among the live bookings of all spaces (a space's slots are reused once a delivery is done).
              cardId: `${self.id}@${context.request.space}`,
              channel: channelOf(context.request),
              replyTo: self,
            }),
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
    },
  };
}

export const provideDeliveryMachine = (deps: TurnImplementationDeps) =>
  deliveryMachine.provide(createDeliveryImplementations(deps));
