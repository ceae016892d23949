/**
 * The answers the core asks the Discord handler for: injected faults, 429s
 * over a limit, unknown routes, unreadable bodies and handler crashes, each
 * in Discord's own shape.
 */
import { STATUS_CODES } from 'node:http';
import type { ErrorKind, FaultTarget, HttpAnswer, RateLimitStatus } from '../core/index.js';
import type { LimitRule } from '../types.js';
import { discordError } from './discord-errors.js';
import { DISCORD_DEFAULT_LIMITS } from './limits.js';
import { rateLimitedAnswer } from './rate-limit-headers.js';

/** `Retry-After` of an injected 429 whose rule gives none. */
const DEFAULT_FAULT_RETRY_AFTER_S = 1;

const MESSAGE_PATH = /\/messages\/[^/]+/;

/** An injected 404 says what is missing the way Discord would: a message when the path names one, else the channel. */
function notFoundFor(call: FaultTarget | undefined): HttpAnswer {
  if (call === undefined || MESSAGE_PATH.test(call.path)) return discordError('unknownMessage');
  if (call.path.includes('/channels/')) return discordError('unknownChannel');
  return discordError('notFound');
}

function genericError(status: number): HttpAnswer {
  return { status, body: { code: 0, message: `${status}: ${STATUS_CODES[status] ?? 'Error'}` } };
}

/**
 * The bucket an injected 429 is said to come from: Discord sends a route
 * 429 with its bucket's headers (`X-RateLimit-Limit` … `-Bucket`), which
 * @discordjs/rest reads to pace itself, so a fault names the route's
 * per-channel rule (a one-call bucket for a route with none).
 */
function faultBucket(call: FaultTarget | undefined, retryAfterS: number): RateLimitStatus {
  const op = call?.op ?? 'other';
  const rule: LimitRule = DISCORD_DEFAULT_LIMITS.find((r) => r.op === op && r.scope === 'space') ?? {
    op,
    scope: 'space',
    limit: 1,
    windowS: Math.max(1, Math.ceil(retryAfterS)),
  };
  return { rule, bucket: `${op}:space:fault`, limit: rule.limit, remaining: 0, resetAfterS: retryAfterS };
}

function faultAnswer(status: number, retryAfterS: number | undefined, now: number, call?: FaultTarget) {
  switch (status) {
    case 401:
      return discordError('unauthorized');
    case 403:
      return discordError('missingPermissions');
    case 404:
      return notFoundFor(call);
    case 429: {
      const after = retryAfterS ?? DEFAULT_FAULT_RETRY_AFTER_S;
      return rateLimitedAnswer(after, now, faultBucket(call, after));
    }
    default:
      return genericError(status);
  }
}

export function createDiscordErrorResponse(now: () => number) {
  return (
    status: number,
    retryAfterS: number | undefined,
    kind: ErrorKind,
    rateLimit?: RateLimitStatus,
    call?: FaultTarget,
  ): HttpAnswer => {
    switch (kind) {
      case 'rate-limited':
        return rateLimitedAnswer(retryAfterS ?? DEFAULT_FAULT_RETRY_AFTER_S, now(), rateLimit);
      case 'unknown-route':
        return discordError('notFound');
      case 'bad-request':
        return status === 413 ? discordError('requestTooLarge') : discordError('invalidJson');
      case 'fault':
        return faultAnswer(status, retryAfterS, now(), call);
      case 'internal':
        return genericError(status);
    }
  };
}
