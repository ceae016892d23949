/**
 * The ChatSurface port: the only code that talks to a platform implements it.
 * Everything the runtime needs from Google Chat, Slack, Discord or the memory
 * surface goes through these calls, with errors normalised to one taxonomy.
 * Requests carry a structured frame (src/surfaces/frame.ts): the runtime says
 * what a message shows, each platform renders it in its own idiom.
 */
import type { SurfaceFrame } from './frame.js';

export type SurfaceErrorKind = 'not-found' | 'rate-limited' | 'transient' | 'forbidden' | 'invalid';

export class SurfaceError extends Error {
  override readonly name = 'SurfaceError';
  constructor(
    readonly kind: SurfaceErrorKind,
    message: string,
    readonly details: {
      retryAfterMs?: number;
      status?: number;
      code?: string | number;
      cause?: unknown;
    } = {},
  ) {
    super(message);
  }
  get retryAfterMs(): number | undefined {
    return this.details.retryAfterMs;
  }
}

export function isSurfaceError(e: unknown): e is SurfaceError {
  return (
    e instanceof SurfaceError ||
    (typeof e === 'object' && e !== null && (e as { name?: unknown }).name === 'SurfaceError')
  );
}

export interface SurfaceCapabilities {
  /** Longest message text the platform accepts (characters). */
  maxChars: number;
  /** Can a post be sent without notifying (Discord SUPPRESS_NOTIFICATIONS)? */
  silentPosts: boolean;
  /** Does a create with the same `clientId` return the existing message (Google Chat `requestId`)? */
  idempotentCreate: boolean;
  /** Posts a turn's (still empty) log as soon as the turn starts, as an ack card (Slack's 👀). Default false. */
  ackCard?: boolean;
}

/** Where a thread hangs: the user's message and, when known, the platform's thread id. */
export interface ThreadAnchor {
  /** Platform id of the message the thread hangs off (GChat message name, Slack ts, Discord message id). */
  rootMessageId?: string;
  /** Platform thread id when known (GChat thread name, Slack thread_ts, Discord thread channel id). */
  threadId?: string;
}

export interface PostRequest {
  /** Platform-prefixed space (`gchat:spaces/A`). */
  space: string;
  /** What the message shows (log lines, a card, prose); the platform's renderer decides how. */
  frame: SurfaceFrame;
  /** Absent → top level. */
  thread?: ThreadAnchor;
  /** Post without notifying, where the platform can. */
  silent?: boolean;
  /** Deterministic id (turn id + ordinal) so a retried create never duplicates. */
  clientId?: string;
}

export interface PostedMessage {
  messageId: string;
  /** The thread the message landed in, when threaded (for later posts). */
  threadId?: string;
}

export interface EditRequest {
  space: string;
  messageId: string;
  /** What the message shows from now on. */
  frame: SurfaceFrame;
  /** Thread the message is in (Discord edits address the thread channel). */
  threadId?: string;
}

export interface CallOpts {
  signal?: AbortSignal;
}

export interface ChatSurface {
  /** The platform id (the space prefix it serves: `gchat`, `slack`, `discord`, …). */
  readonly platform: string;
  readonly capabilities: SurfaceCapabilities;
  post(req: PostRequest, opts?: CallOpts): Promise<PostedMessage>;
  edit(req: EditRequest, opts?: CallOpts): Promise<void>;
  react(
    req: { space: string; messageId: string; emoji: string; threadId?: string },
    opts?: CallOpts,
  ): Promise<void>;
  /** Shows "typing…" in the space (or thread) for a few seconds, where the platform has it (Discord). */
  typing?(req: TypingRequest, opts?: CallOpts): Promise<void>;
  /** Is the surface configured and reachable (for `/healthz`)? */
  ready?(): Promise<boolean>;
  /** The platform tells, from its own rate-limit answers, how long a call should wait (Discord's headers). */
  readonly pacing?: SurfacePacing;
  /** The platform's own "working on it" line under a thread (Slack's assistant status). */
  readonly assistantStatus?: AssistantStatus;
  /**
   * The app's own reactions on a message, by unicode emoji (issue 26: 👀 on a
   * turn's root, then ✅ / ❌ / ⏹️), each platform naming them its own way.
   * Absent where the platform has none the app may add.
   */
  readonly reactions?: MessageReactions;
}

/** One of the app's reactions on a message: `emoji` is the unicode character (`👀`), on every platform. */
export interface ReactionRequest {
  space: string;
  messageId: string;
  emoji: string;
  /** The thread the message is in, where the platform addresses it there (Discord: a thread is a channel). */
  threadId?: string;
}

/**
 * The app's own reactions. Adding one that is already there and removing one
 * that is not both succeed (a retry is harmless); a message the app may not
 * react to is `forbidden` or `not-found`.
 */
export interface MessageReactions {
  add(req: ReactionRequest, opts?: CallOpts): Promise<void>;
  remove(req: ReactionRequest, opts?: CallOpts): Promise<void>;
}

/** Where a typing indicator shows: a thread, or the space. */
export interface TypingRequest {
  space: string;
  threadId?: string;
}

/** The calls a surface paces itself. */
export type PacedCall = 'post' | 'edit' | 'typing';

/**
 * A surface that knows, from its platform's own rate-limit answers (Discord's
 * `X-RateLimit-*` headers), how long before a call would be admitted.
 */
export interface SurfacePacing {
  /** Ms before `call` would be admitted; 0 (or less) to go now. */
  waitMsFor(call: PacedCall, req: { space: string; threadId?: string; messageId?: string }): number;
}

/** One thread's status line; `status: ''` clears it. */
export interface StatusRequest {
  space: string;
  threadId: string;
  status: string;
}

/** A thread status the platform keeps apart from the messages (Slack's `assistant.threads.setStatus`). */
export interface AssistantStatus {
  set(req: StatusRequest, opts?: CallOpts): Promise<void>;
  /** Whether `set(req)` would call the platform now (a new status, or a refresh due): only those are booked. */
  due(req: StatusRequest): boolean;
  /** Why this workspace shows no status, once it said so (then nothing is booked for it). */
  readonly unsupported: string | undefined;
}
