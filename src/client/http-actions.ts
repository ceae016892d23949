/**
 * The HTTP client's long poll of `GET /v1/actions` (docs/http-api.md,
 * "Actions"). A serve that is down or restarting (a network error, 408,
 * 429, 5xx) is asked again with exponential backoff, without end: an actions
 * iterator outlives a restart of the daemon. A refused request (400, 401,
 * 403, 404) throws, naming the status and what the daemon said; a 400 for
 * a cursor serve never gave out carries serve's current cursor.
 */
import { type Clock, systemClock } from '../clock.js';
import type { ActionsPoll } from './actions.js';
import { ingestEndpoint } from './http-transport.js';

/** `GET /v1/actions` answered something a retry cannot fix. */
export class ActionsRequestError extends Error {
  override name = 'ActionsRequestError';
  constructor(
    message: string,
    readonly status: number,
    /** With a 400 for a cursor serve never gave out: serve's current cursor. */
    readonly cursor?: string,
  ) {
    super(message);
  }
}

/** The longest pause between two tries of an unreachable daemon. */
const MAX_RETRY_DELAY_MS = 30_000;
/** Beyond the poll's own wait, how long an answer may take. */
const ANSWER_MARGIN_MS = 10_000;

export interface HttpActionsPollOptions {
  url: string;
  token?: string;
  fetch?: typeof fetch;
  clock?: Clock;
  /** The first retry's delay; each next one doubles (up to 30 s). Default 250 ms. */
  retryDelayMs?: number;
}

/** `http://h:p` (or `…/v1/events`) → `http://h:p/v1/actions`. */
export function actionsEndpoint(url: string): URL {
  const endpoint = new URL(ingestEndpoint(url));
  endpoint.pathname = endpoint.pathname.replace(/\/v1\/events$/, '/v1/actions');
  return endpoint;
}

export function createHttpActionsPoll(options: HttpActionsPollOptions): ActionsPoll {
  const endpoint = actionsEndpoint(options.url);
  const get = options.fetch ?? globalThis.fetch;
  const clock = options.clock ?? systemClock;
  const retryDelayMs = options.retryDelayMs ?? 250;
  const headers: Record<string, string> = options.token ? { authorization: `Bearer ${options.token}` } : {};

  const pause = (ms: number, signal: AbortSignal) =>
    new Promise<void>((resolve) => {
      const done = () => {
        clock.clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = clock.setTimeout(done, ms);
      signal.addEventListener('abort', done, { once: true });
    });

  return async (after, waitS, signal) => {
    const url = new URL(endpoint);
    if (after !== undefined) url.searchParams.set('after', after);
    url.searchParams.set('wait', String(waitS));
    for (let failures = 0; ; failures++) {
      if (failures > 0) {
        await pause(Math.min(retryDelayMs * 2 ** (failures - 1), MAX_RETRY_DELAY_MS), signal);
        if (signal.aborted) return { actions: [], cursor: after ?? '0' };
      }
      let response: Response;
      let text: string;
      try {
        response = await get(url, {
          headers,
          signal: AbortSignal.any([signal, AbortSignal.timeout(waitS * 1000 + ANSWER_MARGIN_MS)]),
        });
        text = await response.text();
      } catch (error) {
        if (signal.aborted) throw error;
        continue;
      }
      if (response.status === 408 || response.status === 429 || response.status >= 500) continue;
      let body: { actions?: unknown; cursor?: unknown; error?: unknown } | undefined;
      try {
        body = JSON.parse(text) as typeof body;
      } catch {
        body = undefined;
      }
      if (!response.ok) {
        const said = typeof body?.error === 'string' ? body.error : text.slice(0, 200);
        throw new ActionsRequestError(
          `GET /v1/actions: HTTP ${response.status}: ${said}`,
          response.status,
          response.status === 400 && typeof body?.cursor === 'string' ? body.cursor : undefined,
        );
      }
      if (!Array.isArray(body?.actions) || typeof body?.cursor !== 'string') {
        throw new ActionsRequestError(
          'GET /v1/actions: the answer is not {actions, cursor}',
          response.status,
        );
      }
      return { actions: body.actions, cursor: body.cursor };
    }
  };
}
