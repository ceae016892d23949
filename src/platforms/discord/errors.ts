/**
 * @discordjs/rest errors → the port's taxonomy
 * (https://discord.com/developers/docs/topics/opcodes-and-status-codes#json).
 *
 * - 10008 Unknown Message / 10003 Unknown Channel / 404 → `not-found`;
 * - 429 (a RateLimitError, thrown because `rejectOnRateLimit` is set, either
 *   for Discord's answer or for the client's own "this bucket is empty") →
 *   `rate-limited` with `retryAfterMs`; the scope (`user`, `global`,
 *   `shared`) is kept, because shared-scope 429s are not invalid requests;
 * - 30046 (too many edits to messages older than an hour) →
 *   {@link DiscordEditWindowError}: `not-found`, since the message can no
 *   longer be edited and the turn's answer to not-found is a fresh message —
 *   the rollover Discord asks for;
 * - 50083 (the thread is archived) → {@link DiscordThreadArchivedError} once
 *   unarchiving failed: `not-found` too, since a new message in an archived
 *   thread reopens it;
 * - 401 / 403 (50001 Missing Access, 50013 Missing Permissions) → `forbidden`;
 * - other 4xx (50035 Invalid Form Body …) → `invalid`;
 * - 5xx, a timeout, no answer → `transient`.
 * The caller's abort is not mapped: it stays an `AbortError`.
 */
import { DiscordAPIError, HTTPError, RateLimitError } from '@discordjs/rest';
import { RateLimitedError } from '../../budget/rate-limiter.js';
import { SurfaceError } from '../../surfaces/surface.js';

/** Discord's JSON error codes the surface acts on. */
export const DiscordCode = {
  UnknownChannel: 10003,
  UnknownMessage: 10008,
  EditWindowClosed: 30046,
  MissingAccess: 50001,
  MissingPermissions: 50013,
  WrongChannelType: 50024,
  InvalidFormBody: 50035,
  ThreadArchived: 50083,
  ThreadAlreadyExists: 160004,
} as const;

export type RateLimitScope = 'user' | 'global' | 'shared';

/** An edit Discord refuses because the message is over an hour old (30046): roll the log over to a new message. */
export class DiscordEditWindowError extends SurfaceError {
  constructor(message: string, cause: unknown) {
    super('not-found', message, { status: 400, code: 'edit-window-closed', cause });
  }
}

/** An edit in an archived thread (50083) that unarchiving could not fix; a new message in the thread reopens it. */
export class DiscordThreadArchivedError extends SurfaceError {
  constructor(
    message: string,
    readonly reason: string,
    cause: unknown,
  ) {
    super('not-found', message, { status: 400, code: 'thread-archived', cause });
  }
}

/** Writes to a space stopped by the invalid-request guard (rate-limits.ts), with the reason. */
export class DiscordWritesStoppedError extends SurfaceError {
  constructor(message: string, retryAfterMs: number) {
    super('forbidden', message, { code: 'invalid-request-limit', retryAfterMs });
  }
}

/** A 429 (Discord's or the client's own), with what the invalid-request guard needs to know. */
export class DiscordRateLimitedError extends RateLimitedError {
  constructor(
    message: string,
    retryAfterMs: number,
    readonly scope: RateLimitScope,
    readonly global: boolean,
    cause: unknown,
  ) {
    super(message, retryAfterMs, { status: 429, code: scope, cause });
  }
}

/** The JSON error code of a Discord API error (0 when the answer had none). */
export function discordCodeOf(error: unknown): number | undefined {
  if (!(error instanceof DiscordAPIError)) return undefined;
  return typeof error.code === 'number' ? error.code : Number(error.code) || 0;
}

export function isAbortError(error: unknown): boolean {
  return error instanceof Error && error.name === 'AbortError';
}

const scopeOf = (value: unknown): RateLimitScope =>
  value === 'global' || value === 'shared' ? value : 'user';

/**
 * The port's error for a failed call. `what` says what was being done
 * (`create message in discord:123`), for the message.
 */
export function toSurfaceError(error: unknown, what: string): SurfaceError {
  if (error instanceof SurfaceError) return error;
  if (error instanceof RateLimitError) {
    // A 429's Retry-After, or the time until the client's own empty bucket resets.
    const retryAfterMs = Math.max(0, Math.ceil(error.retryAfter > 0 ? error.retryAfter : error.timeToReset));
    const scope = error.global ? 'global' : scopeOf(error.scope);
    return new DiscordRateLimitedError(
      `${what}: rate limited (${scope} scope, bucket ${error.route}); retry in ${retryAfterMs} ms`,
      retryAfterMs,
      scope,
      error.global,
      error,
    );
  }
  if (error instanceof DiscordAPIError) {
    const code = discordCodeOf(error) ?? 0;
    const message = `${what}: HTTP ${error.status} ${code ? `${code} ` : ''}${error.message}`;
    const details = { status: error.status, code, cause: error };
    if (code === DiscordCode.EditWindowClosed) return new DiscordEditWindowError(message, error);
    if (error.status === 404) return new SurfaceError('not-found', message, details);
    if (error.status === 401 || error.status === 403) return new SurfaceError('forbidden', message, details);
    if (error.status === 408 || error.status >= 500) return new SurfaceError('transient', message, details);
    return new SurfaceError('invalid', message, details);
  }
  if (error instanceof HTTPError) {
    const message = `${what}: HTTP ${error.status} ${error.message}`;
    return new SurfaceError(error.status >= 500 || error.status === 408 ? 'transient' : 'invalid', message, {
      status: error.status,
      cause: error,
    });
  }
  const reason = error instanceof Error ? error.message : String(error);
  // After a 401 the client forgets its token and refuses every call locally.
  if (/Expected token to be set/i.test(reason)) {
    return new SurfaceError('forbidden', `${what}: the bot token was refused (401) earlier: ${reason}`, {
      cause: error,
    });
  }
  // A timeout (the client's own AbortError), a refused connection, a reset.
  return new SurfaceError('transient', `${what}: no answer from Discord (${reason})`, { cause: error });
}
