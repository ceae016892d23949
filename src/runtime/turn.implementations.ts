/**
 * The turn machine's implementations: the turn-log operations (the pure
 * condenser), the platform calls (a ChatSurface) and the budget messages.
 * Handed to `turnMachine.provide()`.
 */
import { assign, fromPromise, raise, sendTo } from 'xstate';
import { budgetSystemId } from '../../machines/budget.protocol.js';
import { type Frame, type TurnContext, turnMachine } from '../../machines/turn.machine.js';
import { builtinPlatforms, type PlatformRegistry } from '../platforms/registry.js';
import type { SurfaceFrame } from '../surfaces/frame.js';
import type { ChatSurface, EditRequest, PostedMessage, PostRequest } from '../surfaces/surface.js';
import {
  appendEntry,
  createTurnLog,
  messageEntryCount,
  renderTurnLog,
  startNextMessage,
  type TurnLogState,
} from '../turnlog/log.js';
import type { CondenseOpts, TurnLogEntry } from '../turnlog/types.js';
import { type PostRefs, postOnce, rateChannel, type SurfacesByPlatform, surfaceResolver } from './posting.js';

export interface TurnImplementationDeps {
  /** One surface, or one per platform (the space's prefix picks it). */
  surfaces: ChatSurface | SurfacesByPlatform;
  /** The platforms spaces may belong to (rate channels, budgets). Default: the built-ins. */
  platforms?: PlatformRegistry;
  /** `system`: talk to the budget actor `budget:<platform>`; `unlimited`: grant every request at once (tests). */
  budget?: 'system' | 'unlimited';
  /** Records post refs by client id, so a retried post on a platform without idempotent creates finds its message. */
  store?: PostRefs;
}

const condenseOpts = (context: TurnContext): CondenseOpts => ({
  maxChars: context.settings.maxChars,
  strategy: context.settings.strategy,
});

const logOf = (context: TurnContext): TurnLogState => context.log ?? createTurnLog();

/**
 * The next message starts with what the finished one did not show; its
 * `appended` count restarts from what it holds.
 */
function nextMessage(context: TurnContext, shownEntries: number) {
  const log = startNextMessage(
    logOf(context),
    condenseOpts(context),
    Math.min(shownEntries, context.appended),
  );
  return { log, appended: messageEntryCount(log), shown: 0, frame: null };
}

/** Entries of the current message not shown by any sent frame (those still listed: dropped ones are gone). */
function unshownEntries(context: TurnContext): TurnLogEntry[] {
  const rest = startNextMessage(
    logOf(context),
    condenseOpts(context),
    Math.min(context.shown, context.appended),
  );
  return [...rest.sealed.flatMap((message) => message.entries), ...rest.window];
}

export type TurnImplementations = Parameters<typeof turnMachine.provide>[0];

/** The assistant status a log frame implies: the tool in flight while it runs, '' (cleared) otherwise. */
export function statusOf(frame: SurfaceFrame): string | undefined {
  if (frame.kind !== 'log') return undefined;
  if (frame.headline !== undefined && frame.headline.state !== 'running') return '';
  // The newest tool line is the activity: a call still waiting for its result, or a result (nothing in flight).
  const newest = frame.lines.findLast((line) => line.kind === 'tool');
  return newest?.status === 'pending' ? `running ${newest.text.replace(/^tool: /, '')}` : '';
}

/**
 * Rides on a log frame that landed: the frame's budget grant is the status's
 * (a progress-class write), so a status is never written outside the budget.
 * The surface skips a status it already shows unless Slack's two-minute
 * expiry is near (src/platforms/slack/assistant-status.ts). The status is
 * advisory: the frame has landed, so its failure does not fail the frame
 * (a workspace without it is remembered by the surface and not asked again).
 */
async function showStatus(
  surface: ChatSurface,
  space: string,
  threadId: string,
  frame: SurfaceFrame,
  signal: AbortSignal,
): Promise<void> {
  const status = statusOf(frame);
  if (surface.setStatus === undefined || status === undefined) return;
  await surface.setStatus({ space, threadId, status }, { signal }).catch(() => undefined);
}

export function createTurnImplementations(deps: TurnImplementationDeps): TurnImplementations {
  const { store } = deps;
  const platforms = deps.platforms ?? builtinPlatforms;
  const surfaceFor = surfaceResolver(deps.surfaces, platforms);
  const budgetOf = ({ context }: { context: TurnContext }) =>
    budgetSystemId(platforms.forSpace(context.space).id);
  const channelOf = (context: TurnContext): string =>
    rateChannel(context.space, context.current?.threadId ?? context.anchor?.threadId, platforms);
  const useBudget = (deps.budget ?? 'system') === 'system';

  return {
    actions: {
      appendEntry: assign(({ context }, params: { entry: TurnLogEntry }) => ({
        log: appendEntry(logOf(context), params.entry, condenseOpts(context)),
        appended: context.appended + 1,
        entryCount: context.entryCount + 1,
      })),
      prepareFrame: assign(({ context }) => {
        const result = renderTurnLog(logOf(context), condenseOpts(context));
        const frame: Frame =
          result.kind === 'fits'
            ? { kind: 'fits', text: result.text, lines: result.lines, appended: context.appended }
            : {
                kind: 'rollover',
                text: result.finalText,
                lines: result.finalLines,
                carry: result.carryEntries,
                appended: context.appended,
              };
        return { frame };
      }),
      /** The sent frame's message is done: the next message starts from the carried entries and whatever arrived since. */
      /** The sent frame's message is done: the next one starts with what the frame did not show. */
      applyCarry: assign(({ context }) => {
        const frame = context.frame;
        const shown =
          frame === null
            ? context.shown
            : frame.appended - (frame.kind === 'rollover' ? frame.carry.length : 0);
        return nextMessage(context, shown);
      }),
      /** The message is gone or abandoned: the next one shows only what no one has seen yet. */
      keepUnsentOnly: assign(({ context }) => nextMessage(context, context.shown)),
      markShown: assign(({ context }) => ({ shown: context.frame?.appended ?? context.appended })),
      deadLetterUnsent: assign(({ context }, params: { reason: string }) => ({
        deadLetters: [...context.deadLetters, { reason: params.reason, entries: unshownEntries(context) }],
        shown: context.appended,
      })),
      requestProgressToken: useBudget
        ? sendTo(
            ({ system, context }) => system.get(budgetOf({ context })),
            ({ context, self }) => ({
              type: 'budget.progress.request' as const,
              cardId: context.turnId,
              channel: channelOf(context),
              replyTo: self,
            }),
          )
        : raise({ type: 'budget.granted' as const }),
      bookTerminalSlot: useBudget
        ? sendTo(
            ({ system, context }) => system.get(budgetOf({ context })),
            ({ context, self }) => ({
              type: 'budget.terminal.book' as const,
              cardId: context.turnId,
              channel: channelOf(context),
              replyTo: self,
            }),
          )
        : raise({ type: 'budget.funded' as const }),
      reportRateLimited: useBudget
        ? sendTo(
            ({ system, context }) => system.get(budgetOf({ context })),
            ({ context }, params: { retryAfterMs: number }) => ({
              type: 'budget.rate-limited' as const,
              retryAfterMs: params.retryAfterMs,
              channel: channelOf(context),
            }),
          )
        : () => {},
      releaseCard: useBudget
        ? sendTo(
            ({ system, context }) => system.get(budgetOf({ context })),
            ({ context }) => ({ type: 'budget.card.closed' as const, cardId: context.turnId }),
          )
        : () => {},
    },
    actors: {
      postMessage: fromPromise<PostedMessage, PostRequest>(async ({ input, signal }) => {
        const surface = surfaceFor(input.space);
        const posted = await postOnce(surface, store, input, signal);
        if (input.thread !== undefined && posted.threadId !== undefined)
          await showStatus(surface, input.space, posted.threadId, input.frame, signal);
        return posted;
      }),
      editMessage: fromPromise<void, EditRequest>(async ({ input, signal }) => {
        const surface = surfaceFor(input.space);
        await surface.edit(input, { signal });
        if (input.threadId !== undefined)
          await showStatus(surface, input.space, input.threadId, input.frame, signal);
      }),
    },
  };
}

/** The turn machine with its implementations, ready to spawn. */
export const provideTurnMachine = (deps: TurnImplementationDeps) =>
  turnMachine.provide(createTurnImplementations(deps));
