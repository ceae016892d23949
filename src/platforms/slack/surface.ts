/**
 * The Slack surface: the ChatSurface port over @slack/web-api's WebClient.
 *
 * - post: `chat.postMessage` (https://docs.slack.dev/reference/methods/chat.postMessage);
 *   a threaded post names the person's message as `thread_ts`.
 * - edit: `chat.update` (https://docs.slack.dev/reference/methods/chat.update).
 * - react: `reactions.add` (https://docs.slack.dev/reference/methods/reactions.add).
 * - setStatus: `assistant.threads.setStatus` (assistant-status.ts).
 * A request's `frame` is rendered as Block Kit (render.ts). When Slack refuses the blocks
 * the same frame is sent again: as the rich_text card when the plan style was
 * refused (`invalid_blocks`; and from then on); a card refused as too long
 * (`msg_too_long`, `msg_blocks_too_long`) at half the characters, the oldest
 * lines dropped; and when that is refused too, or the blocks are malformed,
 * as text only.
 *
 * The client never retries and never queues behind a 429
 * (`rejectRateLimitedCalls`, `retryConfig: {retries: 0}`): every rate limit
 * reaches the budget as a `rate-limited` SurfaceError with `retryAfterMs`.
 *
 * Idempotency: Slack has no idempotent create (no client message id), so
 * `capabilities.idempotentCreate` is false and the runtime's `postOnce`
 * (src/runtime/posting.ts) covers it: it looks a post's `clientId` up in the
 * store before posting and records the posted `ts` after, so a retried or
 * restarted turn reuses the message instead of posting a second one. A post
 * whose answer is lost in flight (Slack made the message, the store never
 * heard) is found again by its client id, carried in the message's
 * metadata, before anything is posted anew (reconcile.ts).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { type Logger, LogLevel, WebClient } from '@slack/web-api';
import type { SurfaceFrame } from '../../surfaces/frame.js';
import {
  type CallOpts,
  type ChatSurface,
  type EditRequest,
  isSurfaceError,
  type PostedMessage,
  type PostRequest,
  type ReactionRequest,
  type AssistantStatus as StatusAbility,
  type SurfaceCapabilities,
  SurfaceError,
} from '../../surfaces/surface.js';
import { type AssistantStatus, createAssistantStatus } from './assistant-status.js';
import { REFUSED_CONTENT_CODES, TOO_LONG_CODES, toSurfaceError } from './errors.js';
import { createSlackRateLimiter, type SlackRateLimiter, slackRateKey } from './rate-limits.js';
import { findPosted, isUncertain, metadataFor } from './reconcile.js';
import {
  renderFrame,
  renderTextOnly,
  type SlackLogStyle,
  type SlackMessage,
  type SlackRenderOptions,
} from './render.js';

export const SLACK_SURFACE_CAPABILITIES: Readonly<SurfaceCapabilities> = {
  maxChars: 40_000,
  silentPosts: false,
  idempotentCreate: false,
  // The 👀 card within a second of the turn starting (render.ts draws an empty live log as it).
  ackCard: true,
};

/** The channel part of a `slack:<channel id>` space: C… public, G… private, D… a DM. */
export const SLACK_CHANNEL_PATTERN = /^[CGD][A-Z0-9]{2,20}$/;

export interface SlackSurfaceOptions {
  /** Bot token (`xoxb-…`). */
  token: string;
  /** An emulator's origin (`turnlog emulate` prints it); absent → `https://slack.com`. */
  apiUrl?: string;
  /** Per request; a request without an answer by then is `transient`. Default 30 000. */
  requestTimeoutMs?: number;
  /** `card` (rich_text, default) or `plan` (a plan block of task cards). */
  logStyle?: SlackLogStyle;
  /** The runtime clock (assistant status refresh). Default `Date.now`. */
  now?: () => number;
  /** The web-api client's logger. Default: silent (errors reach the caller as SurfaceErrors). */
  logger?: Logger;
  /** Instead of the global fetch (tests). */
  fetch?: typeof fetch;
}

export interface SlackSurface extends ChatSurface {
  readonly platform: 'slack';
  setStatus(req: { space: string; threadId: string; status: string }, opts?: CallOpts): Promise<void>;
  /** Whether `setStatus(req)` would call Slack now (a new status, or a refresh due); the runtime books those. */
  statusDue(req: { space: string; threadId: string; status: string }): boolean;
  /** The assistant statuses to re-send now, before Slack's two-minute expiry. */
  statusRefreshDue(): { space: string; threadId: string; status: string }[];
  /** Why this workspace shows no assistant status, once it said so. */
  readonly statusUnsupported: string | undefined;
  /** The client (for `auth.test` and the Bolt app). */
  readonly client: WebClient;
  /** What Slack's 429s said, per method (the budget's RateLimiter). */
  readonly rateLimiter: SlackRateLimiter;
}

const DEFAULT_TIMEOUT_MS = 30_000;
/** A card Slack refused as too long is sent once more at half Slack's 40,000, before text only. */
const SMALLER_CARD_CHARS = 20_000;
/** Spinner positions remembered per live card; an abandoned card's entry goes with the oldest. */
const MAX_SPINNERS = 10_000;

const silentLogger: Logger = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
  setLevel: () => {},
  getLevel: () => LogLevel.ERROR,
  setName: () => {},
};

/** A few glyphs the runtime may name by character; Slack's reactions take names. */
const EMOJI_NAMES: Readonly<Record<string, string>> = {
  '👀': 'eyes',
  '✅': 'white_check_mark',
  '❌': 'x',
  '⏹': 'black_square_for_stop',
  '⏹️': 'black_square_for_stop',
  '⛔': 'no_entry',
  '⚠️': 'warning',
  '👍': '+1',
  '🔐': 'closed_lock_with_key',
};
const EMOJI_NAME = /^[a-z0-9_+'-]+(?:::skin-tone-[2-6])?$/;

export function slackApiUrlOf(apiUrl: string | undefined): string {
  return apiUrl === undefined ? 'https://slack.com/api/' : new URL('/api/', apiUrl).toString();
}

/** `slack:C0123` → `C0123`, or `invalid` naming the expected form. */
export function slackChannelOf(space: string): string {
  const channel = space.startsWith('slack:') ? space.slice('slack:'.length) : '';
  if (!SLACK_CHANNEL_PATTERN.test(channel)) {
    throw new SurfaceError(
      'invalid',
      `space ${JSON.stringify(space)} is not a Slack space: expected slack:<channel id>, e.g. slack:C0123ABCD (C… channel, G… private, D… DM)`,
    );
  }
  return channel;
}

function abortError(): DOMException {
  return new DOMException('The Slack call was aborted', 'AbortError');
}

export function createSlackSurface(opts: SlackSurfaceOptions): SlackSurface {
  if (typeof opts.token !== 'string' || opts.token === '') {
    throw new TypeError('createSlackSurface: token is required (platforms.slack.token)');
  }
  const timeout = opts.requestTimeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!(timeout > 0)) {
    throw new RangeError(`createSlackSurface: requestTimeoutMs must be positive, got ${timeout}`);
  }
  const now = opts.now ?? Date.now;
  const baseFetch = opts.fetch ?? globalThis.fetch;
  // The client has no per-call signal: the call's signal rides in async context to the fetch it makes.
  const callSignal = new AsyncLocalStorage<AbortSignal | undefined>();
  const fetchWithSignal: typeof fetch = (input, init) => {
    const signal = callSignal.getStore();
    const signals = [init?.signal, signal].filter((s): s is AbortSignal => s != null);
    const merged = signals.length > 1 ? AbortSignal.any(signals) : signals[0];
    return baseFetch(input, { ...init, ...(merged ? { signal: merged } : {}) });
  };
  const client = new WebClient(opts.token, {
    slackApiUrl: slackApiUrlOf(opts.apiUrl),
    rejectRateLimitedCalls: true,
    retryConfig: { retries: 0 },
    timeout,
    logger: opts.logger ?? silentLogger,
    fetch: fetchWithSignal,
  });
  // A workspace that refuses `plan` blocks (not rolled out there) gets the rich_text card from then on.
  let logStyle: SlackLogStyle = opts.logStyle ?? 'card';
  const renderOpts = (step: number): SlackRenderOptions => ({ spinnerStep: step, logStyle });
  const spinners = new Map<string, number>();
  const rateLimiter = createSlackRateLimiter({ now });
  /** Client ids whose create had an uncertain answer not yet checked (the next create with it looks first). */
  const uncertain = new Set<string>();
  const rememberUncertain = (clientId: string) => {
    uncertain.add(clientId);
    if (uncertain.size > MAX_SPINNERS) uncertain.delete(uncertain.values().next().value!);
  };

  /** One API call: abort honoured (also while queued), errors mapped to the port's taxonomy. */
  async function call<T>(
    /** The rate-limit key: the method, and the channel for posts (slackRateKey). */
    key: string,
    what: string,
    signal: AbortSignal | undefined,
    run: () => Promise<T>,
  ): Promise<T> {
    if (signal?.aborted) throw abortError();
    let onAbort: (() => void) | undefined;
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(abortError());
      signal?.addEventListener('abort', onAbort, { once: true });
    });
    try {
      const result = await Promise.race([callSignal.run(signal, run), aborted]);
      rateLimiter.onResponse(key, { status: 200, headers: {} });
      return result;
    } catch (error) {
      if (signal?.aborted) throw abortError();
      const mapped = toSurfaceError(error, what);
      // Slack holds the method (or the channel's posts) for the Retry-After: the limiter remembers it.
      if (mapped.kind === 'rate-limited')
        rateLimiter.onResponse(key, {
          status: 429,
          headers: { 'retry-after': String((mapped.retryAfterMs ?? 1000) / 1000) },
        });
      throw mapped;
    } finally {
      if (onAbort) signal?.removeEventListener('abort', onAbort);
    }
  }

  /**
   * Sends the frame. When Slack refuses its blocks (`invalid_blocks`,
   * `msg_too_long`): a plan-style log is sent once as the rich_text card and
   * the surface keeps that style; anything else is sent once as text only.
   * Each retry is one more write; a refusal never repeats on the next frame.
   */
  async function sendFrame<T>(
    req: PostRequest | EditRequest,
    step: number,
    send: (message: SlackMessage) => Promise<T>,
  ): Promise<T> {
    const frame = req.frame;
    const message = renderFrame(frame, renderOpts(step));
    try {
      return await send(message);
    } catch (error) {
      const code = refusedContentCode(error, message);
      if (code === undefined) throw error;
      const tooLong = TOO_LONG_CODES.has(code);
      if (frame.kind === 'log' && logStyle === 'plan' && !tooLong) {
        logStyle = 'card';
        return sendFrame(req, step, send);
      }
      if (frame.kind === 'log' && tooLong) {
        // Slack measured it longer than the renderer did: half the characters (the oldest lines go), once.
        const smaller = renderFrame(frame, { ...renderOpts(step), maxMessageChars: SMALLER_CARD_CHARS });
        try {
          return await send(smaller);
        } catch (again) {
          if (refusedContentCode(again, smaller) === undefined) throw again;
        }
      }
      return send(renderTextOnly(frame, renderOpts(step)));
    }
  }

  /** The Slack code of a refusal of the message's blocks (too long, malformed); undefined for anything else. */
  function refusedContentCode(error: unknown, message: SlackMessage): string | undefined {
    const code = isSurfaceError(error) ? error.details.code : undefined;
    return message.blocks !== undefined && typeof code === 'string' && REFUSED_CONTENT_CODES.has(code)
      ? code
      : undefined;
  }

  function nextSpinner(messageId: string, frame: SurfaceFrame | undefined): number {
    const live = frame?.kind === 'log' && frame.headline?.state === 'running';
    if (!live) {
      spinners.delete(messageId);
      return 0;
    }
    const step = (spinners.get(messageId) ?? 0) + 1;
    spinners.delete(messageId);
    spinners.set(messageId, step);
    if (spinners.size > MAX_SPINNERS) spinners.delete(spinners.keys().next().value!);
    return step;
  }

  /** One of the app's own reactions, by unicode emoji (Slack's name for it): already there, or already gone, is done. */
  async function ownReaction(
    method: 'reactions.add' | 'reactions.remove',
    req: ReactionRequest,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    const channel = slackChannelOf(req.space);
    const name = EMOJI_NAMES[req.emoji];
    if (name === undefined) {
      throw new SurfaceError(
        'invalid',
        `cannot react ${JSON.stringify(req.emoji)}: no Slack name known for it`,
      );
    }
    try {
      await call(method, `${method} ${name} on ${req.messageId} in ${channel}`, signal, () =>
        method === 'reactions.add'
          ? client.reactions.add({ channel, timestamp: req.messageId, name })
          : client.reactions.remove({ channel, timestamp: req.messageId, name }),
      );
    } catch (error) {
      const code = isSurfaceError(error) ? error.details.code : undefined;
      if (code === (method === 'reactions.add' ? 'already_reacted' : 'no_reaction')) return;
      throw error;
    }
  }

  const status: AssistantStatus = createAssistantStatus({
    now,
    send: ({ channel, threadTs, status: text }, signal) =>
      call('assistant.threads.setStatus', `assistant.threads.setStatus in ${channel}`, signal, async () => {
        await client.assistant.threads.setStatus({ channel_id: channel, thread_ts: threadTs, status: text });
      }),
  });

  return {
    platform: 'slack',
    capabilities: { ...SLACK_SURFACE_CAPABILITIES },
    client,
    rateLimiter,

    async post(req: PostRequest, callOpts?: CallOpts): Promise<PostedMessage> {
      const signal = callOpts?.signal;
      if (signal?.aborted) throw abortError();
      const channel = slackChannelOf(req.space);
      const threadTs = req.thread?.threadId ?? req.thread?.rootMessageId;
      const { clientId } = req;
      // An earlier create with this client id had an uncertain answer that could not be checked: look first.
      if (clientId !== undefined && uncertain.has(clientId)) {
        const found = await call(
          slackRateKey(threadTs === undefined ? 'conversations.history' : 'conversations.replies', channel),
          `find the post ${clientId} in ${channel}`,
          signal,
          () => findPosted(client, channel, threadTs, clientId),
        );
        uncertain.delete(clientId);
        if (found !== undefined) return { messageId: found, threadId: threadTs ?? found };
      }
      let posted: Awaited<ReturnType<typeof client.chat.postMessage>>;
      try {
        posted = await sendFrame(req, 0, (content) =>
          call(slackRateKey('chat.postMessage', channel), `chat.postMessage in ${channel}`, signal, () =>
            client.chat.postMessage({
              channel,
              text: content.text,
              ...(content.blocks ? { blocks: content.blocks } : {}),
              ...(threadTs === undefined ? {} : { thread_ts: threadTs }),
              // A log line that names a URL must not grow a preview under the card.
              unfurl_links: false,
              unfurl_media: false,
              // Finds the message again when Slack's answer is lost (reconcile.ts).
              ...(clientId === undefined ? {} : { metadata: metadataFor(clientId) }),
            }),
          ),
        );
      } catch (error) {
        if (clientId === undefined || !isUncertain(error)) throw error;
        // The message may exist: adopt it rather than post a second one.
        const found = await call(
          slackRateKey(threadTs === undefined ? 'conversations.history' : 'conversations.replies', channel),
          `find the post ${clientId} in ${channel}`,
          signal,
          () => findPosted(client, channel, threadTs, clientId),
        ).catch(() => {
          rememberUncertain(clientId);
          return undefined;
        });
        if (found === undefined) throw error;
        return { messageId: found, threadId: threadTs ?? found };
      }
      const ts = posted.ts;
      if (typeof ts !== 'string' || ts === '') {
        throw new SurfaceError('transient', `chat.postMessage in ${channel}: Slack answered without a ts`);
      }
      if (req.frame?.kind === 'log' && req.frame.headline?.state === 'running') spinners.set(ts, 0);
      // On Slack a thread is its root's ts: a top-level post roots the thread later posts reply in.
      return { messageId: ts, threadId: threadTs ?? ts };
    },

    async edit(req: EditRequest, callOpts?: CallOpts): Promise<void> {
      const signal = callOpts?.signal;
      if (signal?.aborted) throw abortError();
      const channel = slackChannelOf(req.space);
      await sendFrame(req, nextSpinner(req.messageId, req.frame), (content) =>
        call('chat.update', `chat.update of ${req.messageId} in ${channel}`, signal, () =>
          client.chat.update({
            channel,
            ts: req.messageId,
            text: content.text,
            // An empty list removes the blocks a previous frame had: a text-only frame replaces the card.
            blocks: content.blocks ?? [],
          }),
        ),
      );
    },

    async react(req, callOpts?: CallOpts): Promise<void> {
      const signal = callOpts?.signal;
      if (signal?.aborted) throw abortError();
      const channel = slackChannelOf(req.space);
      const name = EMOJI_NAMES[req.emoji] ?? req.emoji.replace(/^:|:$/g, '');
      if (!EMOJI_NAME.test(name)) {
        throw new SurfaceError(
          'invalid',
          `cannot react ${JSON.stringify(req.emoji)}: Slack reactions take an emoji name such as "eyes" or ":white_check_mark:"`,
        );
      }
      await call('reactions.add', `reactions.add to ${req.messageId} in ${channel}`, signal, () =>
        client.reactions.add({ channel, timestamp: req.messageId, name }),
      );
    },

    /** reactions.add / reactions.remove, each its own method (and rate-limit key): already there or gone is done. */
    reactions: {
      add: (req, callOpts) => ownReaction('reactions.add', req, callOpts?.signal),
      remove: (req, callOpts) => ownReaction('reactions.remove', req, callOpts?.signal),
    },

    async setStatus(req, callOpts?: CallOpts): Promise<void> {
      const channel = slackChannelOf(req.space);
      await status.set({ channel, threadTs: req.threadId, status: req.status }, callOpts?.signal);
    },

    statusDue(req): boolean {
      return status.due({ channel: slackChannelOf(req.space), threadTs: req.threadId, status: req.status });
    },

    statusRefreshDue() {
      return status
        .dueForRefresh()
        .map((due) => ({ space: `slack:${due.channel}`, threadId: due.threadTs, status: due.status }));
    },

    get statusUnsupported() {
      return status.unsupported;
    },

    // The port's declared ability: through this surface's own methods, so a wrapper of them (a call counter) sees every call.
    get assistantStatus() {
      const self = this;
      return {
        set: (req, opts) => self.setStatus(req, opts),
        due: (req) => self.statusDue(req),
        get unsupported() {
          return self.statusUnsupported;
        },
      } satisfies StatusAbility;
    },

    async ready(): Promise<boolean> {
      try {
        await call('auth.test', 'auth.test', AbortSignal.timeout(timeout), () => client.auth.test());
        return true;
      } catch {
        return false;
      }
    },
  };
}
