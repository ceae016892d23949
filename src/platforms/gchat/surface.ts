/**
 * The Google Chat surface: the ChatSurface port over googleapis Chat v1.
 *
 * - post: `spaces.messages.create`; a `silent` post sets
 *   `createMessageNotificationOptions.notificationType` to
 *   `NOTIFICATION_TYPE_SILENT` ("as if the recipients have Chat Do Not
 *   Disturb enabled", app authentication only); a thread reply names the thread
 *   (`thread.name`, turnlog's GChat thread id) with
 *   `REPLY_MESSAGE_FALLBACK_TO_NEW_THREAD`; a root message without a known
 *   thread is looked up once (`spaces.messages.get`) for its `thread.name`.
 *   A client id becomes `requestId` and a client-assigned `messageId`, so a
 *   retried create returns the message it made. The request's frame is
 *   rendered by render.ts: a log or prose as `text`, a card as `cardsV2`;
 *   when Chat refuses a card (400) its plain-text fallback goes in its
 *   place, in the same thread.
 * - edit: `spaces.messages.patch` with `updateMask: 'text'` (`cardsV2` for a card).
 * - react (the host's, by name): refused as `invalid`.
 * - reactions (issue 26, unicode): `spaces.messages.reactions.create` and
 *   `reactions.delete` (the reaction's name remembered from its create, else
 *   found with `reactions.list`). Google accepts these only with user
 *   credentials (or domain-wide delegation); with the app's own it answers
 *   403, which the turn keeps as a warning (docs/platforms.md).
 * Errors are SurfaceErrors (errors.ts); 429s wait by a per-space
 * exponential backoff (backoff.ts). An aborted call rejects with an
 * `AbortError`.
 */
import type { chat_v1 } from 'googleapis/build/src/apis/chat/index.js';
import type { RateLimiter } from '../../budget/rate-limiter.js';
import type { PlatformCapabilities } from '../../registry/descriptor.js';
import type { FrameCard } from '../../surfaces/frame.js';
import {
  type CallOpts,
  type ChatSurface,
  type EditRequest,
  isSurfaceError,
  type PostedMessage,
  type PostRequest,
  type ReactionRequest,
  SurfaceError,
  type ThreadAnchor,
} from '../../surfaces/surface.js';

/** Reaction names remembered for removal (older ones are found again with `reactions.list`). */
const MAX_REACTION_NAMES = 10_000;

import { BACKOFF_INITIAL_MS, createGchatRateLimiter } from './backoff.js';
import { createGchatClient, type GchatAuth } from './client.js';
import { googleStatusOf, httpStatusOf, responseHeadersOf, toSurfaceError } from './errors.js';
import { clientMessageIdFor, requestIdFor } from './ids.js';
import { gchatSpaceName, isThreadOf, requireMessageOf } from './names.js';
import { type GchatCardV2, renderCardFallbackText, renderGchatCard, renderGchatMessage } from './render.js';

export { CHAT_BOT_SCOPE, type GchatAuth } from './client.js';

export interface GchatSurfaceOptions {
  /** An emulator's origin (`turnlog emulate` prints it); absent → Google's API. */
  apiUrl?: string;
  /** Path of a service-account key file; absent → application default credentials. Ignored with `auth`. */
  credentials?: string;
  /** A google-auth-library client (GoogleAuth, JWT …) to use instead of building one. */
  auth?: GchatAuth;
  /** Per request; a request without an answer by then is `transient`. Default 30 000. */
  requestTimeoutMs?: number;
  /** Refuse text over GCHAT_STRICT_TEXT_CHARS (4096, Chat's older limit) before sending. Default false (Google checks 32,000 bytes). */
  strict?: boolean;
  /** Epoch ms, for how long a 429 holds a space back (the rate limiter). Default `Date.now`. */
  now?: () => number;
}

/** Chat's older per-message text limit, which strict mode still enforces. */
export const GCHAT_STRICT_TEXT_CHARS = 4096;

/**
 * A message may take 32,000 bytes (https://developers.google.com/workspace/chat/create-messages):
 * 7,000 characters stay within it even at UTF-8's 4 bytes a character, with room for the
 * rendering's markup, so a 200-event turn's log fits one message instead of rolling over into a
 * second message. Threads only in named spaces; `requestId` is idempotent; cardsV2 with buttons.
 * A post can be silent (`createMessageNotificationOptions.notificationType: NOTIFICATION_TYPE_SILENT`,
 * https://developers.google.com/workspace/chat/api/reference/rest/v1/spaces.messages/create).
 */
export const GCHAT_CAPABILITIES: Readonly<PlatformCapabilities> = {
  maxChars: 7000,
  silentPosts: true,
  idempotentCreate: true,
  // A card takes 100 widgets (https://developers.google.com/workspace/chat/api/reference/rest/v1/cards); a question keeps to the others' 25.
  maxButtons: 25,
};

const REPLY_OPTION = 'REPLY_MESSAGE_FALLBACK_TO_NEW_THREAD';
/** Sent for a silent post: no one is notified of the new message. */
const SILENT_NOTIFICATION = {
  'createMessageNotificationOptions.notificationType': 'NOTIFICATION_TYPE_SILENT',
};
const DEFAULT_TIMEOUT_MS = 30_000;

function abortError(): DOMException {
  return new DOMException('The Google Chat call was aborted', 'AbortError');
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw abortError();
}

type MessageBody = chat_v1.Schema$Message;

/** The Google Chat surface, with the rate limiter its answers feed (the budget's RateLimiter). */
export interface GchatSurface extends ChatSurface {
  readonly rateLimiter: RateLimiter;
}

export function createGchatSurface(opts: GchatSurfaceOptions = {}): GchatSurface {
  const client = createGchatClient(opts);
  const { chat } = client;
  const timeout = opts.requestTimeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!(timeout > 0)) {
    throw new RangeError(`createGchatSurface: requestTimeoutMs must be positive, got ${timeout}`);
  }
  // Strict mode keeps the older text limit, so what turnlog writes is sized for it.
  const capabilities: PlatformCapabilities = {
    ...GCHAT_CAPABILITIES,
    ...(opts.strict ? { maxChars: GCHAT_STRICT_TEXT_CHARS } : {}),
  };
  const rateLimiter = createGchatRateLimiter({ now: opts.now ?? Date.now });

  /** One API call in `space`: abort honoured, errors mapped, every answer told to the space's rate limiter. */
  async function call<T>(
    space: string,
    what: string,
    signal: AbortSignal | undefined,
    run: (options: { signal?: AbortSignal; timeout: number }) => Promise<{ data: T }>,
  ): Promise<T> {
    throwIfAborted(signal);
    try {
      const { data } = await run({ timeout, ...(signal ? { signal } : {}) });
      rateLimiter.onResponse(space, { status: 200, headers: {} });
      return data;
    } catch (error) {
      // The caller's abort, not a failure of Google's (a timeout aborts gaxios' own signal).
      if (signal?.aborted) throw abortError();
      const status = httpStatusOf(error);
      // A 429 waits its Retry-After, or the space's next backoff when Google sent none.
      const waitMs =
        status === 429
          ? rateLimiter.onResponse(space, { status, headers: responseHeadersOf(error) })
          : undefined;
      throw toSurfaceError(error, {
        what: `${what} in ${space}`,
        nextBackoffMs: () => waitMs ?? BACKOFF_INITIAL_MS,
      });
    }
  }

  /** Reaction names by message and emoji, from their creates (so a removal needs no list); the newest kept. */
  const reactionNames = new Map<string, string>();
  const rememberReaction = (parent: string, emoji: string, name: string) => {
    reactionNames.set(`${parent}\u0000${emoji}`, name);
    if (reactionNames.size > MAX_REACTION_NAMES) reactionNames.delete(reactionNames.keys().next().value!);
  };
  const reactionTarget = (req: ReactionRequest) => {
    const space = gchatSpaceName(req.space);
    return { space, parent: requireMessageOf(space, req.messageId, 'reaction') };
  };

  /** The thread name a reply goes to: the anchor's thread, else the root message's (one read). */
  async function threadNameOf(
    space: string,
    anchor: ThreadAnchor,
    signal: AbortSignal | undefined,
  ): Promise<string> {
    if (anchor.threadId !== undefined && isThreadOf(space, anchor.threadId)) return anchor.threadId;
    if (anchor.rootMessageId === undefined) {
      throw new SurfaceError(
        'invalid',
        `thread anchor ${JSON.stringify(anchor)} has neither a thread of ${space} (${space}/threads/<id>) nor a root message`,
      );
    }
    const name = requireMessageOf(space, anchor.rootMessageId, 'root message');
    const root = await call(space, 'spaces.messages.get (thread root)', signal, (o) =>
      chat.spaces.messages.get({ name }, o),
    );
    const thread = root.thread?.name;
    if (typeof thread !== 'string' || !isThreadOf(space, thread)) {
      throw new SurfaceError('invalid', `root message ${name} came back without a thread of ${space}`);
    }
    return thread;
  }

  /** `spaces.messages.create`, idempotent by client id: a replay or an existing client-assigned id returns that message. */
  async function create(
    space: string,
    body: MessageBody,
    thread: string | undefined,
    clientId: string | undefined,
    signal: AbortSignal | undefined,
    silent: boolean,
  ): Promise<PostedMessage> {
    const messageId = clientId === undefined ? undefined : clientMessageIdFor(clientId);
    const params: chat_v1.Params$Resource$Spaces$Messages$Create = {
      parent: space,
      requestBody: { ...body, ...(thread === undefined ? {} : { thread: { name: thread } }) },
      ...(thread === undefined ? {} : { messageReplyOption: REPLY_OPTION }),
      ...(clientId === undefined ? {} : { requestId: requestIdFor(clientId), messageId }),
      ...(silent ? SILENT_NOTIFICATION : {}),
    };
    try {
      return postedOf(
        await call(space, 'spaces.messages.create', signal, (o) => chat.spaces.messages.create(params, o)),
      );
    } catch (error) {
      if (messageId === undefined || !isAlreadyExists(error)) throw error;
      // The message exists under its client-assigned id (made by an earlier attempt): return it.
      const name = `${space}/messages/${messageId}`;
      return postedOf(
        await call(space, 'spaces.messages.get (existing client id)', signal, (o) =>
          chat.spaces.messages.get({ name }, o),
        ),
      );
    }
  }

  return {
    platform: 'gchat',
    capabilities,
    rateLimiter,

    async post(req: PostRequest, callOpts?: CallOpts): Promise<PostedMessage> {
      const signal = callOpts?.signal;
      throwIfAborted(signal);
      const space = gchatSpaceName(req.space);
      const thread = req.thread ? await threadNameOf(space, req.thread, signal) : undefined;
      const { frame } = req;
      const silent = req.silent === true;
      if (frame.kind !== 'card') {
        return create(space, checkedBody(renderGchatMessage(frame)), thread, req.clientId, signal, silent);
      }
      const card = { cardsV2: gchatCard(frame.card), fallbackText: renderCardText(frame.card) };
      try {
        return await create(space, card, thread, req.clientId, signal, silent);
      } catch (error) {
        if (!(isSurfaceError(error) && error.details.status === 400)) throw error;
        // Chat refused the card: the same request as text, with its own idempotency ids.
        const fallbackId = req.clientId === undefined ? undefined : `${req.clientId}:text`;
        return create(
          space,
          { text: checkedText(renderCardFallbackText(frame.card)) },
          thread,
          fallbackId,
          signal,
          silent,
        );
      }
    },

    async edit(req: EditRequest, callOpts?: CallOpts): Promise<void> {
      const signal = callOpts?.signal;
      throwIfAborted(signal);
      const space = gchatSpaceName(req.space);
      const name = requireMessageOf(space, req.messageId, 'message');
      // A card is replaced by its new cardsV2 (a decided card loses its buttons); a log or prose by its text.
      const requestBody: MessageBody =
        req.frame.kind === 'card'
          ? { cardsV2: gchatCard(req.frame.card), fallbackText: renderCardText(req.frame.card) }
          : checkedBody(renderGchatMessage(req.frame));
      // A log with buttons (Stop) replaces its button card too: an empty one removes it.
      const updateMask =
        req.frame.kind === 'card'
          ? 'cardsV2'
          : req.frame.kind === 'log' && req.frame.actions !== undefined
            ? 'text,cardsV2'
            : 'text';
      await call(space, 'spaces.messages.patch', signal, (o) =>
        chat.spaces.messages.patch({ name, updateMask, requestBody }, o),
      );
    },

    reactions: {
      async add(req, callOpts) {
        const { space, parent } = reactionTarget(req);
        try {
          const created = await call(space, 'spaces.messages.reactions.create', callOpts?.signal, (o) =>
            chat.spaces.messages.reactions.create(
              { parent, requestBody: { emoji: { unicode: req.emoji } } },
              o,
            ),
          );
          if (created.name) rememberReaction(parent, req.emoji, created.name);
        } catch (error) {
          // ALREADY_EXISTS: the reaction is there (a retry of one that landed).
          if (isSurfaceError(error) && error.details.status === 409) return;
          throw error;
        }
      },
      async remove(req, callOpts) {
        const { space, parent } = reactionTarget(req);
        const key = `${parent}\u0000${req.emoji}`;
        let name = reactionNames.get(key);
        if (name === undefined) {
          const listed = await call(space, 'spaces.messages.reactions.list', callOpts?.signal, (o) =>
            chat.spaces.messages.reactions.list({ parent }, o),
          );
          name =
            (listed.reactions ?? []).find((r) => r.emoji?.unicode === req.emoji && r.user?.type === 'BOT')
              ?.name ?? undefined;
          if (name === undefined) return; // not there: nothing to remove
        }
        try {
          await call(space, 'spaces.messages.reactions.delete', callOpts?.signal, (o) =>
            chat.spaces.messages.reactions.delete({ name }, o),
          );
        } catch (error) {
          if (!(isSurfaceError(error) && error.kind === 'not-found' && reactionNames.has(key))) throw error;
        } finally {
          reactionNames.delete(key);
        }
      },
    },

    async react(req, callOpts?: CallOpts): Promise<void> {
      throwIfAborted(callOpts?.signal);
      gchatSpaceName(req.space);
      throw new SurfaceError(
        'invalid',
        `cannot react ${req.emoji} to ${req.messageId}: reactions need user authentication on Google Chat (a Chat app's own credentials cannot add them)`,
      );
    },

    /** True when ready; otherwise rejects naming the cause (for `/healthz`). */
    async ready(): Promise<boolean> {
      if (opts.apiUrl !== undefined) {
        // The emulator: its inspection API answers a cheap GET that counts against no limit and records nothing.
        let res: Response;
        try {
          res = await fetch(new URL('/_emulator/limits', opts.apiUrl), {
            signal: AbortSignal.timeout(timeout),
          });
        } catch (error) {
          throw new Error(`the Google Chat emulator at ${opts.apiUrl} did not answer: ${messageOf(error)}`);
        }
        if (!res.ok)
          throw new Error(`the Google Chat emulator at ${opts.apiUrl} answered HTTP ${res.status}`);
        return true;
      }
      // Google: the credentials load (key file or application default credentials).
      const auth = client.auth;
      try {
        if (auth !== undefined && typeof auth !== 'string' && 'getClient' in auth) await auth.getClient();
      } catch (error) {
        throw new Error(`Google credentials did not load: ${messageOf(error)}`);
      }
      return true;
    },
  };

  function checkedBody(message: { text: string } | object): MessageBody {
    return 'text' in message
      ? { ...(message as MessageBody), text: checkedText(message.text as string) }
      : (message as MessageBody);
  }

  /** Rendered text, within `maxChars` when strict. */
  function checkedText(rendered: string): string {
    if (opts.strict) {
      const chars = [...rendered].length;
      if (chars > capabilities.maxChars) {
        throw new SurfaceError(
          'invalid',
          `message text is ${chars} characters; strict mode allows ${capabilities.maxChars}`,
        );
      }
    }
    return rendered;
  }
}

/** The card's cardsV2, or `invalid` naming what the card lacks. */
function gchatCard(card: FrameCard): GchatCardV2[] {
  try {
    return renderGchatCard(card);
  } catch (error) {
    throw new SurfaceError('invalid', (error as Error).message, { cause: error });
  }
}

/** The card's `fallbackText` (shown where the card is not, e.g. in notifications). */
function renderCardText(card: FrameCard): string {
  const message = renderGchatMessage({ kind: 'card', card });
  return 'fallbackText' in message ? message.fallbackText : message.text;
}

const messageOf = (error: unknown): string => {
  const cause = (error as { cause?: unknown }).cause;
  const own = error instanceof Error ? error.message : String(error);
  return cause instanceof Error && !own.includes(cause.message) ? `${own} (${cause.message})` : own;
};

function isAlreadyExists(error: unknown): boolean {
  if (!isSurfaceError(error)) return false;
  const cause = error.details.cause;
  return httpStatusOf(cause) === 409 && googleStatusOf(cause) === 'ALREADY_EXISTS';
}

function postedOf(message: chat_v1.Schema$Message): PostedMessage {
  if (typeof message.name !== 'string' || message.name === '') {
    throw new SurfaceError('transient', 'Google Chat answered with a message that has no name');
  }
  const threadId = message.thread?.name;
  return { messageId: message.name, ...(typeof threadId === 'string' ? { threadId } : {}) };
}
