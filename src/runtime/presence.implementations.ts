/**
 * The presence machine's implementations (machines/presence.machine.ts): its
 * advisory budget asks (to the space's platform budget, `purpose` and the
 * platform method named so a per-method budget can count them), the
 * reactions through the surface's declared `reactions` ability, and the
 * typing indicator through the paced calls.
 */
import { fromPromise, raise, sendTo } from 'xstate';
import { errorKind } from '../../machines/errors.js';
import { presenceMachine, type ReactionJob } from '../../machines/presence.machine.js';
import { systemClock } from '../clock.js';
import { SurfaceError } from '../surfaces/surface.js';
import { createBudgetClient } from './budget-client.js';
import { createPacedCalls, surfaceResolver } from './posting.js';
import type { TurnImplementationDeps } from './turn.implementations.js';

export interface PresenceImplementationDeps extends TurnImplementationDeps {
  /** A root the app could not react to: a warning, never a failure. */
  onWarning?: (space: string, message: string) => void;
}

export type PresenceImplementations = Parameters<typeof presenceMachine.provide>[0];

export function createPresenceImplementations(deps: PresenceImplementationDeps): PresenceImplementations {
  const surfaceFor = surfaceResolver(deps.surfaces, deps.platforms);
  const budget = createBudgetClient(deps);
  const calls = createPacedCalls({ surfaceFor, refs: deps.store, clock: deps.clock ?? systemClock });
  return {
    actions: {
      requestAdvisory: budget.enabled
        ? sendTo(
            ({ system, context }) => system.get(budget.systemIdOf(context.space)),
            ({ context, self }, params: { purpose: 'reaction' | 'typing'; method?: string }) => ({
              type: 'budget.advisory.request' as const,
              purpose: params.purpose,
              replyTo: self,
              channel: budget.channelOf({ space: context.space }),
              ...(params.method !== undefined ? { method: params.method } : {}),
            }),
          )
        : raise((_, params: { purpose: 'reaction' | 'typing' }) => ({
            type: 'budget.advisory.answer' as const,
            purpose: params.purpose,
            granted: true,
          })),
      reportRateLimited: budget.enabled
        ? sendTo(
            ({ system, context }) => system.get(budget.systemIdOf(context.space)),
            ({ context }, params: { error: unknown }) =>
              budget.rateLimited(
                { space: context.space },
                (params.error as { retryAfterMs?: number } | null)?.retryAfterMs ?? 1000,
              ),
          )
        : () => {},
      warn: ({ context }, params: { message: string }) =>
        deps.onWarning?.(context.space, `turn ${context.turnId}: ${params.message}`),
    },
    guards: {
      isRateLimited: (_, params: { error: unknown }) => errorKind(params.error) === 'rate-limited',
    },
    actors: {
      react: fromPromise<void, { space: string; job: ReactionJob }>(async ({ input, signal }) => {
        const reactions = surfaceFor(input.space).reactions;
        if (reactions === undefined) throw new SurfaceError('invalid', 'this platform has no reactions');
        const { job } = input;
        const req = {
          space: input.space,
          messageId: job.root.messageId,
          emoji: job.emoji,
          ...(job.root.threadId !== undefined ? { threadId: job.root.threadId } : {}),
        };
        await (job.kind === 'add' ? reactions.add(req, { signal }) : reactions.remove(req, { signal }));
      }),
      showTyping: fromPromise<void, { space: string }>(({ input, signal }) =>
        calls.typing({ space: input.space }, signal),
      ),
    },
  };
}

export const providePresenceMachine = (deps: PresenceImplementationDeps) =>
  presenceMachine.provide(createPresenceImplementations(deps));
