/**
 * Slack's error answers. Method errors are HTTP 200 `{ok: false, error}`
 * ("Slack's Web API doesn't use meaningful status codes besides 429 and
 * 200", as the web-api client puts it); only rate limiting (429 +
 * `Retry-After` in whole seconds) and server failures (5xx) change the
 * status.
 */
import type { ErrorKind, FaultTarget, HttpAnswer, PlatformReply } from '../core/index.js';

function errorAnswer(error: string, extra: Record<string, unknown> = {}): HttpAnswer {
  return { status: 200, body: { ok: false, error, ...extra } };
}

/** A method error: HTTP 200 `{ok: false, error, …extra}`, recorded as notifying no one. */
export function slackError(error: string, extra: Record<string, unknown> = {}): PlatformReply {
  return { ...errorAnswer(error, extra), record: { notifies: false, mentions: [], details: { error } } };
}

/** `invalid_arguments` naming the missing field, as Slack words it in `response_metadata.messages`. */
export function missingArgument(name: string): PlatformReply {
  return slackError('invalid_arguments', {
    response_metadata: { messages: [`[ERROR] missing required field: ${name}`] },
  });
}

/** Slack's 429 carries no `X-RateLimit-*` headers: only `Retry-After` in whole seconds. */
function rateLimited(retryAfterS: number): HttpAnswer {
  return {
    status: 429,
    headers: { 'Retry-After': String(Math.ceil(retryAfterS)) },
    body: { ok: false, error: 'ratelimited' },
  };
}

/** When a 429 fault names no `retryAfterS`: Slack always sends `Retry-After`. */
const DEFAULT_FAULT_RETRY_AFTER_S = 1;

/** The "not found" a method reports: a message for edits, deletes and reactions; the channel otherwise. */
function notFoundCode(call: FaultTarget | undefined): string {
  const op = call?.op;
  return op === 'update' || op === 'delete' || op === 'reaction' ? 'message_not_found' : 'channel_not_found';
}

/**
 * An injected fault, answered the way Slack reports that failure: 429 and
 * 5xx keep their status; a 4xx becomes the HTTP 200 error Slack sends for
 * it, so the client raises its usual `WebAPIPlatformError`.
 */
function faultAnswer(
  status: number,
  retryAfterS: number | undefined,
  call: FaultTarget | undefined,
): HttpAnswer {
  if (status === 429) return rateLimited(retryAfterS ?? DEFAULT_FAULT_RETRY_AFTER_S);
  if (status >= 500) {
    return { status, body: { ok: false, error: status === 503 ? 'service_unavailable' : 'internal_error' } };
  }
  const codes: Record<number, string> = {
    401: 'invalid_auth',
    403: 'access_denied',
    404: notFoundCode(call),
    410: notFoundCode(call),
  };
  return errorAnswer(codes[status] ?? 'invalid_arguments');
}

/** `PlatformHandler.errorResponse` for Slack. */
export function slackErrorResponse(
  status: number,
  retryAfterS: number | undefined,
  kind: ErrorKind,
  call?: FaultTarget,
): HttpAnswer {
  switch (kind) {
    case 'rate-limited':
      return rateLimited(retryAfterS ?? DEFAULT_FAULT_RETRY_AFTER_S);
    case 'fault':
      return faultAnswer(status, retryAfterS, call);
    case 'unknown-route':
      return { status: 404, body: { ok: false, error: 'unknown_method' } };
    case 'bad-request':
      return status === 413
        ? { status: 413, body: { ok: false, error: 'request_too_large' } }
        : errorAnswer('invalid_json');
    case 'internal':
      return { status: 500, body: { ok: false, error: 'internal_error' } };
  }
}
