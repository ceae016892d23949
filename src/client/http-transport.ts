/**
 * Sends run events to `POST /v1/events` of a running `turnlog serve`
 * (docs/http-api.md) as NDJSON batches, one request at a time so a turn's
 * events arrive in order. A batch goes when it is full (`maxBatch`) or
 * `batchMs` after its first event.
 *
 * Per answer: 2xx settles each line (the listed `rejected` lines were
 * refused); 400 refuses every line; 413 halves the batch until one event is
 * over the limit; 401/403 refuse the batch; 408, 429, 5xx and network errors
 * are retried with exponential backoff (or `Retry-After`) a bounded number of
 * times, then the batch is reported undelivered.
 *
 * Every event is sent with an `eventId` (a fresh UUID unless it has one),
 * stamped once when it is queued: a retry of a request the ingest applied but
 * whose answer was lost carries the same ids, and the ingest answers those
 * events as duplicates instead of applying them twice.
 */
import { randomUUID } from 'node:crypto';
import { type Clock, systemClock } from '../clock.js';
import type { EventTransport } from './client.js';
import { EventNotAcceptedError } from './errors.js';
import type { DeliveryLedger } from './ledger.js';

export interface HttpTransportOptions {
  /** The ingest origin as `turnlog serve` prints it (`http://127.0.0.1:8787`), or the full `/v1/events` URL. */
  url: string;
  /** The ingest's bearer token. */
  token?: string;
  /** Default: the global `fetch`. */
  fetch?: typeof fetch;
  /** How long the first event of a batch waits for company. Default 50 ms. */
  batchMs?: number;
  /** Events per request at most. Default 200. */
  maxBatch?: number;
  /** Retries of a request after a network error, 408, 429 or 5xx. Default 4. */
  retries?: number;
  /** The first retry's delay; each next one doubles. Default 250 ms. */
  retryDelayMs?: number;
  /** One request's time limit. Default 30 s. */
  timeoutMs?: number;
  /** Timers of batching and backoff (tests pass XState's `SimulatedClock`). Default: the system clock. */
  clock?: Clock;
}

export const HTTP_DEFAULTS = {
  batchMs: 50,
  maxBatch: 200,
  retries: 4,
  retryDelayMs: 250,
  timeoutMs: 30_000,
} as const;

/** What a bare status means here, when the ingest's answer says nothing. */
const STATUS_HINTS: Record<number, string> = {
  401: "give the ingest's bearer token",
  403: "give the ingest's bearer token",
  413: "over the ingest's body limit",
};

/** A `Retry-After` longer than this is not waited out in full. */
const MAX_RETRY_DELAY_MS = 60_000;

interface Queued {
  /** As given (for `send`, the very object passed in: the id is only on the line). */
  event: Record<string, unknown>;
  /** The `eventId` it is sent with, when it is a string. */
  eventId: string | undefined;
  /** The event with its `eventId`, as JSON: every attempt sends these same bytes. */
  line: string;
}

type Attempt =
  | { kind: 'settled' }
  | { kind: 'retry'; reason: string; delayMs?: number }
  | { kind: 'too-large'; reason: string };

interface IngestAnswer {
  rejected?: unknown;
  error?: unknown;
}

export class HttpTransport implements EventTransport {
  private readonly endpoint: string;
  private readonly fetch: typeof fetch;
  private readonly clock: Clock;
  private readonly headers: Record<string, string>;
  private readonly batchMs: number;
  private readonly maxBatch: number;
  private readonly retries: number;
  private readonly retryDelayMs: number;
  private readonly timeoutMs: number;
  private queue: Queued[] = [];
  private timer: unknown;
  /** The requests in flight and queued behind each other. Never rejects. */
  private chain: Promise<void> = Promise.resolve();

  constructor(
    options: HttpTransportOptions,
    private readonly ledger: DeliveryLedger,
  ) {
    this.endpoint = ingestEndpoint(options.url);
    this.fetch = options.fetch ?? globalThis.fetch;
    this.clock = options.clock ?? systemClock;
    this.batchMs = nonNegative('batchMs', options.batchMs ?? HTTP_DEFAULTS.batchMs);
    this.maxBatch = positiveInteger('maxBatch', options.maxBatch ?? HTTP_DEFAULTS.maxBatch);
    this.retries = nonNegativeInteger('retries', options.retries ?? HTTP_DEFAULTS.retries);
    this.retryDelayMs = nonNegative('retryDelayMs', options.retryDelayMs ?? HTTP_DEFAULTS.retryDelayMs);
    this.timeoutMs = positiveInteger('timeoutMs', options.timeoutMs ?? HTTP_DEFAULTS.timeoutMs);
    if (options.token !== undefined && options.token === '') {
      throw new TypeError('token must not be empty (leave it out when the ingest needs none)');
    }
    this.headers = {
      'content-type': 'application/x-ndjson',
      ...(options.token !== undefined ? { authorization: `Bearer ${options.token}` } : {}),
    };
  }

  enqueue(event: Record<string, unknown>): void {
    const sent = event.eventId === undefined ? { ...event, eventId: randomUUID() } : event;
    const eventId = typeof sent.eventId === 'string' ? sent.eventId : undefined;
    this.queue.push({ event, eventId, line: encode(sent) });
    if (this.queue.length >= this.maxBatch) this.dispatch();
    else if (this.timer === undefined) {
      this.timer = this.clock.setTimeout(() => {
        this.timer = undefined;
        this.dispatch();
      }, this.batchMs);
    }
  }

  drain(): Promise<void> {
    this.dispatch();
    return this.chain;
  }

  close(): Promise<void> {
    return this.drain();
  }

  /** Moves the whole queue into requests behind the ones in flight. */
  private dispatch(): void {
    if (this.timer !== undefined) {
      this.clock.clearTimeout(this.timer);
      this.timer = undefined;
    }
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.maxBatch);
      this.ledger.sent(batch.length);
      this.chain = this.chain.then(() =>
        this.post(batch).catch((error: unknown) =>
          this.refuse(batch, `client error: ${describe(error)}`, 'undelivered'),
        ),
      );
    }
  }

  private async post(batch: Queued[]): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const outcome = await this.attempt(batch);
      if (outcome.kind === 'settled') return;
      if (outcome.kind === 'too-large') {
        if (batch.length === 1) return this.refuse(batch, outcome.reason, 'rejected');
        const half = Math.ceil(batch.length / 2);
        await this.post(batch.slice(0, half));
        return this.post(batch.slice(half));
      }
      if (attempt > this.retries) {
        const tries = attempt === 1 ? '1 attempt' : `${attempt} attempts`;
        return this.refuse(batch, `${outcome.reason} (gave up after ${tries})`, 'undelivered');
      }
      const backoff = this.retryDelayMs * 2 ** (attempt - 1);
      await this.sleep(Math.min(outcome.delayMs ?? backoff, MAX_RETRY_DELAY_MS));
    }
  }

  private async attempt(batch: Queued[]): Promise<Attempt> {
    let response: Response;
    let text: string;
    try {
      response = await this.fetch(this.endpoint, {
        method: 'POST',
        headers: this.headers,
        body: `${batch.map((q) => q.line).join('\n')}\n`,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      text = await response.text();
    } catch (error) {
      return { kind: 'retry', reason: `network error: ${describe(error)}` };
    }
    const status = response.status;
    const answer = parseAnswer(text);
    const said = typeof answer?.error === 'string' ? answer.error : text.trim().slice(0, 200);
    const hint = STATUS_HINTS[status];
    const reason = said !== '' ? `HTTP ${status}: ${said}` : `HTTP ${status}${hint ? ` (${hint})` : ''}`;
    if (status >= 200 && status < 300) {
      this.settle(batch, answer, null);
    } else if (status === 400) {
      this.settle(batch, answer, reason);
    } else if (status === 413) {
      return { kind: 'too-large', reason };
    } else if (status === 401 || status === 403) {
      this.refuse(batch, reason, 'rejected', status);
    } else if (status === 408 || status === 429 || status >= 500) {
      const delayMs = retryAfterMs(response.headers.get('retry-after'));
      return { kind: 'retry', reason, ...(delayMs !== undefined ? { delayMs } : {}) };
    } else {
      this.refuse(batch, reason, 'rejected', status);
    }
    return { kind: 'settled' };
  }

  /**
   * Applies an answer's `rejected: [{line, error}]` (1-based lines of the
   * body, one per event); the other lines are accepted, or with `unlisted`
   * refused for that reason.
   */
  private settle(batch: Queued[], answer: IngestAnswer | undefined, unlisted: string | null): void {
    const refused = new Map<number, string>();
    if (Array.isArray(answer?.rejected)) {
      for (const item of answer.rejected as { line?: unknown; error?: unknown }[]) {
        const line = typeof item?.line === 'number' ? item.line : Number.NaN;
        if (Number.isInteger(line) && line >= 1 && line <= batch.length) {
          refused.set(line - 1, typeof item.error === 'string' ? withoutBodyLine(item.error) : 'rejected');
        }
      }
    }
    let accepted = 0;
    batch.forEach((queued, index) => {
      const error = refused.get(index) ?? unlisted;
      if (error === null) accepted++;
      else
        this.ledger.notAccepted(new EventNotAcceptedError(queued.event, error, 'rejected', queued.eventId));
    });
    if (accepted > 0) this.ledger.accepted(accepted);
  }

  private refuse(batch: Queued[], reason: string, kind: 'rejected' | 'undelivered', status?: number): void {
    for (const queued of batch)
      this.ledger.notAccepted(new EventNotAcceptedError(queued.event, reason, kind, queued.eventId, status));
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => this.clock.setTimeout(() => resolve(), ms));
  }
}

/** `http://h:p` → `http://h:p/v1/events`; a URL already ending in `/v1/events` stays. */
export function ingestEndpoint(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TypeError(`the ingest url ${JSON.stringify(url)} is not a URL (e.g. http://127.0.0.1:8787)`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new TypeError(`the ingest url ${JSON.stringify(url)} must be http: or https:`);
  }
  if (!parsed.pathname.endsWith('/v1/events')) {
    parsed.pathname = `${parsed.pathname.replace(/\/+$/, '')}/v1/events`;
  }
  return parsed.toString();
}

function encode(event: Record<string, unknown>): string {
  let line: string | undefined;
  try {
    line = JSON.stringify(event);
  } catch (error) {
    throw new TypeError(`cannot encode the ${String(event.type)} event as JSON: ${describe(error)}`);
  }
  if (line === undefined) throw new TypeError(`cannot encode the ${String(event.type)} event as JSON`);
  return line;
}

/** The ingest names the line of its request body (`line 3: …`), which means nothing to the sender. */
function withoutBodyLine(error: string): string {
  return error.replace(/^(?:line|index) \d{1,9}: /, '');
}

function parseAnswer(text: string): IngestAnswer | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null ? (value as IngestAnswer) : undefined;
  } catch {
    return undefined;
  }
}

/** `Retry-After` in seconds (the HTTP-date form is not used by turnlog serve). */
function retryAfterMs(header: string | null): number | undefined {
  if (header === null || !/^\d{1,6}$/.test(header.trim())) return undefined;
  return Number(header.trim()) * 1000;
}

/** `fetch failed: connect ECONNREFUSED 127.0.0.1:1` rather than just `fetch failed`. */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.message}${cause}`;
}

function nonNegative(name: string, value: number): number {
  if (!Number.isFinite(value) || value < 0)
    throw new RangeError(`${name} must be a number ≥ 0, got ${value}`);
  return value;
}

function nonNegativeInteger(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 0)
    throw new RangeError(`${name} must be an integer ≥ 0, got ${value}`);
  return value;
}

function positiveInteger(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1)
    throw new RangeError(`${name} must be an integer ≥ 1, got ${value}`);
  return value;
}
