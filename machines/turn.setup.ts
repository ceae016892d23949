/**
 * The turn machine's setup: its types and every action, guard, actor and
 * delay it names, declared once so the machine (machines/turn.machine.ts)
 * and the state configs split out of it (machines/turn.quiet.ts,
 * machines/turn.flushing.ts) are typed against the same declarations.
 * Pure: implementations are provided through `.provide()`.
 */
import { or, setup } from 'xstate';
import type { ActionUser } from '../src/actions/types.js';
import type { PostedMessage } from '../src/surfaces/surface.js';
import { errorKind } from './errors.js';
import { fastAssign } from './fast-assign.js';
import { frameSenderMachine } from './frame-sender.machine.js';
import { frameText } from './turn.policies.js';
import {
  DEFAULT_TURN_TITLE,
  type EditInput,
  FIRST_POST_ATTEMPTS,
  frameKey,
  type PostedLog,
  type TurnContext,
  type TurnEvent,
  type TurnInput,
  type TurnLogItem,
  type TurnOutcome,
  type TypingInput,
} from './turn.types.js';

export const turnSetup = setup({
  types: {
    context: {} as TurnContext,
    events: {} as TurnEvent,
    input: {} as TurnInput,
  },
  actions: {
    // Turn-log operations (provided: they use the condenser).
    appendEntry: (_, _params: TurnLogItem & { following?: TurnLogItem[] }) => {},
    prepareFrame: () => {},
    applyCarry: () => {},
    keepUnsentOnly: () => {},
    markShown: () => {},
    deadLetterUnsent: (_, _params: { reason: string }) => {},
    // Budget messages (provided: they address the budget actor of the platform).
    // The write is a post while the turn has no current message, an edit once it has; a status says so.
    requestProgressToken: (_, _params?: { write: 'status' }) => {},
    bookTerminalSlot: () => {},
    reportRateLimited: (_, _params: { retryAfterMs: number }) => {},
    releaseCard: () => {},
    /** Provided: tells the frame sender in flight, if any, that the turn was restored (`frame.recover`). */
    recoverFrameSender: () => {},
    /** Remembers who asked the turn to stop (provided: it names the person as the chat may show). */
    recordStopRequest: (_, _params: { user: ActionUser }) => {},
    // Pure bookkeeping.
    recordOutcome: fastAssign((_, params: { outcome: TurnOutcome }) => ({ outcome: params.outcome })),
    recordPosted: fastAssign(({ context }, params: { message: PostedLog }) => ({
      ordinal: context.ordinal + 1,
      current: params.message,
      logMessages: [...context.logMessages, { ...params.message, final: false }],
      // The first post in a turn tells us the thread id (Discord creates the thread, Slack/GChat report it).
      anchor:
        context.anchor && !context.anchor.threadId && params.message.threadId
          ? { ...context.anchor, threadId: params.message.threadId }
          : context.anchor,
      lastSentText: frameKey(context.frame),
      failures: 0,
    })),
    dropHeader: fastAssign({ header: null }),
    useHeaderAsAnchor: fastAssign(({ context }, params: { message: PostedMessage }) => ({
      ordinal: context.ordinal + 1,
      header: null,
      anchor: {
        rootMessageId: params.message.messageId,
        ...(params.message.threadId ? { threadId: params.message.threadId } : {}),
      },
    })),
    recordEdited: fastAssign(({ context }) => ({ lastSentText: frameKey(context.frame), failures: 0 })),
    finalizeCurrent: fastAssign(({ context }) => ({
      current: null,
      lastSentText: null,
      logMessages: context.logMessages.map((m) =>
        m.messageId === context.current?.messageId ? { ...m, final: true } : m,
      ),
    })),
    recordRetryAfter: fastAssign((_, params: { retryAfterMs: number }) => ({
      retryAfterMs: params.retryAfterMs,
    })),
    recordBudgetRetry: fastAssign((_, params: { retryInMs: number }) => ({
      budgetRetryMs: params.retryInMs,
    })),
    countFailure: fastAssign(({ context }) => ({ failures: context.failures + 1 })),
    forgetFailures: fastAssign({ failures: 0 }),
    degradeToTopLevel: fastAssign(({ context }, params: { reason: string }) => ({
      anchor: null,
      degradedReason: params.reason,
      lostThread: true,
      warnings: [...context.warnings, `log degraded to top-level: ${params.reason}`],
    })),
    warn: fastAssign(({ context }, params: { message: string }) => ({
      warnings: [...context.warnings, params.message],
    })),
  },
  guards: {
    hasUnsent: ({ context }) => context.appended > context.shown,
    /** Entries arrived while the frame was in flight. */
    hasUnsentAfterFrame: ({ context }) => context.appended > (context.frame?.appended ?? context.shown),
    endRequested: ({ context }) => context.outcome !== null,
    startsDegraded: ({ context }) => context.anchor === null,
    needsHeader: ({ context }) => context.header !== null,
    /** The turn acks at start (Slack's 👀 card) and has posted nothing yet. */
    acksAtStart: ({ context }) => context.ack === true && context.ordinal === 0 && context.current === null,
    isFirstThreadPost: ({ context }) => context.anchor !== null && context.logMessages.length === 0,
    frameIsRollover: ({ context }) => context.frame?.kind === 'rollover',
    frameUnchanged: ({ context }) =>
      context.frame?.kind === 'fits' && frameKey(context.frame) === context.lastSentText,
    frameIsEmpty: ({ context }) => frameText(context) === '',
    hasCurrentMessage: ({ context }) => context.current !== null,
    canRetryEdit: ({ context }) => context.failures < 1,
    /** The first thread post failed transiently (5xx, timeout) and has attempts left. */
    canRetryFirstPost: ({ context }, params: { error: unknown }) =>
      context.anchor !== null &&
      context.logMessages.length === 0 &&
      errorKind(params.error) === 'transient' &&
      context.failures < FIRST_POST_ATTEMPTS - 1,
    /** Attempts left, and the platform may still take it: a `forbidden` answer (no access, archived, gone) will not change. */
    canRetryTerminal: ({ context }, params: { error: unknown }) =>
      context.failures < context.settings.terminalAttempts && errorKind(params.error) !== 'forbidden',
    isNotFound: (_, params: { error: unknown }) => errorKind(params.error) === 'not-found',
    /** 404 on an edit that only changed the headline (Stop): every entry was shown already. */
    isNotFoundWithNothingUnsent: ({ context }, params: { error: unknown }) =>
      errorKind(params.error) === 'not-found' && context.appended <= context.shown,
    isRateLimited: (_, params: { error: unknown }) => errorKind(params.error) === 'rate-limited',
    // Provided: they read the platform (its typing indicator, its edit window) and the clock.
    /** The platform shows a typing indicator the turn refreshes while its log is live and quiet. */
    showsTyping: () => false,
    /** The live log message will reach the platform's edit window (its age limit). */
    hasEditWindow: () => false,
    /** The live log message is about to reach the end of its edit window: roll over now. */
    editWindowClosing: () => false,
    needsTicking: or(['showsTyping', 'hasEditWindow']),
    /** Provided: the platform keeps a status for the live log (Slack) and the frame shows a tool in flight. */
    showsLiveStatus: () => false,
  },
  actors: {
    // The frame sender (machines/frame-sender.machine.ts): the write, then the status it implies.
    // Its implementations are provided (the platform's ChatSurface, the budget).
    postMessage: frameSenderMachine,
    editMessage: frameSenderMachine,
    showTyping: {} as import('xstate').PromiseActorLogic<void, TypingInput>,
    /** Re-sends the platform status the live frame implies (Slack's assistant status), without editing. */
    refreshStatus: {} as import('xstate').PromiseActorLogic<void, EditInput>,
  },
  delays: {
    editDebounce: ({ context }) => context.settings.editDebounceMs,
    editRetry: ({ context }) => context.settings.editRetryMs,
    /** Backs off: the edit retry delay, doubled after each failed first post (500 ms, 1 s by default). */
    firstPostRetry: ({ context }) => context.settings.editRetryMs * 2 ** Math.max(0, context.failures - 1),
    retryAfter: ({ context }) => context.retryAfterMs,
    budgetRetry: ({ context }) => context.budgetRetryMs,
    /** Provided: until the next typing indicator is due or the edit window closes, whichever comes first. */
    tick: () => 8000,
    /** Inside Slack's 2-minute status expiry, with room for a slow budget (docs/platforms.md). */
    statusRefresh: 90_000,
  },
});

/** A new turn's context, from its input. */
export const initialTurnContext = (input: TurnInput): TurnContext => ({
  turnId: input.turnId,
  space: input.space,
  settings: input.settings,
  anchor: input.anchor,
  log: null,
  appended: 0,
  entryCount: 0,
  shown: 0,
  frame: null,
  current: null,
  logMessages: [],
  lastSentText: null,
  ordinal: 0,
  retryAfterMs: 0,
  budgetRetryMs: 0,
  failures: 0,
  outcome: null,
  header: input.anchor === null && input.header ? input.header : null,
  degradedReason:
    input.anchor === null && !input.header ? (input.degradedReason ?? 'no thread for this turn') : null,
  deadLetters: [],
  warnings: input.warnings ?? [],
  title: input.title ?? DEFAULT_TURN_TITLE,
  ack: input.ack === true && input.anchor !== null,
  startedAt: input.startedAt ?? null,
  toolInFlight: null,
  lastToolAt: null,
  stopRequest: null,
});
