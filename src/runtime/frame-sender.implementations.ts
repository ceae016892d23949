/**
 * The frame sender's implementations (machines/frame-sender.machine.ts): the
 * frame's token (a progress token, or a terminal slot) and a 429 told to the
 * budget, the write through the one factory of post/edit actors (src/runtime/posting.ts),
 * the status its frame implies (Slack's assistant status, a declared ability
 * of the surface) and that status's token from the budget (write kind
 * `status`, which Slack limits per method, apart from `chat.update`:
 * src/platforms/slack/descriptor.ts, `budget.separateWrites`).
 *
 * Only a status the surface would really send is booked
 * (`assistantStatus.due`): an unchanged one costs nothing. A status of no
 * known turn is skipped, never sent outside the budget.
 */
import { assign, fromPromise, raise, sendTo } from 'xstate';
import {
  type FrameRequest,
  frameSenderMachine,
  type StatusTarget,
} from '../../machines/frame-sender.machine.js';
import type { ChatSurface, PostedMessage, PostRequest, StatusRequest } from '../surfaces/surface.js';
import type { BudgetClient, BudgetScope } from './budget-client.js';
import { createWriteActors, type SurfaceFor, type WriteDeps } from './posting.js';
import { type RunLinkDeps, withRunLink } from './run-link.js';
import { statusOf } from './turn-headline.js';

export interface FrameSenderDeps extends WriteDeps {
  surfaceFor: SurfaceFor;
  budget: BudgetClient;
  /** Stamps a post just before it is sent (the turn's edit window starts no earlier). */
  now: () => number;
  /** A post whose log shows Stop goes in the card registry (a failure there leaves the post landed). */
  registerLog?: (space: string, posted: PostedMessage, turnId: string) => Promise<void>;
  /** Issue 25: the turn's run page URL, on every frame of its log as "Full log". */
  runLink?: RunLinkDeps['runLink'];
}

/** The status the surface would send for a landed frame in `threadId`, or null (none, unchanged, no status here). */
export function statusTargetOf(
  surface: ChatSurface | undefined,
  space: string,
  threadId: string | undefined,
  frame: FrameRequest['frame'],
): StatusTarget | null {
  const ability = surface?.assistantStatus;
  const status = statusOf(frame);
  if (ability === undefined || status === undefined || threadId === undefined) return null;
  const req: StatusRequest = { space, threadId, status };
  if (!ability.due(req)) return null;
  const finished = frame.kind === 'log' && frame.headline !== undefined && frame.headline.state !== 'running';
  return { ...req, clear: finished && status === '' };
}

/** Sends a status (advisory: a failure is remembered by the surface, never the frame's). */
export async function setStatus(
  surface: ChatSurface | undefined,
  target: StatusTarget | null,
  signal: AbortSignal,
): Promise<void> {
  if (target === null || surface?.assistantStatus === undefined) return;
  const { space, threadId, status } = target;
  await surface.assistantStatus.set({ space, threadId, status }, { signal }).catch(() => undefined);
}

/** The frame sender (posts and edits alike), with its implementations. */
export function provideFrameSender(deps: FrameSenderDeps) {
  const { budget } = deps;
  const writes = createWriteActors<FrameRequest & PostRequest>(deps, {
    stamp: deps.now,
    prepare: (input) => withRunLink(input, input.turnId, deps.runLink),
    async afterPost(input, posted) {
      if (input.stopFor !== undefined) await deps.registerLog?.(input.space, posted, input.stopFor);
    },
  });
  const surfaceIfAny = (space: string): ChatSurface | undefined => {
    try {
      return deps.surfaceFor(space);
    } catch {
      return undefined;
    }
  };
  /** Where the frame goes, as the budget counts it: its thread (an edit's, or the post's anchor), or the space. */
  const scopeOf = (request: FrameRequest): BudgetScope => ({
    space: request.space,
    threadId: request.threadId ?? request.thread?.threadId,
  });
  return frameSenderMachine.provide({
    actions: {
      // The frame's own token: a post opens a message, an edit changes it; the terminal frame books a slot.
      requestToken: budget.enabled
        ? sendTo(
            ({ system, context }) => system.get(budget.systemIdOf(context.request.space)),
            ({ context, self }) => {
              const { request } = context;
              const ask = {
                ...scopeOf(request),
                cardId: request.turnId ?? '',
                write: request.messageId !== undefined ? ('edit' as const) : ('post' as const),
              };
              return context.policy.token === 'terminal'
                ? budget.terminal(ask, self)
                : budget.progress(ask, self);
            },
          )
        : raise(({ context }) =>
            context.policy.token === 'terminal'
              ? { type: 'budget.funded' as const }
              : { type: 'budget.granted' as const },
          ),
      reportRateLimited: budget.enabled
        ? sendTo(
            ({ system, context }) => system.get(budget.systemIdOf(context.request.space)),
            ({ context }, params: { retryAfterMs: number }) =>
              budget.rateLimited(scopeOf(context.request), params.retryAfterMs),
          )
        : () => {},
      pickStatus: assign(({ context }) => {
        const { request, sent } = context;
        // A status is booked for the turn's card: a frame of no known turn shows none.
        if (budget.enabled && request.turnId === undefined) return { status: null };
        // An edit shows it in its message's thread; a post in the thread it landed in (a top-level post: none).
        const threadId =
          request.messageId !== undefined ? request.threadId : request.thread ? sent?.threadId : undefined;
        return {
          status: statusTargetOf(surfaceIfAny(request.space), request.space, threadId, request.frame),
        };
      }),
      requestStatusToken: budget.enabled
        ? sendTo(
            ({ system, context }) => system.get(budget.systemIdOf(context.request.space)),
            ({ context, self }) =>
              // The turn's own card: its kind never waits in the line, and takes no edit token.
              budget.progress(
                {
                  space: context.request.space,
                  threadId: context.status?.threadId,
                  cardId: context.request.turnId ?? '',
                  write: 'status',
                },
                self,
              ),
          )
        : raise({ type: 'budget.granted' as const }),
    },
    actors: {
      write: writes.writeFrame,
      setStatus: fromPromise<void, StatusTarget | null>(({ input, signal }) =>
        setStatus(input === null ? undefined : surfaceIfAny(input.space), input, signal),
      ),
    },
  });
}
