/**
 * The contract between the emulator core and a platform module (gchat,
 * slack, discord). The core owns the HTTP server, the inspection API, the
 * call log, the message store, faults and rate limits; the platform module
 * only maps its REST routes onto the store and shapes its answers.
 *
 * A request flows: body parsed (JSON or form) → `match` (which op, which
 * space) → faults → rate limits → `route.handle` → recorded. Faults and
 * limits run before the handler, but their answer's shape comes from
 * `errorResponse`, because Google, Slack and Discord word errors differently.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { CallOp, Platform } from '../types.js';
import type { MessageContentView } from './card-view.js';
import type { FaultTarget } from './faults.js';
import type { MessageStore, StoredMessage } from './message-store.js';
import type { RateLimitStatus } from './rate-limiter.js';
import type { CallDescription } from './recorder.js';

/** A platform request as the handler sees it. */
export interface EmulatorRequest {
  /** Upper case: `GET`, `POST`, `PATCH`, … */
  method: string;
  /** The URL path as sent (still percent-encoded, e.g. a Discord emoji), without the query. */
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /**
   * Parsed body: the JSON value for `application/json`, an object of string
   * fields for `application/x-www-form-urlencoded` (Slack's web-api default;
   * nested arguments arrive JSON-encoded in a field), undefined when empty or
   * of another type.
   */
  body: unknown;
  rawBody: string;
}

/** An HTTP answer. `body` undefined → no body (e.g. 204); a string is sent as is; anything else as JSON. */
export interface HttpAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

/** What gets recorded about a call besides method, path and status (see RecordedCall). */
export type CallNotes = Partial<Omit<CallDescription, 'method' | 'path' | 'status'>>;

/** The handler's answer, plus what it learned for the record (the new message's id, `notifies`, `mentions`, …). */
export interface PlatformReply extends HttpAnswer {
  record?: CallNotes;
}

export interface RouteContext {
  /** The bucket with the fewest calls left after this one, for `X-RateLimit-*` headers; null when no limit applies. */
  rateLimit: RateLimitStatus | null;
}

/**
 * A matched platform route: the call's description (used for the record and
 * for matching faults and limits, so a rejected call is still recorded with
 * its op, space and target) and the code that runs it when admitted.
 */
export interface PlatformRoute extends CallNotes {
  op: CallOp;
  /** The platform's own space id (`spaces/A`, a channel id); null when the call has none. Counted by `space` limits. */
  space: string | null;
  /** Who is calling, for `app` limits; default the Authorization header. */
  app?: string;
  /**
   * False: no rate limit counts or refuses this call (faults still apply).
   * For calls outside every limit the platform publishes, e.g. Google Chat
   * reads, whose `*` write limits must not count them. Default true.
   */
  rateLimited?: boolean;
  /**
   * The space `space` limits count this call in, when the platform counts it
   * elsewhere than the conversation it is recorded under: a Discord thread is
   * a channel with its own buckets, while its messages belong to the parent
   * channel's conversation. Default `space`.
   */
  rateLimitSpace?: string | null;
  handle(ctx: RouteContext): PlatformReply;
}

/** Why the core needs an error answer in the platform's own shape. */
export type ErrorKind = 'fault' | 'rate-limited' | 'unknown-route' | 'bad-request' | 'internal';

/** `POST /_emulator/inbound`: a person posts a message. */
export interface InboundInput {
  /** The platform's own space id. */
  space: string;
  text: string;
  /** Post into this thread; absent → a new top-level message (a new thread). */
  threadId?: string;
  /** The person's id; the platform picks a default. */
  user?: string;
}

export interface InboundResult {
  /** The message id in the platform's own format. */
  messageId: string;
  /** The thread a reply to it would go in (the platform's own thread id: GChat thread name, Slack ts, Discord message id). */
  threadId: string;
}

/**
 * `POST /_emulator/app`: where the app's events go, the platform's way:
 * to `url` (HTTP), or — Slack's Socket Mode — over a WebSocket the app
 * opens with `appToken`. Exactly one of the two.
 */
export interface AppRegistration {
  /** The app's events endpoint (turnlog serve's `/v1/platforms/<id>/events`). */
  url?: string;
  /** Slack: the signing secret; Google Chat: the JWT audience. */
  secret?: string;
  /** Slack Socket Mode: the app-level token (`xapp-…`) its client opens connections with. */
  appToken?: string;
}

/** `POST /_emulator/click`: a person presses a button. */
export interface ClickInput {
  /** The message the button is on (the platform's own id). */
  messageId: string;
  /** The button's action id, or its value. */
  action: string;
  /** The person's id; the platform picks a default. */
  user?: string;
}

export interface ClickResult {
  /** The app (or bot) received the interaction and answered it. */
  delivered: boolean;
  /** The app's HTTP status (or the interaction callback's), 0 when nothing answered. */
  status: number;
  /** What the app answered the person, when the platform shows it (an ephemeral reply). */
  reply?: string;
}

/** What every handler call can reach: the shared store and clock. */
export interface HandlerContext {
  readonly platform: Platform;
  readonly store: MessageStore;
  now(): number;
}

export interface PlatformHandler {
  /** Which route a request is; null → 404 (recorded as op `other`). Must not change state: the call may still be refused. */
  match(req: EmulatorRequest, ctx: HandlerContext): PlatformRoute | null;
  /** Creates a person's message in the store. Throw EmulatorInputError for bad input (unknown thread …). */
  inbound(input: InboundInput, ctx: HandlerContext): InboundResult;
  /**
   * The platform's error answer: a fault (`status` from the rule), a 429 over
   * a limit (`retryAfterS` exact, unrounded; `rateLimit` the refusing
   * bucket), an unknown route (404), an unparsable body (400/413) or a
   * handler crash (500). `call` is the matched call (for a fault or a 429),
   * for platforms whose error depends on the method (Slack answers a 404
   * fault on `chat.update` with `message_not_found`, on `chat.postMessage`
   * with `channel_not_found`).
   */
  errorResponse(
    status: number,
    retryAfterS: number | undefined,
    kind: ErrorKind,
    rateLimit?: RateLimitStatus,
    call?: FaultTarget,
  ): HttpAnswer;
  /** Forgets platform-only state on `POST /_emulator/reset` (the core clears its own). */
  reset?(): void;
  /**
   * What a person sees of a message beyond its text (a card's title and
   * text, its buttons, the fallback text), read from the platform's payload
   * in `message.data`; undefined for a plain message. Shown by `GET /_emulator/messages`.
   */
  messageContent?(message: StoredMessage): MessageContentView | undefined;
  /** `POST /_emulator/app` (Slack, Google Chat): keeps where to deliver this app's events. */
  registerApp?(input: AppRegistration, ctx: HandlerContext): void;
  /**
   * Delivers a person's message just stored by `inbound` to the registered app
   * (or connected bot), the platform's way; resolves once it was answered
   * (or nothing is registered). Called by `POST /_emulator/inbound`.
   */
  deliverInbound?(message: StoredMessage, ctx: HandlerContext): Promise<void>;
  /** `POST /_emulator/click`: a person presses a button; delivered the platform's way. */
  click?(input: ClickInput, ctx: HandlerContext): Promise<ClickResult>;
  /** More `/_emulator/<name>` endpoints of this platform, by `"<METHOD> <name>"` (e.g. `"GET jwks"`). */
  endpoints?: Readonly<
    Record<string, (req: EmulatorRequest, ctx: HandlerContext) => HttpAnswer | Promise<HttpAnswer>>
  >;
  /** Called once the emulator listens, e.g. to serve a WebSocket gateway on the same server. */
  attach?(server: import('node:http').Server, ctx: HandlerContext & { url: string }): void;
  /** Called when the emulator closes (close gateway connections). */
  detach?(): Promise<void>;
}
