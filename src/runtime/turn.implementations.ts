/**
 * The turn machine's implementations: the turn-log operations (the pure
 * condenser), the platform calls (a ChatSurface) and the budget messages.
 * Handed to `turnMachine.provide()`.
 */
import { fromPromise, raise, sendTo } from 'xstate';
import { fastAssign } from '../../machines/fast-assign.js';
import {
  type EditInput,
  type Frame,
  type TurnContext,
  type TurnLogItem,
  turnMachine,
} from '../../machines/turn.machine.js';
import { personName } from '../actions/clicks.js';
import type { ActionUser } from '../actions/types.js';
import { type Clock, systemClock } from '../clock.js';
import type { PlatformCapabilities } from '../registry/descriptor.js';
import type { PlatformRegistry } from '../registry/registry.js';
import type { TurnlogStore } from '../store/store.js';
import type { ChatSurface, PostedMessage } from '../surfaces/surface.js';
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
import { createBudgetClient } from './budget-client.js';
import { provideFrameSender, setStatus } from './frame-sender.implementations.js';
import { createWriteActors, type PostRefs, type SurfacesByPlatform, surfaceResolver } from './posting.js';
import type { RunLinkDeps } from './run-link.js';
import { condenseBudget, headlineAt, STOP_ACTION, statusOf } from './turn-headline.js';

export {
  condenseBudget,
  endedState,
  HEADLINE_TITLE_CHARS,
  HEADLINE_TOOL_CHARS,
  headlineAt,
  headlineReserve,
  STOP_ACTION,
  statusOf,
} from './turn-headline.js';

export interface TurnImplementationDeps extends RunLinkDeps {
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
  /** The clock of the headline (elapsed time, `running Bash (12s)`). Default: `clock`'s. */
  now?: () => number;
  /** The runtime's clock, which pacing and a status clear wait on. Default: the system clock. */
  clock?: Clock;
}

/**
 * A typing indicator is refreshed this often while a log is live and quiet:
 * Discord shows one for 10 s
 * (https://discord.com/developers/docs/resources/channel#trigger-typing-indicator).
 */
export const TYPING_INTERVAL_MS = 8_000;

export type TurnImplementations = Parameters<typeof turnMachine.provide>[0];

export function createTurnImplementations(deps: TurnImplementationDeps): TurnImplementations {
  const { store } = deps;
  const clock = deps.clock ?? systemClock;
  const surfaceFor = surfaceResolver(deps.surfaces, deps.platforms);
  const budget = createBudgetClient(deps);
  /** The budget scope of the live log: its thread, or the space. */
  const scopeOf = (context: TurnContext) => ({
    space: context.space,
    threadId: context.current?.threadId ?? context.anchor?.threadId,
  });
  /** The frame the budget is asked for is a post while no log message is current, else an edit of it. */
  const writeOf = (context: TurnContext): 'post' | 'edit' => (context.current === null ? 'post' : 'edit');
  const now = deps.now ?? (() => clock.now());
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

  const writes = createWriteActors({ surfaceFor, refs: store, clock });
  const runLink = deps.runLink; // issue 25: the run page link on the log's frames
  const frameSender = provideFrameSender({
    surfaceFor,
    refs: store,
    clock,
    budget,
    now,
    registerLog,
    runLink,
  });

  return {
    actions: {
      appendEntry: fastAssign(({ context }, params: TurnLogItem & { following?: TurnLogItem[] }) => {
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
      prepareFrame: fastAssign(({ context }) => {
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
      applyCarry: fastAssign(({ context }) => {
        const frame = context.frame;
        const shown =
          frame === null
            ? entriesAt(context, context.shown)
            : entriesAt(context, frame.appended) - (frame.kind === 'rollover' ? frame.carry.length : 0);
        return nextMessage(context, Math.max(0, shown));
      }),
      /** The message is gone or abandoned: the next one shows only what no one has seen yet. */
      keepUnsentOnly: fastAssign(({ context }) => nextMessage(context, entriesAt(context, context.shown))),
      markShown: fastAssign(({ context }) => ({ shown: context.frame?.appended ?? context.appended })),
      deadLetterUnsent: fastAssign(({ context }, params: { reason: string }) => ({
        deadLetters: [...context.deadLetters, { reason: params.reason, entries: unshownEntries(context) }],
        shown: context.appended,
      })),
      requestProgressToken: budget.enabled
        ? sendTo(
            ({ system, context }) => system.get(budget.systemIdOf(context.space)),
            ({ context, self }, params?: { write: 'status' }) =>
              // What the platform counts: a post opens a message, an edit changes the current one.
              budget.progress(
                { ...scopeOf(context), cardId: context.turnId, write: params?.write ?? writeOf(context) },
                self,
              ),
          )
        : raise({ type: 'budget.granted' as const }),
      bookTerminalSlot: budget.enabled
        ? sendTo(
            ({ system, context }) => system.get(budget.systemIdOf(context.space)),
            ({ context, self }) =>
              budget.terminal({ ...scopeOf(context), cardId: context.turnId, write: writeOf(context) }, self),
          )
        : raise({ type: 'budget.funded' as const }),
      reportRateLimited: budget.enabled
        ? sendTo(
            ({ system, context }) => system.get(budget.systemIdOf(context.space)),
            ({ context }, params: { retryAfterMs: number }) =>
              budget.rateLimited(scopeOf(context), params.retryAfterMs),
          )
        : () => {},
      // The frame sender in flight, if any (other children ignore the event).
      recoverFrameSender: ({ self }) => {
        for (const child of Object.values(self.getSnapshot().children)) {
          child?.send({ type: 'frame.recover' });
        }
      },
      recordStopRequest: fastAssign((_, params: { user: ActionUser }) => ({
        stopRequest: { by: personName(params.user) },
      })),
      releaseCard: budget.enabled
        ? sendTo(
            ({ system, context }) => system.get(budget.systemIdOf(context.space)),
            ({ context }) => budget.cardClosed(context.turnId),
          )
        : () => {},
    },
    guards: {
      showsTyping: ({ context }) => showsTyping(context),
      hasEditWindow: ({ context }) => editWindowEnd(context) !== null,
      editWindowClosing: ({ context }) => editWindowClosing(context, now()),
      // Only a surface that keeps a status (Slack), for a threaded log with a tool in flight, spends a token on it.
      showsLiveStatus: ({ context }) => {
        const status = surfaceIfAny(context.space)?.assistantStatus;
        return (
          status !== undefined &&
          status.unsupported === undefined &&
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
      postMessage: frameSender,
      editMessage: frameSender,
      showTyping: writes.showTyping,
      // Its status token is booked by the machine (refreshingStatus); the surface re-sends a status only once
      // its refresh is due (src/platforms/slack/assistant-status.ts).
      refreshStatus: fromPromise<void, EditInput>(async ({ input, signal }) => {
        const status = statusOf(input.frame);
        if (input.threadId === undefined || status === undefined) return;
        const target = { space: input.space, threadId: input.threadId, status, clear: false };
        await setStatus(surfaceIfAny(input.space), target, signal);
      }),
    },
  };
}

/** The turn machine with its implementations, ready to spawn. */
export const provideTurnMachine = (deps: TurnImplementationDeps) =>
  turnMachine.provide(createTurnImplementations(deps));
