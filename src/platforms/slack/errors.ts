/**
 * @slack/web-api errors → the port's taxonomy. Slack answers method errors
 * as HTTP 200 `{ok: false, error}` (the client throws WebAPIPlatformError),
 * rate limits as 429 + `Retry-After` (WebAPIRateLimitedError with
 * `rejectRateLimitedCalls`), other statuses as WebAPIHTTPError, and no
 * answer at all (network, timeout) as WebAPIRequestError.
 * https://docs.slack.dev/apis/web-api/#responses,
 * https://docs.slack.dev/apis/web-api/rate-limits
 *
 * The Slack code always rides along as `details.code`, so a turn can act on
 * it (a new card on `message_not_found`, degraded with the reason on
 * `not_in_channel`, text only on `invalid_blocks`).
 */
import { ErrorCode } from '@slack/web-api';
import { RateLimitedError } from '../../budget/rate-limiter.js';
import { SurfaceError, type SurfaceErrorKind } from '../../surfaces/surface.js';

/** Slack error codes by the kind of failure they are (unlisted codes are `invalid`). */
const KIND_BY_CODE: Readonly<Record<string, SurfaceErrorKind>> = {
  message_not_found: 'not-found',
  thread_not_found: 'not-found',
  ratelimited: 'rate-limited',
  rate_limited: 'rate-limited',
  // The app cannot write there: the turn degrades and says why.
  channel_not_found: 'forbidden',
  not_in_channel: 'forbidden',
  is_archived: 'forbidden',
  restricted_action: 'forbidden',
  restricted_action_read_only_channel: 'forbidden',
  restricted_action_thread_only_channel: 'forbidden',
  restricted_action_non_threadable_channel: 'forbidden',
  cant_update_message: 'forbidden',
  cant_delete_message: 'forbidden',
  edit_window_closed: 'forbidden',
  access_denied: 'forbidden',
  missing_scope: 'forbidden',
  not_allowed: 'forbidden',
  not_allowed_token_type: 'forbidden',
  method_deprecated: 'forbidden',
  feature_not_enabled: 'forbidden',
  // The token: nothing will work until it is fixed.
  invalid_auth: 'forbidden',
  not_authed: 'forbidden',
  token_revoked: 'forbidden',
  token_expired: 'forbidden',
  account_inactive: 'forbidden',
  no_permission: 'forbidden',
  ekm_access_denied: 'forbidden',
  team_access_not_granted: 'forbidden',
  // Slack's side: worth another try.
  internal_error: 'transient',
  fatal_error: 'transient',
  service_unavailable: 'transient',
  request_timeout: 'transient',
  team_added_to_org: 'transient',
};

/** The message Slack refused as too big or malformed: render smaller, then text only. */
export const REFUSED_CONTENT_CODES: ReadonlySet<string> = new Set([
  'msg_too_long',
  // chat.postMessage: "Blocks submitted with this message are too long" (https://docs.slack.dev/reference/methods/chat.postMessage).
  'msg_blocks_too_long',
  'invalid_blocks',
  'invalid_blocks_format',
]);

/** Refused for its size: worth sending smaller before falling back to text only. */
export const TOO_LONG_CODES: ReadonlySet<string> = new Set(['msg_too_long', 'msg_blocks_too_long']);

export function kindOfSlackCode(code: string): SurfaceErrorKind {
  return KIND_BY_CODE[code] ?? 'invalid';
}

/** The parts of the client's errors the mapping reads. */
interface ClientError {
  code?: unknown;
  message?: unknown;
  data?: { error?: unknown; response_metadata?: { messages?: unknown } };
  retryAfter?: unknown;
  statusCode?: unknown;
  original?: unknown;
}

/** Slack's explanation lines (`response_metadata.messages`), e.g. which block broke. */
function detailLines(data: ClientError['data']): string {
  const messages = data?.response_metadata?.messages;
  return Array.isArray(messages) && messages.length > 0 ? ` (${messages.slice(0, 3).join('; ')})` : '';
}

/** What was being done, for the message: `chat.update in C0123`. */
export function toSurfaceError(error: unknown, what: string): SurfaceError {
  const e = (error ?? {}) as ClientError;
  switch (e.code) {
    case ErrorCode.RateLimitedError: {
      const seconds = typeof e.retryAfter === 'number' && e.retryAfter >= 0 ? e.retryAfter : 1;
      const retryAfterMs = Math.ceil(seconds * 1000);
      return new RateLimitedError(
        `${what}: rate limited by Slack (retry in ${retryAfterMs} ms)`,
        retryAfterMs,
        {
          status: 429,
          code: 'ratelimited',
          cause: error,
        },
      );
    }
    case ErrorCode.PlatformError: {
      const code = typeof e.data?.error === 'string' ? e.data.error : 'unknown_error';
      return new SurfaceError(
        kindOfSlackCode(code),
        `${what}: Slack answered ${code}${detailLines(e.data)}`,
        {
          status: 200,
          code,
          cause: error,
        },
      );
    }
    case ErrorCode.HTTPError: {
      const status = typeof e.statusCode === 'number' ? e.statusCode : 0;
      const kind: SurfaceErrorKind =
        status === 408 || status >= 500
          ? 'transient'
          : status === 401 || status === 403
            ? 'forbidden'
            : status === 404
              ? 'not-found'
              : 'invalid';
      return new SurfaceError(kind, `${what}: HTTP ${status} from Slack`, { status, cause: error });
    }
    default: {
      // WebAPIRequestError (no answer: network error, the client's timeout) and anything unexpected.
      const original = e.original instanceof Error ? e.original.message : undefined;
      const reason = original ?? (typeof e.message === 'string' ? e.message : String(error));
      return new SurfaceError('transient', `${what}: no answer from Slack (${reason})`, { cause: error });
    }
  }
}
