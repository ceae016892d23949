/**
 * The answers the core asks the Discord handler for: injected faults, 429s
 * over a limit, unknown routes, unreadable bodies and handler crashes, each
 * in Discord's own shape.
 */
import { STATUS_CODES } from 'node:http';
import type { ErrorKind, FaultTarget, HttpAnswer, RateLimitStatus } from '../core/index.js';
import { discordError } from './discord-errors.js';
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

function faultAnswer(status: number, retryAfterS: number | undefined, now: number, call?: FaultTarget) {
  switch (status) {
    case 401:
      return discordError('unauthorized');
    case 403:
      return discordError('missingPermissions');
    case 404:
      return notFoundFor(call);
    case 429:
      return rateLimitedAnswer(retryAfterS ?? DEFAULT_FAULT_RETRY_AFTER_S, now, undefined);
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
