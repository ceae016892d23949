/**
 * Google's JSON error envelope, `{"error": {code, message, status, details?}}`
 * (google.rpc.Status over HTTP: https://cloud.google.com/apis/design/errors),
 * with `status` the canonical code the HTTP status maps to (google.rpc.Code's
 * "HTTP Mapping").
 *
 * Over a quota Google answers 429 RESOURCE_EXHAUSTED with an ErrorInfo
 * (`reason: RATE_LIMIT_EXCEEDED`, `domain: googleapis.com`) and a Help link,
 * and no `Retry-After` header and no RetryInfo: Chat documents none, and its
 * usage-limits page says to back off exponentially. The emulator does the
 * same, so a client tested here cannot come to rely on a hint Google never
 * sends. The exact wait is still in the call record (`details.retryAfterS`).
 * A fault rule with `retryAfterS` is the exception: the test asked for a
 * `Retry-After`, so it gets one.
 */
import type { ErrorKind, HttpAnswer } from '../core/index.js';
import type { RateLimitStatus } from '../core/rate-limiter.js';
import type { LimitRule } from '../types.js';

/** google.rpc.Code names by the HTTP status they map to. */
const CANONICAL_STATUS: Readonly<Record<number, string>> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  409: 'ABORTED',
  429: 'RESOURCE_EXHAUSTED',
  499: 'CANCELLED',
  500: 'INTERNAL',
  501: 'NOT_IMPLEMENTED',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

/** The canonical code for an HTTP status; statuses without one fall back to FAILED_PRECONDITION (4xx) or INTERNAL (5xx). */
export function canonicalStatus(httpStatus: number): string {
  return CANONICAL_STATUS[httpStatus] ?? (httpStatus < 500 ? 'FAILED_PRECONDITION' : 'INTERNAL');
}

export interface GoogleErrorBody {
  error: { code: number; message: string; status: string; details?: unknown[] };
}

export function googleErrorBody(
  code: number,
  message: string,
  opts: { status?: string; details?: unknown[] } = {},
): GoogleErrorBody {
  return {
    error: {
      code,
      message,
      status: opts.status ?? canonicalStatus(code),
      ...(opts.details ? { details: opts.details } : {}),
    },
  };
}

/** Thrown by a route to answer with Google's error envelope (the route records it as refused). */
export class GchatApiError extends Error {
  override readonly name = 'GchatApiError';
  constructor(
    readonly httpStatus: number,
    message: string,
    /** Override the canonical code, e.g. ALREADY_EXISTS for a 409. */
    readonly googleStatus?: string,
  ) {
    super(message);
  }

  toAnswer(): HttpAnswer {
    return {
      status: this.httpStatus,
      body: googleErrorBody(
        this.httpStatus,
        this.message,
        this.googleStatus ? { status: this.googleStatus } : {},
      ),
    };
  }
}

export const invalidArgument = (message: string) => new GchatApiError(400, message);
/** Google's generic NOT_FOUND wording, then what the emulator could not find. */
export const notFound = (what: string) => new GchatApiError(404, `Requested entity was not found: ${what}.`);
export const permissionDenied = (why: string) =>
  new GchatApiError(403, `The caller does not have permission: ${why}.`);

const SERVICE = 'chat.googleapis.com';
/** There is no Cloud project behind the emulator; quota errors name this one. */
export const EMULATED_PROJECT_NUMBER = '000000000000';

/** The quota a limit rule stands for, named the way Google's quota errors name theirs. */
function quotaNames(rule: LimitRule): { metric: string; limit: string; limitLabel: string } {
  const window = rule.windowS === 60 ? 'Minute' : `${rule.windowS}Seconds`;
  const windowLabel = rule.windowS === 60 ? 'minute' : `${rule.windowS} seconds`;
  const what = rule.op === '*' ? 'Write' : `${rule.op[0]!.toUpperCase()}${rule.op.slice(1)}`;
  if (rule.scope === 'space') {
    return {
      metric: `${SERVICE}/${what.toLowerCase()}_requests_per_space`,
      limit: `${what}RequestsPer${window}PerSpace`,
      limitLabel: `${what} requests per ${windowLabel} per space`,
    };
  }
  const who = rule.scope === 'app' ? 'Project' : 'Service';
  return {
    metric: `${SERVICE}/message_${what.toLowerCase()}_requests`,
    limit: `Message${what}RequestsPer${window}Per${who}`,
    limitLabel: `Message ${what.toLowerCase()} requests per ${windowLabel}`,
  };
}

/** The 429 body Google sends when a quota is exhausted. */
export function quotaExceededBody(rule: LimitRule): GoogleErrorBody {
  const names = quotaNames(rule);
  const consumer = `project_number:${EMULATED_PROJECT_NUMBER}`;
  return googleErrorBody(
    429,
    `Quota exceeded for quota metric '${names.limitLabel.replace(/ per .*$/, '')}' and limit '${names.limitLabel}' of service '${SERVICE}' for consumer '${consumer}'.`,
    {
      details: [
        {
          '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
          reason: 'RATE_LIMIT_EXCEEDED',
          domain: 'googleapis.com',
          metadata: {
            service: SERVICE,
            consumer: `projects/${EMULATED_PROJECT_NUMBER}`,
            quota_metric: names.metric,
            quota_limit: names.limit,
            quota_limit_value: String(rule.limit),
            quota_location: 'global',
          },
        },
        {
          '@type': 'type.googleapis.com/google.rpc.Help',
          links: [
            {
              description: 'Request a higher quota limit.',
              url: 'https://cloud.google.com/docs/quotas/help/request_increase',
            },
          ],
        },
      ],
    },
  );
}

const KIND_MESSAGES: Record<Exclude<ErrorKind, 'rate-limited'>, (status: number) => string> = {
  fault: (status) => `Injected fault: the emulator was told to fail this call with ${status}.`,
  'unknown-route': () =>
    'Method not found. The Google Chat emulator serves GET /v1/spaces/{space}, POST /v1/spaces/{space}/messages, ' +
    'GET|PATCH|PUT|DELETE /v1/spaces/{space}/messages/{message}.',
  'bad-request': (status) =>
    status === 413
      ? 'Request payload size exceeds the limit: the emulator reads at most 1 MiB.'
      : 'Invalid JSON payload received: the body is not valid JSON.',
  internal: () => 'Internal error encountered.',
};

/** The core's error answers (faults, limits, unknown routes, unreadable bodies, crashes) in Google's shape. */
export function gchatErrorResponse(
  status: number,
  retryAfterS: number | undefined,
  kind: ErrorKind,
  rateLimit?: RateLimitStatus,
): HttpAnswer {
  if (kind === 'rate-limited' && rateLimit) return { status, body: quotaExceededBody(rateLimit.rule) };
  const message =
    kind === 'rate-limited' ? 'Resource has been exhausted (e.g. check quota).' : KIND_MESSAGES[kind](status);
  const retryHeaders: Record<string, string> =
    kind === 'fault' && retryAfterS !== undefined ? { 'retry-after': String(Math.ceil(retryAfterS)) } : {};
  return { status, headers: retryHeaders, body: googleErrorBody(status, message) };
}
