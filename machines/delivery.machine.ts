/**
 * The delivery machine: one must-land message outside a turn's log — a final
 * answer, a policy or question card, a top-level entry of a space without
 * threads, a warning — or one must-land edit of such a message (a card
 * showing who decided, `edit`), or one reaction the host adds through the
 * channel adapter (`reaction`). It books a terminal slot with the budget (so it never starves
 * behind progress edits and never breaks the rate limit), posts, waits out
 * a 429's Retry-After and tries again, and ends `delivered` or `failed`
 * (with the reason, for the dead-letter record).
 *
 * Pure definition: the post actor and the budget messages are provided.
 */
import { assign, setup } from 'xstate';
import type { EditRequest, PostedMessage, PostRequest } from '../src/surfaces/surface.js';
import type { FundedEvent } from './budget.protocol.js';
import { describeError, errorKind, retryAfterOf } from './errors.js';

export interface DeliveryInput {
  request: PostRequest;
  /** What the message is, for logs and dead letters (`answer`, `policy card`, …). */
  purpose: string;
  /** Give up after this many failed sends. Default 10. */
  maxAttempts?: number;
  /**
   * Texts posted after `request`, in order, each as its own message (a long
   * answer split at the platform's limit): each books its own slot, and they
   * go silent where the platform allows, so only the first one notifies.
   */
  continuation?: string[];
  /** A card's turn and a question's options: recorded in the card registry once the card is posted. */
  card?: CardRegistration;
  /** Edit this message to show `request.frame` instead of posting a new one. */
  edit?: { messageId: string; threadId?: string };
  /** Add this reaction to a message instead of posting (`request` gives the space and thread). */
  reaction?: { messageId: string; emoji: string; threadId?: string };
  /** Echoed in the output: who asked for this delivery waits on it (a host's post through the channel adapter). */
  ticket?: string;
  /** The turn an answer belongs to: a failure is told to that turn's view even after it ended. */
  turnId?: string;
  /**
   * The place of `request` among the parts of its answer: 0 for a new
   * answer, more for one resumed after a restart (its earlier parts landed).
   * Part N's client id is `partClientId(<part 0's>, N)`.
   */
  firstPart?: number;
  /**
   * Part 0's client id, under which the answer's parts are kept in the store until the
   * platform took each (docs/architecture.md, "What survives a restart"):
   * each part is forgotten once posted, and the rest once the delivery fails.
   */
  pendingKey?: string;
}

/** What the `reactMessage` actor is given. */
export interface ReactRequest {
  space: string;
  messageId: string;
  emoji: string;
  threadId?: string;
}

export interface CardRegistration {
  turnId: string;
  options?: { label: string; selectedLabel: string; value: string }[];
}

export interface DeliveryContext {
  request: PostRequest;
  purpose: string;
  maxAttempts: number;
  attempts: number;
  retryAfterMs: number;
  posted: PostedMessage | null;
  error: string | null;
  /** Texts still to post after the current request. */
  continuation: string[];
  /** Messages posted so far (the first is the delivery's message). */
  parts: number;
  /** The place of `request` among the answer's parts (0 for the first). */
  part: number;
  /** Part 0's client id: part N's is `<it>-N`, so ids stay short however many parts there are. */
  baseClientId?: string | null;
  /** The key the answer's parts are kept under in the store until posted; null when they are not kept. */
  pendingKey: string | null;
  card: CardRegistration | null;
  edit: { messageId: string; threadId?: string } | null;
  reaction: { messageId: string; emoji: string; threadId?: string } | null;
  /** The normalised kind of the last failure (`not-found`: the message to edit is gone). */
  errorKind: string | null;
  ticket: string | null;
  turnId: string | null;
}

export type DeliveryOutput =
  | {
      status: 'delivered';
      purpose: string;
      message: PostedMessage;
      request: PostRequest;
      card?: CardRegistration;
      ticket?: string;
      turnId?: string;
    }
  | {
      status: 'failed';
      purpose: string;
      request: PostRequest;
      error: string;
      errorKind?: string;
      /** The parts after the refused one, never sent: kept with it in the dead letter. */
      unsent?: string[];
      edit?: { messageId: string; threadId?: string };
      ticket?: string;
      turnId?: string;
    };

/** A write's error (post, edit or reaction): wait and retry while the platform allows, else fail. */
const errorOf = ({ event }: { event: { error: unknown } }) => ({ error: event.error });
const retryOrFail = [
  {
    guard: { type: 'canRetryRateLimited', params: errorOf },
    target: 'waiting',
    actions: [
      { type: 'recordFailure', params: errorOf },
      {
        type: 'reportRateLimited',
        params: ({ event }: { event: { error: unknown } }) => ({ retryAfterMs: retryAfterOf(event.error) }),
      },
    ],
  },
  {
    guard: { type: 'canRetry', params: errorOf },
    target: 'waiting',
    actions: { type: 'recordFailure', params: errorOf },
  },
  { target: 'failed', actions: { type: 'recordFailure', params: errorOf } },
] as const;

export const deliveryMachine = setup({
  types: {
    context: {} as DeliveryContext,
    events: {} as FundedEvent | { type: 'delivery.recover' },
    input: {} as DeliveryInput,
    output: {} as DeliveryOutput,
  },
  actions: {
    bookTerminalSlot: () => {},
    /** Provided: the parts `from`…`from + count - 1` need no resending after a restart (posted, or refused for good). */
    forgetParts: (_, _params: { from: number; count: number }) => {},
    reportRateLimited: (_, _params: { retryAfterMs: number }) => {},
    recordFailure: assign(({ context }, params: { error: unknown }) => ({
      attempts: context.attempts + 1,
      retryAfterMs: retryAfterOf(params.error),
      error: describeError(params.error),
      errorKind: errorKind(params.error) ?? null,
    })),
    recordPosted: assign(({ context }, params: { message: PostedMessage }) => ({
      posted: context.posted ?? params.message,
      error: null,
      parts: context.parts + 1,
    })),
    /** The next part of a split message becomes the request, silent, with its own retry count. */
    takeNextPart: assign(({ context }) => ({
      request: nextPart(context),
      continuation: context.continuation.slice(1),
      part: context.part + 1,
      attempts: 0,
    })),
  },
  guards: {
    isEdit: ({ context }) => context.edit !== null,
    isReaction: ({ context }) => context.reaction !== null,
    hasMoreParts: ({ context }) => context.continuation.length > 0,
    canRetryRateLimited: ({ context }, params: { error: unknown }) =>
      context.attempts + 1 < context.maxAttempts && errorKind(params.error) === 'rate-limited',
    canRetry: ({ context }, params: { error: unknown }) =>
      context.attempts + 1 < context.maxAttempts && isRetryable(params.error),
  },
  actors: {
    postMessage: {} as import('xstate').PromiseActorLogic<PostedMessage, PostRequest>,
    editMessage: {} as import('xstate').PromiseActorLogic<void, EditRequest>,
    reactMessage: {} as import('xstate').PromiseActorLogic<void, ReactRequest>,
  },
  delays: {
    retryAfter: ({ context }) => context.retryAfterMs,
  },
}).createMachine({
  id: 'delivery',
  context: ({ input }) => ({
    request: input.request,
    purpose: input.purpose,
    maxAttempts: input.maxAttempts ?? 10,
    attempts: 0,
    retryAfterMs: 0,
    posted: null,
    error: null,
    continuation: input.continuation ?? [],
    parts: 0,
    part: input.firstPart ?? 0,
    // A kept answer's key is its part 0's client id (a resumed one's request is a later part).
    baseClientId: input.pendingKey ?? input.request.clientId ?? null,
    pendingKey: input.pendingKey ?? null,
    card: input.card ?? null,
    edit: input.edit ?? null,
    reaction: input.reaction ?? null,
    ticket: input.ticket ?? null,
    turnId: input.turnId ?? null,
    errorKind: null,
  }),
  initial: 'booking',
  states: {
    booking: {
      entry: 'bookTerminalSlot',
      on: {
        'budget.funded': [
          { guard: 'isReaction', target: 'reacting' },
          { guard: 'isEdit', target: 'editing' },
          { target: 'posting' },
        ],
        'delivery.recover': { target: 'booking', reenter: true },
      },
    },
    /** An edit of a message already posted (a card showing its outcome); a 404 (deleted) is not retried. */
    editing: {
      invoke: {
        id: 'edit',
        src: 'editMessage',
        input: ({ context }) => ({
          space: context.request.space,
          frame: context.request.frame,
          messageId: context.edit?.messageId ?? '',
          ...(context.edit?.threadId ? { threadId: context.edit.threadId } : {}),
        }),
        onDone: {
          target: 'delivered',
          actions: {
            type: 'recordPosted',
            params: ({ context }) => ({
              message: {
                messageId: context.edit?.messageId ?? '',
                ...(context.edit?.threadId ? { threadId: context.edit.threadId } : {}),
              },
            }),
          },
        },
        onError: retryOrFail,
      },
    },
    /** A reaction on a message (the host's, through the channel adapter); retried like an edit. */
    reacting: {
      invoke: {
        id: 'react',
        src: 'reactMessage',
        input: ({ context }) => ({
          space: context.request.space,
          messageId: context.reaction?.messageId ?? '',
          emoji: context.reaction?.emoji ?? '',
          ...(context.reaction?.threadId ? { threadId: context.reaction.threadId } : {}),
        }),
        onDone: {
          target: 'delivered',
          actions: {
            type: 'recordPosted',
            params: ({ context }) => ({
              message: {
                messageId: context.reaction?.messageId ?? '',
                ...(context.reaction?.threadId ? { threadId: context.reaction.threadId } : {}),
              },
            }),
          },
        },
        onError: retryOrFail,
      },
    },
    posting: {
      invoke: {
        id: 'post',
        src: 'postMessage',
        input: ({ context }) => context.request,
        onDone: [
          {
            guard: 'hasMoreParts',
            target: 'booking',
            actions: [
              { type: 'recordPosted', params: ({ event }) => ({ message: event.output }) },
              { type: 'forgetParts', params: ({ context }) => ({ from: context.part, count: 1 }) },
              'takeNextPart',
            ],
          },
          {
            target: 'delivered',
            actions: [
              { type: 'recordPosted', params: ({ event }) => ({ message: event.output }) },
              { type: 'forgetParts', params: ({ context }) => ({ from: context.part, count: 1 }) },
            ],
          },
        ],
        onError: retryOrFail,
      },
    },
    waiting: {
      after: { retryAfter: 'booking' },
      on: { 'delivery.recover': { target: 'waiting', reenter: true } },
    },
    delivered: { type: 'final' },
    /** Refused for good: the part and the ones after it are not tried again after a restart either. */
    failed: {
      type: 'final',
      entry: {
        type: 'forgetParts',
        params: ({ context }) => ({ from: context.part, count: 1 + context.continuation.length }),
      },
    },
  },
  // Failed once a write was refused for good, even after earlier parts of the message landed.
  output: ({ context }): DeliveryOutput =>
    context.posted && context.error === null
      ? {
          status: 'delivered',
          purpose: context.purpose,
          message: context.posted,
          request: context.request,
          ...(context.card ? { card: context.card } : {}),
          ...(context.ticket !== null ? { ticket: context.ticket } : {}),
          ...(context.turnId !== null ? { turnId: context.turnId } : {}),
        }
      : {
          status: 'failed',
          purpose: context.purpose,
          request: context.request,
          error: context.error ?? 'unknown error',
          ...(context.errorKind ? { errorKind: context.errorKind } : {}),
          ...(context.continuation.length > 0 ? { unsent: context.continuation } : {}),
          ...(context.edit ? { edit: context.edit } : {}),
          ...(context.ticket !== null ? { ticket: context.ticket } : {}),
          ...(context.turnId !== null ? { turnId: context.turnId } : {}),
        },
});

/** The client id of part `part` of a message split in parts, from part 0's: stable across retries and restarts. */
export const partClientId = (base: string, part: number): string => (part === 0 ? base : `${base}-${part}`);

/** The request for the next part: silent, with a client id of its own so a retried create never duplicates. */
function nextPart(context: DeliveryContext): PostRequest {
  const { clientId, ...request } = context.request;
  const base = context.baseClientId ?? clientId;
  return {
    ...request,
    frame: { kind: 'prose', markdown: context.continuation[0] ?? '' },
    silent: true,
    ...(base ? { clientId: partClientId(base, context.part + 1) } : {}),
  };
}

/** Rate limits and transient failures are worth another try; a 400/403/404 is not. */
function isRetryable(error: unknown): boolean {
  const kind = errorKind(error);
  return kind === 'rate-limited' || kind === 'transient';
}
