/**
 * The turn machine's implementations: the turn-log operations (the pure
 * condenser), the platform calls (a ChatSurface) and the budget messages.
 * Handed to `turnMachine.provide()`.
 */
import { assign, fromPromise, raise, sendTo } from 'xstate';
import { budgetSystemId } from '../../machines/budget.protocol.js';
import { type Frame, type TurnContext, type TurnOutcome, turnMachine } from '../../machines/turn.machine.js';
import { builtinPlatforms, type PlatformRegistry } from '../platforms/registry.js';
import type { FrameHeadline, FrameState, SurfaceFrame } from '../surfaces/frame.js';
import type { ChatSurface, EditRequest, PostedMessage, PostRequest } from '../surfaces/surface.js';
import { MIN_LOG_MESSAGE_CHARS } from '../turnlog/condense.js';
import { PENDING_MARK } from '../turnlog/format.js';
import {
  appendEntry,
  createTurnLog,
  entriesAtRevision,
  messageEntryCount,
  renderTurnLog,
  startNextMessage,
  type TurnLogState,
} from '../turnlog/log.js';
import type { CondenseOpts, TurnLogEntry } from '../turnlog/types.js';
import {
  type PostRefs,
  paceFor,
  postOnce,
  rateChannel,
  type SurfacesByPlatform,
  surfaceResolver,
} from './posting.js';

export interface TurnImplementationDeps {
  /** One surface, or one per platform (the space's prefix picks it). */
  surfaces: ChatSurface | SurfacesByPlatform;
  /** The platforms spaces may belong to (rate channels, budgets). Default: the built-ins. */
  platforms?: PlatformRegistry;
  /** `system`: talk to the budget actor `budget:<platform>`; `unlimited`: grant every request at once (tests). */
  budget?: 'system' | 'unlimited';
  /** Records post refs by client id, so a retried post on a platform without idempotent creates finds its message. */
  store?: PostRefs;
  /** The clock of the headline (elapsed time, `running Bash (12s)`). Default `Date.now`. */
  now?: () => number;
}

/** A headline's title is cut to this many characters. */
export const HEADLINE_TITLE_CHARS = 80;
/** A tool name in the headline's `now` is cut to this many characters. */
export const HEADLINE_TOOL_CHARS = 40;
/** The longest `now`: `running <tool cut to 40> (99999s)`, `thinking (99999s since last tool)`. */
const HEADLINE_NOW_CHARS = 'running  (99999s)'.length + HEADLINE_TOOL_CHARS;
/** The longest clock (`99h 59m`). */
const HEADLINE_CLOCK_CHARS = 8;

/**
 * Characters kept free for the headline line of a turn titled `title`: the
 * icon, the (cut) title, the clock and the longest `now`, joined by ` · `,
 * and its newline. Fixed for the turn, so the condenser's budget is too.
 */
export function headlineReserve(title: string): number {
  const titleChars = Math.min(title.length, HEADLINE_TITLE_CHARS);
  return 2 + titleChars + 3 + HEADLINE_CLOCK_CHARS + 3 + HEADLINE_NOW_CHARS + 1;
}

/**
 * The condenser's budget for a turn's log lines: the configured `maxChars`
 * or the platform's limit, whichever is smaller, less the headline's room, so
 * a whole log message stays within both (never under the condenser's minimum).
 */
export function condenseBudget(settingsMaxChars: number, platformMaxChars: number, title: string): number {
  return Math.max(
    MIN_LOG_MESSAGE_CHARS,
    Math.min(settingsMaxChars, platformMaxChars) - headlineReserve(title),
  );
}

const cut = (text: string, max: number): string => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

const HEADLINE_STATE: Record<TurnOutcome, FrameState> = { ok: 'done', error: 'failed', stopped: 'stopped' };

/**
 * The state an ended turn shows: ⛔ `blocked` when it failed or stopped
 * after its last policy request was rejected (the agent was not let through),
 * ⚠️ `degraded` when it ended well but its log lost its thread on the way (a
 * turn that never had one — threads off, a DM without — is not degraded),
 * else from its outcome (✅ ❌ ⏹).
 */
export function endedState(
  context: Pick<TurnContext, 'outcome' | 'lostThread' | 'lastDecision'>,
): FrameState {
  const outcome = context.outcome ?? 'ok';
  if (outcome !== 'ok' && context.lastDecision === 'rejected') return 'blocked';
  if (outcome === 'ok' && context.lostThread === true) return 'degraded';
  return HEADLINE_STATE[outcome];
}

/**
 * The headline at `now`: the state (from the outcome once the end came), the
 * elapsed clock, and what is happening — the tool in flight, else how long
 * the model has been thinking since the last tool (absent once ended, and on
 * a message finalized by a rollover).
 */
export function headlineAt(context: TurnContext, now: number, live: boolean): FrameHeadline {
  const startedAt = context.startedAt ?? now;
  const headline: FrameHeadline = {
    state: context.outcome === null ? 'running' : endedState(context),
    title: cut(context.title, HEADLINE_TITLE_CHARS),
    elapsedMs: Math.max(0, now - startedAt),
  };
  if (!live || context.outcome !== null) return headline;
  const seconds = (since: number) => Math.max(0, Math.floor((now - since) / 1000));
  const busy = context.toolInFlight;
  if (busy)
    return { ...headline, now: `running ${cut(busy.tool, HEADLINE_TOOL_CHARS)} (${seconds(busy.since)}s)` };
  if (context.lastToolAt !== null)
    return { ...headline, now: `thinking (${seconds(context.lastToolAt)}s since last tool)` };
  return { ...headline, now: `thinking (${seconds(startedAt)}s)` };
}

export type TurnImplementations = Parameters<typeof turnMachine.provide>[0];

/** The assistant status a log frame implies: the tool in flight while it runs, '' (cleared) otherwise. */
/** What a pending call's line starts with before its target (the formatter's mark, or the older `tool: `). */
const PENDING_PREFIX = new RegExp(`^(?:${PENDING_MARK}|tool: )`);

export function statusOf(frame: SurfaceFrame): string | undefined {
  if (frame.kind !== 'log') return undefined;
  if (frame.headline !== undefined && frame.headline.state !== 'running') return '';
  // The newest tool line is the activity: a call still waiting for its result, or a result (nothing in flight).
  const newest = frame.lines.findLast((line) => line.kind === 'tool');
  return newest?.status === 'pending' ? `running ${newest.text.replace(PENDING_PREFIX, '')}` : '';
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
  const now = deps.now ?? Date.now;
  const condenseOpts = (context: TurnContext): CondenseOpts => ({
    maxChars: condenseBudget(
      context.settings.maxChars,
      surfaceFor(context.space).capabilities.maxChars,
      context.title,
    ),
    strategy: context.settings.strategy,
  });
  const logOf = (context: TurnContext): TurnLogState => context.log ?? createTurnLog();

  /**
   * The next message starts with what the finished one did not show; its
   * `appended` count restarts from what it holds.
   */
  /**
   * `appended`, `shown` and a frame's `appended` count the current message's
   * revisions (an entry appended, or a tool call completed in place by its
   * result, so a completion alone is something new to send); this is how
   * many entries the first `revisions` of them covered.
   */
  function entriesAt(context: TurnContext, revisions: number): number {
    return entriesAtRevision(logOf(context), Math.min(revisions, context.appended));
  }

  function nextMessage(context: TurnContext, shownEntries: number) {
    const log = startNextMessage(logOf(context), condenseOpts(context), shownEntries);
    return { log, appended: messageEntryCount(log), shown: 0, frame: null };
  }

  /** Entries of the current message not shown by any sent frame (those still listed: dropped ones are gone). */
  function unshownEntries(context: TurnContext): TurnLogEntry[] {
    const rest = startNextMessage(logOf(context), condenseOpts(context), entriesAt(context, context.shown));
    return [...rest.sealed.flatMap((message) => message.entries), ...rest.window];
  }

  return {
    actions: {
      appendEntry: assign(
        ({ context }, params: { entry: TurnLogEntry; tool?: string; decision?: 'approved' | 'rejected' }) => {
          const at = now();
          const role = params.entry.messageRole;
          return {
            log: appendEntry(logOf(context), params.entry, condenseOpts(context)),
            appended: context.appended + 1,
            entryCount: context.entryCount + 1,
            startedAt: context.startedAt ?? at,
            // A call starts the tool's clock, its result starts the model's (`thinking … since last tool`).
            ...(role === 'tool_call'
              ? { toolInFlight: { tool: params.tool ?? 'a tool', since: at }, lastToolAt: at }
              : role === 'tool_result'
                ? { toolInFlight: null, lastToolAt: at }
                : {}),
            ...(params.decision === undefined ? {} : { lastDecision: params.decision }),
          };
        },
      ),
      prepareFrame: assign(({ context }) => {
        const result = renderTurnLog(logOf(context), condenseOpts(context));
        const at = now();
        const frame: Frame =
          result.kind === 'fits'
            ? {
                kind: 'fits',
                text: result.text,
                lines: result.lines,
                headline: headlineAt(context, at, true),
                appended: context.appended,
              }
            : {
                kind: 'rollover',
                text: result.finalText,
                lines: result.finalLines,
                // This message is done: its last frame says what it showed, not what happens next.
                headline: headlineAt(context, at, false),
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
            ? entriesAt(context, context.shown)
            : entriesAt(context, frame.appended) - (frame.kind === 'rollover' ? frame.carry.length : 0);
        return nextMessage(context, Math.max(0, shown));
      }),
      /** The message is gone or abandoned: the next one shows only what no one has seen yet. */
      keepUnsentOnly: assign(({ context }) => nextMessage(context, entriesAt(context, context.shown))),
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
    guards: {
      // Only a surface that keeps a status (Slack), for a threaded log with a tool in flight, spends a token on it.
      showsLiveStatus: ({ context }) => {
        const surface = surfaceFor(context.space);
        return (
          surface.setStatus !== undefined &&
          (surface as { statusUnsupported?: string }).statusUnsupported === undefined &&
          context.current?.threadId !== undefined &&
          context.toolInFlight !== null
        );
      },
    },
    actors: {
      postMessage: fromPromise<PostedMessage, PostRequest>(async ({ input, signal, system }) => {
        const surface = surfaceFor(input.space);
        const threadId = input.thread?.threadId;
        await paceFor(
          surface,
          'post',
          { space: input.space, ...(threadId ? { threadId } : {}) },
          system._clock,
          signal,
        );
        const posted = await postOnce(surface, store, input, signal);
        if (input.thread !== undefined && posted.threadId !== undefined)
          await showStatus(surface, input.space, posted.threadId, input.frame, signal);
        return posted;
      }),
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
        if (input.threadId !== undefined)
          await showStatus(surface, input.space, input.threadId, input.frame, signal);
      }),
      // The surface re-sends a status only once its refresh is due (src/platforms/slack/assistant-status.ts).
      refreshStatus: fromPromise<void, EditRequest>(async ({ input, signal }) => {
        if (input.threadId === undefined) return;
        await showStatus(surfaceFor(input.space), input.space, input.threadId, input.frame, signal);
      }),
    },
  };
}

/** The turn machine with its implementations, ready to spawn. */
export const provideTurnMachine = (deps: TurnImplementationDeps) =>
  turnMachine.provide(createTurnImplementations(deps));
