/**
 * The turn machine's shared pieces (machines/turn.machine.ts): the inputs of
 * its sends, the transitions every sending state has, and its error
 * policies, each written once. Pure: no I/O, only xstate-shaped objects.
 */
import type { ActionUser } from '../src/actions/types.js';
import type { SurfaceFrame } from '../src/surfaces/frame.js';
import { describeError, errorKind, retryAfterOf } from './errors.js';
import { type FramePolicy, ONE_WRITE } from './frame-sender.machine.js';
import type {
  EditInput,
  PostedLog,
  PostInput,
  TurnContext,
  TurnLogItem,
  TurnOutcome,
  TypingInput,
} from './turn.types.js';
import { clientIdFor } from './turn.types.js';

export const frameText = (context: TurnContext): string => context.frame?.text ?? '';

/**
 * A proactive turn's header post: the frame sender asks the budget for its
 * progress token itself (a refusal waits as long as the budget says), then
 * posts the header as given; any failure is the turn's to decide.
 */
export const HEADER_POST: FramePolicy = { ...ONE_WRITE, token: 'progress' };

/** The log message's frame: the headline and the condensed lines. */
export const logFrame = (context: TurnContext): SurfaceFrame => ({
  kind: 'log',
  ...(context.frame ? { headline: context.frame.headline } : {}),
  lines: context.frame?.lines ?? [],
  ...(context.frame?.actions ? { actions: context.frame.actions } : {}),
});

/** A post whose log shows Stop names its turn, so the message goes in the card registry. */
export const stopOf = (context: TurnContext): { stopFor?: string } =>
  context.frame?.actions?.some((action) => action.id === 'stop') ? { stopFor: context.turnId } : {};

export const postInput = (context: TurnContext, placement: 'log' | 'top-level'): PostInput => ({
  space: context.space,
  frame: logFrame(context),
  ...(placement === 'log' && context.anchor ? { thread: context.anchor } : {}),
  // Every log message after the first of a turn is silent where the platform can (one buzz per turn).
  silent: context.logMessages.length > 0,
  // The create's own id until it lands: a retry (5xx, 429, a restart) sends the same one.
  clientId: clientIdFor(context.turnId, context.ordinal + 1),
  ...stopOf(context),
  turnId: context.turnId,
});

export const editInput = (context: TurnContext): EditInput => ({
  space: context.space,
  messageId: context.current?.messageId ?? '',
  ...(context.current?.threadId ? { threadId: context.current.threadId } : {}),
  frame: logFrame(context),
  turnId: context.turnId,
});

/** What `appendEntry` is told: the entry, the tool a `tool_call` starts, a policy decision, and the batch's following entries. */
export const entryParams = ({ event }: { event: TurnLogItem & { following?: TurnLogItem[] } }) => ({
  entry: event.entry,
  ...(event.tool !== undefined ? { tool: event.tool } : {}),
  ...(event.decision !== undefined ? { decision: event.decision } : {}),
  ...(event.following !== undefined ? { following: event.following } : {}),
});

/** Common to every sending state: entries keep coming, the end is remembered. */
export const keepLogging = {
  'turn.log': {
    actions: {
      type: 'appendEntry' as const,
      params: entryParams,
    },
  },
};

/**
 * A create asks the budget first, like an edit (every write is budgeted): a
 * `requesting` state (a progress token) that goes to `then` when granted, and
 * its `refused` sibling waiting as long as the budget says.
 */
export const requestingToken = (then: string) => ({
  requesting: {
    entry: 'requestProgressToken' as const,
    on: {
      'budget.granted': then,
      'budget.refused': {
        target: 'refusedToken',
        actions: {
          type: 'recordBudgetRetry' as const,
          params: ({ event }: { event: { retryInMs: number } }) => ({ retryInMs: event.retryInMs }),
        },
      },
      'turn.recover': { target: 'requesting', reenter: true },
    },
  },
  /** Refused: ask again when the budget says. */
  refusedToken: {
    after: { budgetRetry: 'requesting' },
    on: { 'turn.recover': { target: 'refusedToken', reenter: true } },
  },
});

/** The end's outcome, remembered wherever `turn.end` arrives. */
export const recordOutcome = {
  type: 'recordOutcome' as const,
  params: ({ event }: { event: { outcome: TurnOutcome } }) => ({ outcome: event.outcome }),
};

/** A live log message: the next entry starts the debounce, the end sends the terminal frame. */
export const whileLive = {
  'turn.log': {
    target: '#turn.debouncing',
    actions: { type: 'appendEntry' as const, params: entryParams },
  },
  // Nothing pending, but the log must say "stopping…" and lose its button: an edit goes out.
  'turn.stopRequested': {
    target: '#turn.debouncing',
    actions: {
      type: 'recordStopRequest' as const,
      params: ({ event }: { event: { user: ActionUser } }) => ({ user: event.user }),
    },
  },
  // Even with nothing pending the headline changes (done, failed, stopped): the terminal frame goes out.
  'turn.end': {
    target: '#turn.flushing',
    actions: recordOutcome,
  },
};

/** Typing shows where the log is: its thread, or the space for a top-level log. */
export const typingInput = (context: TurnContext): TypingInput => {
  const threadId = context.current?.threadId ?? context.anchor?.threadId;
  return { space: context.space, ...(threadId ? { threadId } : {}) };
};

/*
 * The error policies of the sending states, each written once. Every send is
 * an invoke whose `onError` lists its transitions in order (the first whose
 * guard passes is taken); these build the shared ones from named guards and
 * actions, given the states they lead to.
 */

/** What an `onError` transition reads: the failed actor's error. */
export type ActorErrorArgs = { event: { error: unknown } };

export const errorParams = ({ event }: ActorErrorArgs) => ({ error: event.error });
export const retryAfterParams = ({ event }: ActorErrorArgs) => ({ retryAfterMs: retryAfterOf(event.error) });
/** A terminal frame waits the Retry-After of a 429, and the edit retry delay after any other failure. */
export const terminalRetryParams = ({ context, event }: ActorErrorArgs & { context: TurnContext }) => ({
  retryAfterMs:
    errorKind(event.error) === 'rate-limited' ? retryAfterOf(event.error) : context.settings.editRetryMs,
});

/** `warn`: `<what>: <the error>`. */
export const warnFailed = (what: string) => ({
  type: 'warn' as const,
  params: ({ event }: ActorErrorArgs) => ({ message: `${what}: ${describeError(event.error)}` }),
});

/** `degradeToTopLevel`, the reason being `<what>: <the error>`. */
export const degradeFailed = (what: string) => ({
  type: 'degradeToTopLevel' as const,
  params: ({ event }: ActorErrorArgs) => ({ reason: `${what}: ${describeError(event.error)}` }),
});

/** 429: wait the error's Retry-After in `target` (its `retryAfter` delay goes on), and tell the budget. */
export const onRateLimited = (target: string) => ({
  guard: { type: 'isRateLimited' as const, params: errorParams },
  target,
  actions: [
    { type: 'recordRetryAfter' as const, params: retryAfterParams },
    { type: 'reportRateLimited' as const, params: retryAfterParams },
  ],
});

/**
 * 404 on an edit: a person deleted the log message, or the platform will not
 * edit it any more (Discord: an archived thread it could not reopen, an
 * hour-old message); finalize it, the pending entries go out in a new one,
 * and the turn's warnings say why.
 */
export const onNotFound = (target: string) => ({
  guard: { type: 'isNotFound' as const, params: errorParams },
  target,
  actions: [
    'finalizeCurrent' as const,
    'keepUnsentOnly' as const,
    warnFailed('log message not editable, the log goes on in a new one'),
  ],
});

/** Stop editing the live log message (`what` failed): finalize it, its unsent entries wait for a new one. */
export const abandonMessage = (target: string, what: string) => ({
  target,
  actions: ['finalizeCurrent' as const, 'keepUnsentOnly' as const, warnFailed(what)],
});

/** The end came while the send was in flight: flush, with `actions`, rather than wait where the failure leads. */
export const flushIfEnded = <A>(actions: A) => ({
  guard: 'endRequested' as const,
  target: '#turn.flushing',
  actions,
});

/**
 * A terminal send (`what`: `final edit`, `final post`) failed: retry after the
 * error's Retry-After up to `terminalAttempts` times (never a `forbidden` one); then an ending turn
 * dead-letters the unsent entries, and a shutdown flush leaves them pending
 * for the next process.
 */
export const terminalFailure = (what: string) => [
  {
    guard: { type: 'canRetryTerminal' as const, params: errorParams },
    target: 'retrying',
    actions: ['countFailure' as const, { type: 'recordRetryAfter' as const, params: terminalRetryParams }],
  },
  {
    guard: 'endRequested' as const,
    target: '#turn.ended',
    actions: {
      type: 'deadLetterUnsent' as const,
      params: ({ event }: ActorErrorArgs) => ({ reason: `${what} failed: ${describeError(event.error)}` }),
    },
  },
  { target: 'settled' },
];

/** What a landed post's transition reads: the frame sender's output. */
type PostDoneArgs = { event: { output: PostedLog } };
const recordPosted = {
  type: 'recordPosted' as const,
  params: ({ event }: PostDoneArgs) => ({ message: event.output }),
};

/**
 * A log post landed (the frame sender's `onDone`): it is the live log
 * message now; then, in order, a rollover frame finalizes it and opens the
 * next, an end received meanwhile flushes (`ended`), entries that arrived
 * meanwhile wait for the next edit (`unsent`), else the log is live.
 */
export const postLanded = (to: { rollover: string; ended?: string; unsent: string; live: string }) => [
  {
    guard: 'frameIsRollover' as const,
    target: to.rollover,
    actions: [recordPosted, 'finalizeCurrent' as const, 'applyCarry' as const],
  },
  ...(to.ended === undefined
    ? []
    : [{ guard: 'endRequested' as const, target: to.ended, actions: [recordPosted, 'markShown' as const] }]),
  { guard: 'hasUnsentAfterFrame' as const, target: to.unsent, actions: [recordPosted, 'markShown' as const] },
  { target: to.live, actions: [recordPosted, 'markShown' as const] },
];
