/**
 * googleapis errors → the port's taxonomy. The client throws a GaxiosError:
 * with a response it carries Google's envelope `{error: {code, message,
 * status}}`; without one the request never got an answer (network error,
 * timeout). 404 → not-found, 429 → rate-limited (the Retry-After header when
 * present, else the space's exponential backoff), 408/5xx/no answer →
 * transient, 401/403 → forbidden, other 4xx → invalid with Google's message.
 */
import { type HeaderSource, RateLimitedError } from '../../budget/rate-limiter.js';
import { SurfaceError } from '../../surfaces/surface.js';

/** The parts of a GaxiosError the mapping reads (duck-typed: gaxios is googleapis' own dependency). */
interface ClientError {
  message?: unknown;
  code?: unknown;
  status?: unknown;
  response?: { status?: unknown; headers?: ResponseHeaders; data?: unknown };
}

/** A fetch `Headers` (gaxios 7+) or a plain object (older clients, hand-made errors). */
type ResponseHeaders = { get?: (name: string) => string | null } & Record<string, unknown>;

/** Google's error envelope, when the answer has one. */
function googleError(data: unknown): { message?: string; status?: string } {
  const error = (data as { error?: unknown } | null | undefined)?.error;
  if (typeof error !== 'object' || error === null) return {};
  const { message, status } = error as { message?: unknown; status?: unknown };
  return {
    ...(typeof message === 'string' ? { message } : {}),
    ...(typeof status === 'string' ? { status } : {}),
  };
}

function header(headers: ResponseHeaders | undefined, name: string): string | undefined {
  if (!headers) return undefined;
  if (typeof headers.get === 'function') return headers.get(name) ?? undefined;
  const value = headers[name];
  return typeof value === 'string' ? value : undefined;
}

/** The answer's headers, for the rate limiter (empty when no answer came). */
export function responseHeadersOf(error: unknown): HeaderSource {
  const headers = (error as ClientError | null | undefined)?.response?.headers;
  return (headers ?? {}) as HeaderSource;
}

/** Retry-After in ms when the answer has a numeric one (Google sends none; an injected fault may). */
function retryAfterHeaderMs(error: ClientError): number | undefined {
  const value = header(error.response?.headers, 'retry-after');
  if (value === undefined) return undefined;
  const seconds = Number(value);
  return Number.isFinite(seconds) && seconds >= 0 ? Math.ceil(seconds * 1000) : undefined;
}

/** The HTTP status of a client error, or undefined when no answer came back. */
export function httpStatusOf(error: unknown): number | undefined {
  const e = error as ClientError | null | undefined;
  const status = e?.response?.status ?? e?.status;
  return typeof status === 'number' ? status : undefined;
}

/** Google's canonical status (`ALREADY_EXISTS`, `NOT_FOUND` …) of a client error, when it has one. */
export function googleStatusOf(error: unknown): string | undefined {
  return googleError((error as ClientError | null | undefined)?.response?.data).status;
}

export interface ErrorContext {
  /** What was being done, for the message: `spaces.messages.create in spaces/A`. */
  what: string;
  /** The space's next backoff wait, taken only when the error is a 429. */
  nextBackoffMs: () => number;
}

export function toSurfaceError(error: unknown, context: ErrorContext): SurfaceError {
  const e = (error ?? {}) as ClientError;
  const status = httpStatusOf(error);
  const code = typeof e.code === 'string' || typeof e.code === 'number' ? e.code : undefined;
  const base = { cause: error, ...(code === undefined ? {} : { code }) };
  if (status === undefined) {
    const reason = typeof e.message === 'string' ? e.message : String(error);
    return new SurfaceError('transient', `${context.what}: no answer from Google Chat (${reason})`, base);
  }
  const google = googleError(e.response?.data);
  const detail = [google.status, google.message].filter((part) => part !== undefined).join(': ');
  const message = `${context.what}: HTTP ${status}${detail === '' ? '' : ` ${detail}`}`;
  const details = { ...base, status, ...(google.status ? { code: google.status } : {}) };
  if (status === 404) return new SurfaceError('not-found', message, details);
  if (status === 429) {
    const retryAfterMs = retryAfterHeaderMs(e) ?? context.nextBackoffMs();
    return new RateLimitedError(`${message} (retry in ${retryAfterMs} ms)`, retryAfterMs, details);
  }
  if (status === 408 || status >= 500) return new SurfaceError('transient', message, details);
  if (status === 401 || status === 403) return new SurfaceError('forbidden', message, details);
  return new SurfaceError('invalid', message, details);
}
