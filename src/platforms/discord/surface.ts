/**
 * The Discord surface: the ChatSurface port over @discordjs/rest and
 * @discordjs/core's HTTP-only API (no gateway needed to post).
 *
 * - The REST client gets `rejectOnRateLimit` for every route and `retries: 0`,
 *   so every 429 (Discord's, or the client's own "this bucket is empty")
 *   and every 5xx reaches the caller — the runtime's budget — as a
 *   SurfaceError instead of being queued or retried out of sight.
 * - Every answer's rate-limit headers feed a {@link RateLimitTracker}; a call
 *   the headers say would be refused is not sent (`rate-limited` with the
 *   wait). Every 401/403/429 feeds the {@link InvalidRequestGuard}, which
 *   stops writes to a space long before Discord's IP ban.
 * - post: in a thread, the thread is started on the person's message
 *   (https://discord.com/developers/docs/resources/channel#start-thread-from-message,
 *   auto-archive after a day); `160004` means it exists: its id is the
 *   message's. Where a thread can't be started (a DM, a forum: 50024; the
 *   message is gone: 10008) the post goes top level. `silent` sets
 *   SUPPRESS_NOTIFICATIONS; a client id becomes `nonce` + `enforce_nonce`
 *   (https://discord.com/developers/docs/resources/message#create-message).
 * - edit: https://discord.com/developers/docs/resources/message#edit-message;
 *   an archived thread (50083) is reopened (`PATCH /channels/{thread}
 *   {archived: false}`) and the edit sent once more.
 * - every create and edit carries `allowed_mentions: {parse: []}`: an edit
 *   without it re-parses mentions with the defaults.
 * An aborted call rejects with an `AbortError`.
 */
import { API, MessageFlags, type RESTPatchAPIChannelMessageJSONBody } from '@discordjs/core/http-only';
import { REST } from '@discordjs/rest';
import { waitMsForCall } from '../../budget/rate-limiter.js';
import type { PlatformCapabilities } from '../../registry/descriptor.js';
import type { SurfaceFrame } from '../../surfaces/frame.js';
import {
  type CallOpts,
  type ChatSurface,
  type EditRequest,
  type PostedMessage,
  type PostRequest,
  type ReactionRequest,
  SurfaceError,
  type SurfacePacing,
  type ThreadAnchor,
} from '../../surfaces/surface.js';
import {
  DiscordCode,
  DiscordRateLimitedError,
  DiscordThreadArchivedError,
  DiscordWritesStoppedError,
  discordCodeOf,
  toSurfaceError,
} from './errors.js';
import { channelOf, nonceFor, snowflake } from './ids.js';
import {
  createInvalidRequestGuard,
  createRateLimitTracker,
  type InvalidRequestGuard,
  type RateLimitTracker,
  routeParts,
} from './rate-limits.js';
import {
  type DiscordMessageBody,
  DiscordRenderError,
  type LogStyle,
  renderFrame,
  threadName,
} from './render.js';

/** Discord's limits and abilities (https://discord.com/developers/docs/resources/message). */
export const DISCORD_CAPABILITIES: Readonly<PlatformCapabilities> = {
  maxChars: 2000,
  maxTextElementChars: 4000,
  maxEditableAgeMs: 55 * 60_000,
  silentPosts: true,
  idempotentCreate: true,
  // Five action rows of five buttons (https://discord.com/developers/docs/components/reference#action-row).
  maxButtons: 25,
};

/** A thread started on the person's message stays open a day without activity (minutes). */
export const THREAD_AUTO_ARCHIVE_MINUTES = 1440;

const DEFAULT_TIMEOUT_MS = 15_000;

/** Channels and threads remembered (their space, whether a thread exists): the oldest are forgotten past this. */
const REMEMBERED_CHANNELS = 10_000;

/** Adds to an insertion-ordered map or set, forgetting the oldest entry past {@link REMEMBERED_CHANNELS}. */
function remember<K>(store: Map<K, string> | Set<K>, key: K, value?: string): void {
  store.delete(key);
  if (store instanceof Map) store.set(key, value!);
  else store.add(key);
  if (store.size > REMEMBERED_CHANNELS) store.delete(store.keys().next().value as K);
}

export interface DiscordSurfaceOptions {
  /** The bot token. */
  token: string;
  /** An emulator's origin (`turnlog emulate` prints it); absent → discord.com. */
  apiUrl?: string;
  /** `components` (default): the log as Components V2; `text`: plain content of at most 2,000 chars. */
  logStyle?: LogStyle;
  /** Per request; a request without an answer by then is `transient`. Default 15,000. */
  requestTimeoutMs?: number;
  /** Epoch ms, for the rate-limit state and the invalid-request window. Default `Date.now`. */
  now?: () => number;
  /** Requests per second in all. Default 50 (Discord's global limit for bots). */
  globalPerSecond?: number;
  /** Where the invalid-request guard stops writing (per space / in all, per 10 minutes). Default 1,000 / 5,000. */
  invalidRequests?: { spaceLimit?: number; globalLimit?: number };
}

export interface DiscordSurface extends ChatSurface {
  readonly capabilities: PlatformCapabilities;
  /** The rate-limit state read from Discord's headers: the budget asks it how long to wait. */
  readonly rateLimits: RateLimitTracker;
  readonly invalidRequests: InvalidRequestGuard;
  typing(req: { space: string; threadId?: string }, opts?: CallOpts): Promise<void>;
  /**
   * How long (ms) before this call would be admitted, by what Discord's
   * headers said and the global limit: what the budget asks before it
   * schedules a post, an edit or a typing indicator. 0: go.
   */
  waitMsFor(
    call: 'post' | 'edit' | 'typing',
    req: { space: string; threadId?: string; messageId?: string },
  ): number;
}

function abortError(): DOMException {
  return new DOMException('The Discord call was aborted', 'AbortError');
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw abortError();
}

interface Route {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  path: string;
}

export function createDiscordSurface(opts: DiscordSurfaceOptions): DiscordSurface {
  if (typeof opts.token !== 'string' || opts.token === '') {
    throw new SurfaceError('forbidden', 'the Discord surface needs a bot token (platforms.discord.token)');
  }
  const timeout = opts.requestTimeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!(timeout > 0)) {
    throw new RangeError(`createDiscordSurface: requestTimeoutMs must be positive, got ${timeout}`);
  }
  const now = opts.now ?? Date.now;
  const logStyle = opts.logStyle ?? 'components';
  const rest = new REST({
    version: '10',
    ...(opts.apiUrl === undefined ? {} : { api: `${opts.apiUrl.replace(/\/+$/, '')}/api` }),
    // Every 429 and 5xx reaches the budget: no queueing, no retrying inside the client.
    rejectOnRateLimit: () => true,
    retries: 0,
    // Retry-After as Discord sent it: the budget adds its own margin.
    offset: 0,
    // The global 50/s is paced by the rate-limit tracker on the injected clock; a second
    // limiter on the wall clock would refuse calls the budget was told it may make.
    globalRequestsPerSecond: Number.MAX_SAFE_INTEGER,
    timeout,
  }).setToken(opts.token);
  const api = new API(rest);
  const rateLimits = createRateLimitTracker({
    now,
    unansweredForMs: timeout,
    ...(opts.globalPerSecond === undefined ? {} : { globalPerSecond: opts.globalPerSecond }),
  });
  const invalidRequests = createInvalidRequestGuard({ now, ...opts.invalidRequests });
  /** Channel (or thread) id → the space it belongs to, so an answer's invalid request counts for its space. */
  const spaceOfChannel = new Map<string, string>();
  /** Threads known to exist (started or found by 160004): a later post goes straight in. */
  const knownThreads = new Set<string>();
  /** Channels where threads can't be started (DMs, forums: 50024): later posts go top level at once. */
  const threadless = new Set<string>();

  rest.on('response', (request, response) => {
    const route = `${request.method.toUpperCase()} ${request.path}`;
    rateLimits.onResponse(route, { status: response.status, headers: response.headers });
    const { major } = routeParts(route);
    invalidRequests.record(
      spaceOfChannel.get(major) ?? `discord:${major}`,
      response.status,
      response.headers.get('x-ratelimit-scope'),
    );
  });

  /** One API call for `space`: stopped when the guard or the headers say so, errors mapped, abort honoured. */
  async function call<T>(
    space: string,
    route: Route,
    what: string,
    signal: AbortSignal | undefined,
    run: () => Promise<T>,
  ): Promise<T> {
    throwIfAborted(signal);
    const key = `${route.method} ${route.path}`;
    if (route.method !== 'GET') {
      const verdict = invalidRequests.check(space);
      if (!verdict.ok)
        throw new DiscordWritesStoppedError(`${what}: ${verdict.reason}`, verdict.retryAfterMs);
    }
    const wait = rateLimits.waitMsFor(key);
    if (wait > 0) {
      throw new DiscordRateLimitedError(
        `${what}: Discord's rate-limit headers say wait ${wait} ms (${routeParts(key).template}); not sent`,
        wait,
        'user',
        false,
        undefined,
      );
    }
    const { major } = routeParts(key);
    if (major !== 'global') remember(spaceOfChannel, major, space);
    rateLimits.onRequest(key);
    try {
      return await run();
    } catch (error) {
      // The caller's abort, not a failure of Discord's (a timeout aborts the client's own signal).
      if (signal?.aborted) throw abortError();
      throw toSurfaceError(error, `${what} in ${space}`);
    }
  }

  const signalOpt = (signal: AbortSignal | undefined) => (signal ? { signal } : {});

  /** The frame as Discord's body; a frame Discord would refuse is the caller's `invalid` request. */
  function bodyOf(frame: SurfaceFrame): DiscordMessageBody {
    try {
      return renderFrame(frame, { logStyle });
    } catch (error) {
      if (error instanceof DiscordRenderError)
        throw new SurfaceError('invalid', error.message, { cause: error });
      throw error;
    }
  }

  /**
   * The thread channel a threaded post goes in, starting it on the person's
   * message when needed; undefined when the channel has no threads (the
   * post goes top level).
   */
  async function threadFor(
    space: string,
    channel: string,
    anchor: ThreadAnchor,
    title: string | undefined,
    signal: AbortSignal | undefined,
  ): Promise<string | undefined> {
    // A person's message inside a thread: the thread exists (its id is not the message's); post in it.
    const { rootMessageId, threadId: knownThread } = anchor;
    if (knownThread !== undefined && rootMessageId !== undefined && knownThread !== rootMessageId) {
      return snowflake(knownThread, 'thread');
    }
    // A Discord thread started from a message has the message's id.
    const root = anchor.rootMessageId ?? anchor.threadId;
    if (root === undefined) {
      throw new SurfaceError(
        'invalid',
        `thread anchor ${JSON.stringify(anchor)} names neither a message nor a thread`,
      );
    }
    const threadId = snowflake(root, 'thread root message');
    if (knownThreads.has(threadId)) return threadId;
    if (threadless.has(channel)) return undefined;
    try {
      await call(
        space,
        { method: 'POST', path: `/channels/${channel}/messages/${threadId}/threads` },
        'start thread',
        signal,
        () =>
          api.channels.createThread(
            channel,
            { name: threadName(title), auto_archive_duration: THREAD_AUTO_ARCHIVE_MINUTES },
            threadId,
            signalOpt(signal),
          ),
      );
    } catch (error) {
      const code = discordCodeOf((error as SurfaceError).details?.cause);
      if (code === DiscordCode.ThreadAlreadyExists) {
        remember(knownThreads, threadId);
        return threadId;
      }
      // No threads here (a DM, a forum or media channel), or the person's message is gone: top level.
      if (code === DiscordCode.WrongChannelType) {
        remember(threadless, channel);
        return undefined;
      }
      if (code === DiscordCode.UnknownMessage) {
        // An anchor that only names a thread may be one that exists without a starter message here.
        return anchor.rootMessageId === undefined ? threadId : undefined;
      }
      throw error;
    }
    remember(knownThreads, threadId);
    return threadId;
  }

  async function unarchive(space: string, thread: string, signal: AbortSignal | undefined): Promise<void> {
    await call(space, { method: 'PATCH', path: `/channels/${thread}` }, 'unarchive thread', signal, () =>
      api.channels.edit(thread, { archived: false }, signalOpt(signal)),
    );
  }

  /** The bot's own reaction (PUT / DELETE …/reactions/{emoji}/@me), in the message's channel (a thread is one). */
  async function ownReaction(
    kind: 'add' | 'remove',
    req: ReactionRequest,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    throwIfAborted(signal);
    const parent = channelOf(req.space);
    const channel = req.threadId === undefined ? parent : snowflake(req.threadId, 'thread');
    const messageId = snowflake(req.messageId, 'message');
    await call(
      req.space,
      {
        method: kind === 'add' ? 'PUT' : 'DELETE',
        path: `/channels/${channel}/messages/${messageId}/reactions/${encodeURIComponent(req.emoji)}/@me`,
      },
      `${kind} reaction ${req.emoji}`,
      signal,
      () =>
        kind === 'add'
          ? api.channels.addMessageReaction(channel, messageId, req.emoji, signalOpt(signal))
          : api.channels.deleteOwnMessageReaction(channel, messageId, req.emoji, signalOpt(signal)),
    );
  }

  const surface: DiscordSurface = {
    platform: 'discord',
    capabilities: { ...DISCORD_CAPABILITIES },
    rateLimits,
    invalidRequests,

    async post(req: PostRequest, callOpts?: CallOpts): Promise<PostedMessage> {
      const signal = callOpts?.signal;
      throwIfAborted(signal);
      const channel = channelOf(req.space);
      const body = bodyOf(req.frame);
      const title = req.frame.kind === 'log' ? req.frame.headline?.title : undefined;
      const threadId = req.thread
        ? await threadFor(req.space, channel, req.thread, title, signal)
        : undefined;
      const target = threadId ?? channel;
      const flags = body.flags | (req.silent ? MessageFlags.SuppressNotifications : 0);
      const message = await call(
        req.space,
        { method: 'POST', path: `/channels/${target}/messages` },
        'create message',
        signal,
        () =>
          api.channels.createMessage(
            target,
            {
              ...(body.content === null ? {} : { content: body.content }),
              ...(body.components.length > 0 ? { components: body.components } : {}),
              ...(flags === 0 ? {} : { flags }),
              allowed_mentions: { parse: [] },
              ...(req.clientId === undefined ? {} : { nonce: nonceFor(req.clientId), enforce_nonce: true }),
            },
            signalOpt(signal),
          ),
      );
      return { messageId: message.id, ...(threadId === undefined ? {} : { threadId }) };
    },

    async edit(req: EditRequest, callOpts?: CallOpts): Promise<void> {
      const signal = callOpts?.signal;
      throwIfAborted(signal);
      const parent = channelOf(req.space);
      // Discord edits address the channel the message is in: its thread, when it has one.
      const channel = req.threadId === undefined ? parent : snowflake(req.threadId, 'thread');
      const messageId = snowflake(req.messageId, 'message');
      const body = bodyOf(req.frame);
      const patch: RESTPatchAPIChannelMessageJSONBody = {
        // Components V2 needs content cleared (an upgrade from content must set it null).
        content: body.content,
        components: body.components,
        ...(body.flags === 0 ? {} : { flags: body.flags }),
        allowed_mentions: { parse: [] },
      };
      const send = () =>
        call(
          req.space,
          { method: 'PATCH', path: `/channels/${channel}/messages/${messageId}` },
          'edit message',
          signal,
          () => api.channels.editMessage(channel, messageId, patch, signalOpt(signal)),
        );
      try {
        await send();
      } catch (error) {
        if (discordCodeOf((error as SurfaceError).details?.cause) !== DiscordCode.ThreadArchived) throw error;
        if (req.threadId === undefined) throw error;
        try {
          await unarchive(req.space, channel, signal);
        } catch (unarchiveError) {
          const reason = (unarchiveError as Error).message;
          throw new DiscordThreadArchivedError(
            `edit message ${messageId} in ${req.space}: thread ${channel} is archived and could not be reopened (${reason}); a new message reopens it`,
            reason,
            unarchiveError,
          );
        }
        await send();
      }
    },

    async react(req, callOpts?: CallOpts): Promise<void> {
      const signal = callOpts?.signal;
      throwIfAborted(signal);
      const parent = channelOf(req.space);
      const channel = req.threadId === undefined ? parent : snowflake(req.threadId, 'thread');
      const messageId = snowflake(req.messageId, 'message');
      await call(
        req.space,
        {
          method: 'PUT',
          path: `/channels/${channel}/messages/${messageId}/reactions/${encodeURIComponent(req.emoji)}/@me`,
        },
        'add reaction',
        signal,
        () => api.channels.addMessageReaction(channel, messageId, req.emoji, signalOpt(signal)),
      );
    },

    // https://discord.com/developers/docs/resources/message#create-reaction and #delete-own-reaction
    reactions: {
      add: (req, callOpts) => ownReaction('add', req, callOpts?.signal),
      remove: (req, callOpts) => ownReaction('remove', req, callOpts?.signal),
    },

    // https://discord.com/developers/docs/resources/channel#trigger-typing-indicator
    async typing(req, callOpts?: CallOpts): Promise<void> {
      const signal = callOpts?.signal;
      throwIfAborted(signal);
      const parent = channelOf(req.space);
      const channel = req.threadId === undefined ? parent : snowflake(req.threadId, 'thread');
      await call(req.space, { method: 'POST', path: `/channels/${channel}/typing` }, 'typing', signal, () =>
        api.channels.showTyping(channel, signalOpt(signal)),
      );
    },

    waitMsFor(kind, req) {
      return waitMsForCall(rateLimits, { write: kind, ...req });
    },

    // The port's declared ability: through this surface's own `waitMsFor`, so a wrapper of it sees every call.
    get pacing() {
      return { waitMsFor: (kind, req) => this.waitMsFor(kind, req) } satisfies SurfacePacing;
    },

    // https://discord.com/developers/docs/resources/user#get-current-user
    async ready(): Promise<boolean> {
      try {
        await api.users.getCurrent({ signal: AbortSignal.timeout(timeout) });
        return true;
      } catch {
        return false;
      }
    },
  };
  return surface;
}
