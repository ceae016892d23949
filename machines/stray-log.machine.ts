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
}

/** What the write actor is asked: post a new message (`messageId` null) or edit it to show `lines`. */
export interface StrayWriteInput {
  space: string;
  messageId: string | null;
  lines: FrameLine[];
  generation: number;
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
}

export type StrayLogEvent = { type: 'strays.add'; line: FrameLine } | BudgetReplyEvent;

/** A new message; lines the old one will not show (no write carries them) carry over. */
const newMessage = (context: StrayLogContext) => ({
  lines: context.lines.slice(Math.max(context.shown, context.sending)),
  shown: 0,
  sending: 0,
  messageId: null,
  generation: context.generation + 1,
});

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
    reportRateLimited: (_, _params: { retryAfterMs: number }) => {},
    /** Lines no write could show: kept as a dead letter with the reason. */
    deadLetter: (_, _params: { lines: FrameLine[]; error: unknown }) => {},
    startMessage: assign(({ context }) => newMessage(context)),
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
          }
        : { attempts: 0 },
    ),
    markSending: assign(({ context }) => ({ sending: context.lines.length })),
    // The failed write's lines are unshown again: a new message started meanwhile carries them.
    recordFailure: assign(({ context }, params: { error: unknown }) => ({
      sending: context.shown,
      attempts: context.attempts + 1,
      retryInMs: retryAfterOf(params.error),
    })),
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
    canRetryRateLimited: ({ context }, params: { error: unknown }) =>
      context.attempts + 1 < context.maxAttempts && errorKind(params.error) === 'rate-limited',
  },
  delays: {
    strayWindow: 60_000,
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
  }),
  type: 'parallel',
  states: {
    // The window region comes first: a stray that opens a window starts a new message before it is appended.
    window: {
      initial: 'closed',
      states: {
        closed: {
          on: { 'strays.add': { target: 'open', actions: 'startMessage' } },
        },
        open: {
          after: { strayWindow: 'closed' },
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
            'budget.granted': 'writing',
            'budget.refused': {
              target: 'waiting',
              actions: { type: 'recordRefusal', params: ({ event }) => ({ retryInMs: event.retryInMs }) },
            },
          },
        },
        waiting: {
          after: { retryIn: 'asking' },
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
        },
      },
    },
  },
});
