/**
 * The turn machine's implementations: the turn-log operations (the pure
 * condenser), the platform calls (a ChatSurface) and the budget messages.
 * Handed to `turnMachine.provide()`.
 */
import { assign, fromPromise, raise, sendTo } from 'xstate';
import { budgetSystemId } from '../../machines/budget.protocol.js';
import {
  type EditInput,
  type Frame,
  type PostedLog,
  type PostInput,
  type TurnContext,
  type TurnLogItem,
  type TurnOutcome,
  type TypingInput,
  turnMachine,
} from '../../machines/turn.machine.js';
import { personName } from '../actions/clicks.js';
import type { ActionUser } from '../actions/types.js';
import type { PlatformCapabilities } from '../registry/descriptor.js';
import type { PlatformRegistry } from '../registry/registry.js';
import type { TurnlogStore } from '../store/store.js';
import type { FrameAction, FrameHeadline, FrameState, SurfaceFrame } from '../surfaces/frame.js';
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
import { createStatusBooking, type StatusRequest, statusDue } from './status-booking.js';

export interface TurnImplementationDeps {
  /** One surface, or one per platform (the space's prefix picks it). */
  surfaces: ChatSurface | SurfacesByPlatform;
  /** The platforms spaces may belong to (rate channels, budgets): the registry the runtime was given. */
  platforms: PlatformRegistry;
  /** `system`: talk to the budget actor `budget:<platform>`; `unlimited`: grant every request at once (tests). */
  budget?: 'system' | 'unlimited';
  /**
   * Records post refs by client id, so a retried post on a platform without idempotent creates finds its
   * message; and a log posted with Stop in the card registry, so a click on it is understood.
   */
  store?: PostRefs & Partial<Pick<TurnlogStore, 'registerCard'>>;
  /** The clock of the headline (elapsed time, `running Bash (12s)`). Default `Date.now`. */
  now?: () => number;
}

/**
 * A typing indicator is refreshed this often while a log is live and quiet:
 * Discord shows one for 10 s
 * (https://discord.com/developers/docs/resources/channel#trigger-typing-indicator).
 */
export const TYPING_INTERVAL_MS = 8_000;

/** A headline's title is cut to this many characters. */
export const HEADLINE_TITLE_CHARS = 80;
/** A tool name in the headline's `now` is cut to this many characters. */
export const HEADLINE_TOOL_CHARS = 40;
/** The longest `now`: `running <tool cut to 40> (99999s)`, `thinking (99999s since last tool)`. */
const HEADLINE_NOW_CHARS = 'running  (99999s)'.length + HEADLINE_TOOL_CHARS;
/** The name in `stopping… (asked by <name>)` is cut to this many characters (within the `now` reserve). */
const HEADLINE_STOPPER_CHARS = HEADLINE_NOW_CHARS - 'stopping… (asked by )'.length;
/** The Stop button of a live log (`visibility.stopButton`). */
export const STOP_ACTION: FrameAction = { id: 'stop', label: 'Stop', style: 'danger' };
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
  if (context.stopRequest) {
    return {
      ...headline,
      now: `stopping… (asked by ${cut(context.stopRequest.by, HEADLINE_STOPPER_CHARS)})`,
    };
  }
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
 * After a log frame landed: the status it implies, booked with the budget
 * first (`book`, write kind `status`; src/runtime/status-booking.ts) unless
 * the caller already holds a status token (the quiet refresh). Only a status
 * the surface would send is booked: the surface skips one it already shows
 * unless Slack's two-minute expiry is near (src/platforms/slack/assistant-status.ts).
 * The status is advisory: the frame has landed, so its failure or refusal does
 * not fail the frame (a workspace without it is remembered by the surface and
 * not asked again).
 */
async function showStatus(
  surface: ChatSurface,
  space: string,
  threadId: string,
  frame: SurfaceFrame,
  signal: AbortSignal,
  book?: (req: StatusRequest, clear: boolean) => Promise<boolean>,
): Promise<void> {
  const status = statusOf(frame);
  if (surface.setStatus === undefined || status === undefined) return;
  const req = { space, threadId, status };
  if (book !== undefined) {
    if (!statusDue(surface, req)) return;
    const finished =
      frame.kind === 'log' && frame.headline !== undefined && frame.headline.state !== 'running';
    if (!(await book(req, finished && status === ''))) return;
  }
  await surface.setStatus(req, { signal }).catch(() => undefined);
}

export function createTurnImplementations(deps: TurnImplementationDeps): TurnImplementations {
  const { store } = deps;
  const platforms = deps.platforms;
  const surfaceFor = surfaceResolver(deps.surfaces, platforms);
  const budgetOf = ({ context }: { context: TurnContext }) =>
    budgetSystemId(platforms.forSpace(context.space).id);
  const channelOf = (context: TurnContext): string =>
    rateChannel(context.space, context.current?.threadId ?? context.anchor?.threadId, platforms);
  const useBudget = (deps.budget ?? 'system') === 'system';
  const bookStatus = createStatusBooking({ platforms, useBudget });
  /** The frame the budget is asked for is a post while no log message is current, else an edit of it. */
  const writeOf = (context: TurnContext): 'post' | 'edit' => (context.current === null ? 'post' : 'edit');
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
  /** The space's surface, or undefined when none serves it (its posts fail, saying why; a guard must not throw). */
  const surfaceIfAny = (space: string): ChatSurface | undefined => {
    try {
      return surfaceFor(space);
    } catch {
      return undefined;
    }
  };
  const showsTyping = (context: TurnContext): boolean =>
    typeof surfaceIfAny(context.space)?.typing === 'function';
  /** When the live log message's edit window closes (epoch ms), or null when it has none. */
  const editWindowEnd = (context: TurnContext): number | null => {
    const postedAt = context.current?.postedAt;
    const window = (surfaceIfAny(context.space)?.capabilities as PlatformCapabilities | undefined)
      ?.maxEditableAgeMs;
    if (postedAt === undefined || window === undefined || !(window > 0)) return null;
    return postedAt + window;
  };
  const editWindowClosing = (context: TurnContext, at: number): boolean => {
    const end = editWindowEnd(context);
    return end !== null && at >= end;
  };

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

  /** A log with Stop goes in the card registry; a store that fails leaves the button unknown, not the post failed. */
  async function registerLog(space: string, posted: PostedMessage, turnId: string): Promise<void> {
    try {
      await store?.registerCard?.({
        space,
        messageId: posted.messageId,
        ...(posted.threadId !== undefined ? { threadId: posted.threadId } : {}),
        turnId,
        kind: 'log',
        cardId: turnId,
        postedAt: now(),
      });
    } catch {
      // The click on it is answered "unknown"; the log itself landed.
    }
  }

  return {
    actions: {
      appendEntry: assign(({ context }, params: TurnLogItem & { following?: TurnLogItem[] }) => {
        const at = now();
        const opts = condenseOpts(context);
        let log = logOf(context);
        let { toolInFlight, lastToolAt, lastDecision } = context;
        const items = params.following ? [params, ...params.following] : [params];
        for (const { entry, tool, decision } of items) {
          log = appendEntry(log, entry, opts);
          // A call starts the tool's clock, its result starts the model's (`thinking … since last tool`).
          if (entry.messageRole === 'tool_call') {
            toolInFlight = { tool: tool ?? 'a tool', since: at };
            lastToolAt = at;
          } else if (entry.messageRole === 'tool_result') {
            toolInFlight = null;
            lastToolAt = at;
          }
          if (decision !== undefined) lastDecision = decision;
        }
        return {
          log,
          appended: context.appended + items.length,
          entryCount: context.entryCount + items.length,
          startedAt: context.startedAt ?? at,
          toolInFlight,
          lastToolAt,
          ...(lastDecision !== undefined ? { lastDecision } : {}),
        };
      }),
      prepareFrame: assign(({ context }) => {
        const result = renderTurnLog(logOf(context), condenseOpts(context));
        const at = now();
        // The message is about to leave its edit window (Discord: 30046 after an hour): this is its
        // last frame, the next message starts with what arrives from now on.
        const closing = result.kind === 'fits' && editWindowClosing(context, at);
        // With stopButton on, a frame always says its buttons: Stop while live, none once ended, stopping or rolled over.
        const live = result.kind === 'fits' && !closing && context.outcome === null && !context.stopRequest;
        const extras = {
          ...(context.settings.stopButton ? { actions: live ? [STOP_ACTION] : [] } : {}),
          ...(context.stopRequest ? { stopping: true } : {}),
        };
        const frame: Frame =
          result.kind === 'fits' && closing
            ? {
                kind: 'rollover',
                text: result.text,
                lines: result.lines,
                headline: headlineAt(context, at, false),
                carry: [],
                appended: context.appended,
                ...extras,
              }
            : result.kind === 'fits'
              ? {
                  kind: 'fits',
                  text: result.text,
                  lines: result.lines,
                  headline: headlineAt(context, at, true),
                  appended: context.appended,
                  ...extras,
                }
              : {
                  kind: 'rollover',
                  text: result.finalText,
                  lines: result.finalLines,
                  // This message is done: its last frame says what it showed, not what happens next.
                  headline: headlineAt(context, at, false),
                  carry: result.carryEntries,
                  appended: context.appended,
                  ...extras,
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
            ({ context, self }, params?: { write: 'status' }) => ({
              type: 'budget.progress.request' as const,
              cardId: context.turnId,
              channel: channelOf(context),
              // What the platform counts: a post opens a message, an edit changes the current one.
              write: params?.write ?? writeOf(context),
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
              write: writeOf(context),
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
      recordStopRequest: assign((_, params: { user: ActionUser }) => ({
        stopRequest: { by: personName(params.user) },
      })),
      releaseCard: useBudget
        ? sendTo(
            ({ system, context }) => system.get(budgetOf({ context })),
            ({ context }) => ({ type: 'budget.card.closed' as const, cardId: context.turnId }),
          )
        : () => {},
    },
    guards: {
      showsTyping: ({ context }) => showsTyping(context),
      hasEditWindow: ({ context }) => editWindowEnd(context) !== null,
      editWindowClosing: ({ context }) => editWindowClosing(context, now()),
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
    delays: {
      // The next typing indicator, or the end of the edit window if it comes first.
      tick: ({ context }) => {
        const end = editWindowEnd(context);
        const untilWindow = end === null ? Number.POSITIVE_INFINITY : Math.max(0, end - now());
        return Math.min(showsTyping(context) ? TYPING_INTERVAL_MS : Number.POSITIVE_INFINITY, untilWindow);
      },
    },
    actors: {
      postMessage: fromPromise<PostedLog, PostInput>(async ({ input: withStop, signal, system }) => {
        const { stopFor, turnId, ...input } = withStop;
        const book = (req: StatusRequest, clear: boolean) => bookStatus(turnId, req, clear, system, signal);
        const surface = surfaceFor(input.space);
        const threadId = input.thread?.threadId;
        await paceFor(
          surface,
          'post',
          { space: input.space, ...(threadId ? { threadId } : {}) },
          system._clock,
          signal,
        );
        // Before the create is sent: the platform's clock starts the edit window no earlier.
        const postedAt = now();
        const posted = await postOnce(surface, store, input, signal);
        if (stopFor !== undefined) await registerLog(input.space, posted, stopFor);
        if (input.thread !== undefined && posted.threadId !== undefined)
          await showStatus(surface, input.space, posted.threadId, input.frame, signal, book);
        return { ...posted, postedAt };
      }),
      editMessage: fromPromise<void, EditInput>(async ({ input: withTurn, signal, system }) => {
        const { turnId, ...input } = withTurn;
        const book = (req: StatusRequest, clear: boolean) => bookStatus(turnId, req, clear, system, signal);
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
          await showStatus(surface, input.space, input.threadId, input.frame, signal, book);
      }),
      // https://discord.com/developers/docs/resources/channel#trigger-typing-indicator (through ChatSurface.typing)
      showTyping: fromPromise<void, TypingInput>(async ({ input, signal, system }) => {
        const surface = surfaceFor(input.space);
        if (surface.typing === undefined) return;
        await paceFor(surface, 'typing', input, system._clock, signal);
        await surface.typing(input, { signal });
      }),
      // Its status token is booked by the machine (refreshingStatus); the surface re-sends a status only once
      // its refresh is due (src/platforms/slack/assistant-status.ts).
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
