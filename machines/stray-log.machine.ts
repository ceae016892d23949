/**
 * The stray log: one per space. Top-level traffic that is not an answer or a
 * card (notes and warnings of unknown or crashed turns, top-level log entries)
 * is coalesced here into ONE edited message per space per minute, instead of
 * one notifying message each (docs/test-plan.md, issue 9 item 7).
 *
 * The first stray of a window posts a log message; later strays in the same
 * window (the named delay `strayWindow`, 60 s) are appended and the message is
 * edited. One write is in flight at a time; strays arriving meanwhile go out in
 * the next edit. Writes ask the budget for a progress token (never a terminal
 * slot), so answers and cards, which book terminal slots, never wait behind
 * them. Lines past the platform's size limit continue in a new message (the
 * write posts it; only the window's first message notifies).
 *
 * A message a person deleted is replaced: the 404 of its edit (every
 * platform's not-found: Google Chat 404, Slack `message_not_found`, Discord
 * 10008) posts a fresh message carrying all of its lines, which notifies once.
 *
 * Shutdown: `strays.flush` (a graceful stop with flush) sends what waits
 * for the budget or for a retry at once, through a terminal slot as a turn's
 * last frame goes; a write in flight is waited for (the runtime asks again).
 *
 * Restarts: the runtime persists the log's snapshot (docs/architecture.md,
 * "Stray log") and restores it; XState does not restore timers, so every
 * waiting state re-enters itself on `strays.recover`, and the window re-opens
 * for what is left of its minute (`openedAt`, the `now` of the recover event):
 * the space keeps coalescing into the same message. Time comes in events
 * (`at`, `now`), so this file stays pure.
 *
 * Pure definition: the write (post or edit), the budget messages and the dead
 * letter are provided.
 */
import { assign, setup } from 'xstate';
import type { FrameLine } from '../src/surfaces/frame.js';
import type { BudgetReplyEvent } from './budget.protocol.js';
import { errorKind, retryAfterOf } from './errors.js';

export interface StrayLogInput {
  space: string;
  /** Give up on a write after this many failures (its lines become a dead letter). Default 5. */
  maxAttempts?: number;
  /** How long one message takes strays (ms). Default 60 000. */
  windowMs?: number;
  /** A persisted snapshot to resume from instead of starting fresh (src/runtime/restorable.ts). */
  persisted?: unknown;
}

/** The write in flight: what it carries, so a failure knows what it did not show. */
export interface StrayWriteInFlight {
  generation: number;
  /** The message it edits; null when it posts a new one. */
  messageId: string | null;
  /** Every line it carries (the whole message). */
  lines: FrameLine[];
  /** How many of them were shown before it. */
  shown: number;
}

export interface StrayLogContext {
  space: string;
  maxAttempts: number;
  /** The current message's lines, shown or not yet. */
  lines: FrameLine[];
  /** How many of `lines` the platform shows. */
  shown: number;
  /** How many of `lines` the write in flight carries (they land in this message even if a new one starts). */
  sending: number;
  /** The current message once posted; null before its first write landed. */
  messageId: string | null;
  /** Counts messages: a write that lands after its message was closed only updates that one. */
  generation: number;
  attempts: number;
  retryInMs: number;
  windowMs: number;
  /** When the current window opened (the `at` of the stray that opened it); null before the first. */
  openedAt: number | null;
  /** How long the window stays open from the time it was (re-)entered: `windowMs`, or what is left after a restart. */
  windowLeftMs: number;
  /** Posts made in the current window, so each post has its own client id (a retried one is not duplicated). */
  posts: number;
  inFlight: StrayWriteInFlight | null;
}

/** What the write actor is asked: post a new message (`messageId` null) or edit it to show `lines`. */
export interface StrayWriteInput {
  space: string;
  messageId: string | null;
  lines: FrameLine[];
  generation: number;
  /**
   * The client id of the write's first post; its later posts add `.1`, `.2`…
   * A write run again (a retry, a restart) posts with the same ids.
   */
  clientId: string;
}

export interface StrayWriteOutput {
  messageId: string;
  generation: number;
  /** How many of the input's lines are shown now. */
  sent: number;
  /**
   * How many leading lines went to earlier messages: lines past the platform's
   * limit continue in new messages, and `messageId` is the last one's.
   */
  closed: number;
  /** How many messages it posted. */
  posted: number;
}

export type StrayLogEvent =
  /** A stray, received at `at` (epoch ms): the stray that opens a window starts its minute. */
  | { type: 'strays.add'; line: FrameLine; at: number }
  /** Sent after restoring a persisted snapshot, with the time: re-arms the timers. */
  | { type: 'strays.recover'; now: number }
  /** A graceful stop with flush: what waits goes out now, through a terminal slot. */
  | { type: 'strays.flush' }
  | BudgetReplyEvent;

/** A new message; lines the old one will not show (no write carries them) carry over. */
const newMessage = (context: StrayLogContext) => ({
  lines: context.lines.slice(Math.max(context.shown, context.sending)),
  shown: 0,
  sending: 0,
  messageId: null,
  generation: context.generation + 1,
});

/** The write in flight was for an earlier message (its window closed meanwhile). */
const forEarlierMessage = (context: StrayLogContext): boolean =>
  context.inFlight !== null && context.inFlight.generation !== context.generation;

export const strayLogMachine = setup({
  types: {
    context: {} as StrayLogContext,
    events: {} as StrayLogEvent,
    input: {} as StrayLogInput,
  },
  actors: {
    writeStrays: {} as import('xstate').PromiseActorLogic<StrayWriteOutput, StrayWriteInput>,
  },
  actions: {
    requestProgressToken: () => {},
    /** At shutdown: a slot that goes ahead of progress frames, as a turn's last frame does. */
    bookTerminalSlot: () => {},
    reportRateLimited: (_, _params: { retryAfterMs: number }) => {},
    /** Lines no write could show: kept as a dead letter with the reason. */
    deadLetter: (_, _params: { lines: FrameLine[]; error: unknown }) => {},
    startMessage: assign(({ context }, params: { at: number }) => ({
      ...newMessage(context),
      openedAt: params.at,
      windowLeftMs: context.windowMs,
      posts: 0,
    })),
    /** After a restart: the window stays open for what is left of its minute. */
    resumeWindow: assign(({ context }, params: { now: number }) => ({
      windowLeftMs: Math.max(0, (context.openedAt ?? params.now) + context.windowMs - params.now),
    })),
    append: assign(({ context }, params: { line: FrameLine }) => ({
      lines: [...context.lines, params.line],
    })),
    recordWritten: assign(({ context }, params: { output: StrayWriteOutput }) =>
      params.output.generation === context.generation
        ? {
            messageId: params.output.messageId,
            lines: context.lines.slice(params.output.closed),
            shown: params.output.sent - params.output.closed,
            sending: 0,
            attempts: 0,
            posts: context.posts + params.output.posted,
            inFlight: null,
          }
        : { attempts: 0, posts: context.posts + params.output.posted, inFlight: null },
    ),
    markSending: assign(({ context }) => ({
      sending: context.lines.length,
      inFlight: {
        generation: context.generation,
        messageId: context.messageId,
        lines: context.lines,
        shown: context.shown,
      },
    })),
    /**
     * The failed write's lines are unshown again. When its message was closed
     * meanwhile, the new message takes the lines it did not show (ahead of its own).
     */
    recordFailure: assign(({ context }, params: { error: unknown }) => {
      const earlier = forEarlierMessage(context)
        ? (context.inFlight?.lines.slice(context.inFlight.shown) ?? [])
        : [];
      return {
        lines: [...earlier, ...context.lines],
        sending: context.shown,
        attempts: context.attempts + 1,
        retryInMs: retryAfterOf(params.error),
        inFlight: null,
      };
    }),
    /**
     * A person deleted the message the write edited: a fresh message (a new
     * generation, so a new client id) carries all of its lines, and the
     * lines of the current message after them.
     */
    replaceDeletedMessage: assign(({ context }) => {
      const earlier = forEarlierMessage(context) ? (context.inFlight?.lines ?? []) : [];
      return {
        lines: [...earlier, ...context.lines],
        shown: 0,
        sending: 0,
        messageId: null,
        generation: context.generation + 1,
        attempts: context.attempts + 1,
        inFlight: null,
      };
    }),
    recordRefusal: assign((_, params: { retryInMs: number }) => ({ retryInMs: params.retryInMs })),
    giveUpUnshown: assign(({ context }) => ({ shown: context.lines.length, attempts: 0 })),
  },
  guards: {
    /** After this write lands, lines remain to show (a write for a closed message leaves the new one's all). */
    leavesUnshown: ({ context }, params: { output: StrayWriteOutput }) =>
      params.output.generation === context.generation
        ? params.output.sent < context.lines.length
        : context.lines.length > context.shown,
    canRetry: ({ context }) => context.attempts + 1 < context.maxAttempts,
    /** After a restart: the minute of the current window is over. */
    isWindowOver: ({ context }, params: { now: number }) =>
      context.openedAt === null || context.openedAt + context.windowMs <= params.now,
    /** 404 on an edit: the message is gone (a person deleted it), not the space. */
    isMessageDeleted: ({ context }, params: { error: unknown }) =>
      context.attempts + 1 < context.maxAttempts &&
      errorKind(params.error) === 'not-found' &&
      context.inFlight?.messageId != null,
    canRetryRateLimited: ({ context }, params: { error: unknown }) =>
      context.attempts + 1 < context.maxAttempts && errorKind(params.error) === 'rate-limited',
  },
  delays: {
    strayWindow: ({ context }) => context.windowLeftMs,
    retryIn: ({ context }) => Math.max(context.retryInMs, 1),
    // A 429's Retry-After, or a doubling pause after another failure.
    writeRetry: ({ context }) => Math.max(context.retryInMs, 1_000 * 2 ** context.attempts),
  },
}).createMachine({
  id: 'strays',
  context: ({ input }) => ({
    space: input.space,
    maxAttempts: input.maxAttempts ?? 5,
    lines: [],
    shown: 0,
    sending: 0,
    messageId: null,
    generation: 0,
    attempts: 0,
    retryInMs: 0,
    windowMs: input.windowMs ?? 60_000,
    openedAt: null,
    windowLeftMs: input.windowMs ?? 60_000,
    posts: 0,
    inFlight: null,
  }),
  type: 'parallel',
  states: {
    // The window region comes first: a stray that opens a window starts a new message before it is appended.
    window: {
      initial: 'closed',
      states: {
        closed: {
          on: {
            'strays.add': {
              target: 'open',
              actions: { type: 'startMessage', params: ({ event }) => ({ at: event.at }) },
            },
          },
        },
        open: {
          after: { strayWindow: 'closed' },
          on: {
            'strays.recover': [
              {
                guard: { type: 'isWindowOver', params: ({ event }) => ({ now: event.now }) },
                target: 'closed',
              },
              {
                target: 'open',
                reenter: true,
                actions: { type: 'resumeWindow', params: ({ event }) => ({ now: event.now }) },
              },
            ],
          },
        },
      },
    },
    writer: {
      initial: 'idle',
      on: {
        'strays.add': { actions: { type: 'append', params: ({ event }) => ({ line: event.line }) } },
      },
      states: {
        idle: {
          on: {
            'strays.add': {
              target: 'asking',
              actions: { type: 'append', params: ({ event }) => ({ line: event.line }) },
            },
          },
        },
        asking: {
          entry: 'requestProgressToken',
          on: {
            'strays.recover': { target: 'asking', reenter: true },
            'strays.flush': 'flushing',
            'budget.granted': 'writing',
            'budget.refused': {
              target: 'waiting',
              actions: { type: 'recordRefusal', params: ({ event }) => ({ retryInMs: event.retryInMs }) },
            },
          },
        },
        waiting: {
          after: { retryIn: 'asking' },
          on: { 'strays.recover': { target: 'waiting', reenter: true }, 'strays.flush': 'flushing' },
        },
        /** Shutdown: the unshown lines wait for a terminal slot only, not for their turn at a progress token. */
        flushing: {
          entry: 'bookTerminalSlot',
          on: {
            'strays.recover': { target: 'flushing', reenter: true },
            'budget.funded': 'writing',
          },
        },
        writing: {
          entry: 'markSending',
          invoke: {
            id: 'write',
            src: 'writeStrays',
            input: ({ context }) => ({
              space: context.space,
              messageId: context.messageId,
              lines: context.lines,
              generation: context.generation,
              clientId: `strays:${context.space}:${context.openedAt ?? 0}:${context.generation}.${context.posts}`,
            }),
            onDone: [
              {
                guard: { type: 'leavesUnshown', params: ({ event }) => ({ output: event.output }) },
                target: 'asking',
                actions: { type: 'recordWritten', params: ({ event }) => ({ output: event.output }) },
              },
              {
                target: 'idle',
                actions: { type: 'recordWritten', params: ({ event }) => ({ output: event.output }) },
              },
            ],
            onError: [
              {
                guard: { type: 'isMessageDeleted', params: ({ event }) => ({ error: event.error }) },
                target: 'asking',
                actions: 'replaceDeletedMessage',
              },
              {
                guard: { type: 'canRetryRateLimited', params: ({ event }) => ({ error: event.error }) },
                target: 'backoff',
                actions: [
                  { type: 'recordFailure', params: ({ event }) => ({ error: event.error }) },
                  {
                    type: 'reportRateLimited',
                    params: ({ event }) => ({ retryAfterMs: retryAfterOf(event.error) }),
                  },
                ],
              },
              {
                guard: 'canRetry',
                target: 'backoff',
                actions: { type: 'recordFailure', params: ({ event }) => ({ error: event.error }) },
              },
              {
                target: 'idle',
                actions: [
                  { type: 'recordFailure', params: ({ event }) => ({ error: event.error }) },
                  {
                    type: 'deadLetter',
                    params: ({ context, event }) => ({
                      lines: context.lines.slice(context.shown),
                      error: event.error,
                    }),
                  },
                  'giveUpUnshown',
                ],
              },
            ],
          },
        },
        backoff: {
          after: { writeRetry: 'asking' },
          on: { 'strays.recover': { target: 'backoff', reenter: true }, 'strays.flush': 'flushing' },
        },
      },
    },
  },
});
