/**
 * The actions webhook (`actions.webhook: {url, secret}`, docs/http-api.md
 * "Actions"): POSTs `{"actions": [...]}` to the host in cursor order, signed
 * with `X-Turnlog-Signature: t=<unix s>,v1=<hex HMAC-SHA256(secret, t + "." + body)>`,
 * one batch at a time. A batch is retried with exponential backoff (capped)
 * until the host answers 2xx; only then is its cursor saved in the store, so
 * a restarted process resumes after the last batch the host took (at least
 * once: a batch whose 2xx was lost comes again). Timers run on the given
 * clock, so tests drive the backoff with XState's `SimulatedClock`.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../clock.js';
import { ConfigError } from '../config-error.js';
import { ENV_REFERENCE } from '../registry/config-schemas.js';
import type { TurnlogStore } from '../store/store.js';
import { ActionCursorError, type Outbox } from './outbox.js';
import type { Action } from './types.js';

export const TURNLOG_SIGNATURE_HEADER = 'X-Turnlog-Signature';
/** The store's name for the webhook's delivery cursor. */
export const WEBHOOK_CONSUMER = 'webhook';
/** How old a signature `verifyTurnlogSignature` accepts by default (replays past it are refused). */
export const DEFAULT_SIGNATURE_TOLERANCE_S = 300;

export const WEBHOOK_DEFAULTS = {
  /** The first retry's delay; each next one doubles… */
  initialDelayMs: 1000,
  /** …up to this. */
  maxDelayMs: 5 * 60_000,
  /** Actions per POST at most. */
  batch: 100,
  /** One POST's time limit (wall clock). */
  timeoutMs: 10_000,
} as const;

/** How long the delivery waits for a new action before it looks again (a safety net; appends wake it). */
const IDLE_WAIT_MS = 60_000;

const hmac = (secret: string, timestampS: number, body: string): string =>
  createHmac('sha256', secret).update(`${timestampS}.${body}`).digest('hex');

/** The `X-Turnlog-Signature` value of a body sent at `timestampS` (unix seconds). */
export function signTurnlogPayload(secret: string, body: string, timestampS: number): string {
  return `t=${timestampS},v1=${hmac(secret, timestampS, body)}`;
}

export interface VerifySignatureOptions {
  /** How far `t` may be from now, in seconds. Default 300. */
  toleranceS?: number;
  /** Now, in unix seconds. Default: the system clock. */
  nowS?: number;
}

/**
 * For hosts: whether `header` (the `X-Turnlog-Signature` value) signs `body`
 * (the raw request body, as received) with `secret`, within the tolerance.
 * Any `v1=` entry may match (several appear while a secret is rotated).
 */
export function verifyTurnlogSignature(
  secret: string,
  header: string | null | undefined,
  body: string | Uint8Array,
  options: VerifySignatureOptions = {},
): boolean {
  if (typeof header !== 'string' || secret === '') return false;
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const [key, value] = part.trim().split('=', 2);
    if (key === 't' && value !== undefined && /^\d{1,12}$/.test(value)) timestamp = Number(value);
    else if (key === 'v1' && value !== undefined && /^[0-9a-f]{64}$/.test(value)) signatures.push(value);
  }
  if (timestamp === undefined || signatures.length === 0) return false;
  const nowS = options.nowS ?? Math.floor(Date.now() / 1000);
  if (Math.abs(nowS - timestamp) > (options.toleranceS ?? DEFAULT_SIGNATURE_TOLERANCE_S)) return false;
  const text = typeof body === 'string' ? body : Buffer.from(body).toString('utf8');
  const expected = Buffer.from(hmac(secret, timestamp, text), 'hex');
  return signatures.some((signature) => timingSafeEqual(Buffer.from(signature, 'hex'), expected));
}

/** `actions.webhook.secret` as given, or read from the environment for `"env:NAME"`. */
export function resolveWebhookSecret(
  secret: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): string {
  const name = ENV_REFERENCE.exec(secret)?.[1];
  if (name === undefined) return secret;
  const value = env[name];
  if (value === undefined || value === '') {
    throw new ConfigError(
      `invalid turnlog config:\n  actions.webhook.secret: environment variable ${name} is ${value === undefined ? 'not set' : 'empty'}`,
    );
  }
  return value;
}

export interface WebhookStatus {
  /** The cursor of the last batch the host took ("0": none yet). */
  cursor: string;
  /** Failed attempts of the current batch. */
  failures: number;
  /** The delay before the next attempt, while one is scheduled. */
  retryInMs?: number;
  lastError?: string;
  /** Actions the host took since the start. */
  delivered: number;
}

export interface WebhookLogger {
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

export interface WebhookOptions {
  url: string;
  secret: string;
  outbox: Pick<Outbox, 'poll'>;
  store: Pick<TurnlogStore, 'actionCursor' | 'saveActionCursor'>;
  clock: Clock;
  fetch?: typeof fetch;
  logger?: WebhookLogger;
  initialDelayMs?: number;
  maxDelayMs?: number;
  batch?: number;
  timeoutMs?: number;
}

export interface WebhookDelivery {
  /** Resolves when the loop has stopped (an attempt in flight is aborted). */
  stop(): Promise<void>;
  status(): WebhookStatus;
}

/** Starts delivering from the store's saved cursor. */
export function startWebhookDelivery(options: WebhookOptions): WebhookDelivery {
  const { clock, outbox, store } = options;
  const post = options.fetch ?? globalThis.fetch;
  const initialDelayMs = options.initialDelayMs ?? WEBHOOK_DEFAULTS.initialDelayMs;
  const maxDelayMs = options.maxDelayMs ?? WEBHOOK_DEFAULTS.maxDelayMs;
  const batch = options.batch ?? WEBHOOK_DEFAULTS.batch;
  const timeoutMs = options.timeoutMs ?? WEBHOOK_DEFAULTS.timeoutMs;
  const stopping = new AbortController();
  const state: WebhookStatus = { cursor: '0', failures: 0, delivered: 0 };

  /** Waits on the clock; a stop ends the wait early. */
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const done = () => {
        clock.clearTimeout(timer);
        stopping.signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = clock.setTimeout(done, ms);
      stopping.signal.addEventListener('abort', done, { once: true });
    });

  /** One POST of a batch: undefined when the host took it, else why not. */
  const attempt = async (actions: Action[]): Promise<string | undefined> => {
    const body = JSON.stringify({ actions });
    const signature = signTurnlogPayload(options.secret, body, Math.floor(clock.now() / 1000));
    try {
      const response = await post(options.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', [TURNLOG_SIGNATURE_HEADER]: signature },
        body,
        signal: AbortSignal.any([stopping.signal, AbortSignal.timeout(timeoutMs)]),
      });
      await response.arrayBuffer().catch(() => undefined);
      return response.ok ? undefined : `HTTP ${response.status}`;
    } catch (error) {
      const cause =
        (error as Error).cause instanceof Error ? `: ${((error as Error).cause as Error).message}` : '';
      return `network error: ${(error as Error).message}${cause}`;
    }
  };

  const loop = async () => {
    const saved = await store.actionCursor(WEBHOOK_CONSUMER);
    if (saved !== undefined) state.cursor = saved;
    while (!stopping.signal.aborted) {
      let page: Awaited<ReturnType<Outbox['poll']>>;
      try {
        page = await outbox.poll({
          after: state.cursor,
          waitMs: IDLE_WAIT_MS,
          limit: batch,
          signal: stopping.signal,
        });
      } catch (error) {
        if (!(error instanceof ActionCursorError)) throw error;
        // A saved cursor this store never gave out (another store file): everything kept is new to the host.
        options.logger?.error(
          'actions webhook: the saved cursor is not one of this store; delivering from the oldest kept',
          { cursor: state.cursor },
        );
        state.cursor = '0';
        continue;
      }
      if (page.actions.length === 0) continue;
      for (;;) {
        const failed = await attempt(page.actions);
        if (stopping.signal.aborted) return;
        if (failed === undefined) break;
        state.failures++;
        state.lastError = failed;
        const delay = Math.min(initialDelayMs * 2 ** (state.failures - 1), maxDelayMs);
        state.retryInMs = delay;
        options.logger?.warn('actions webhook: the host did not take a batch; retrying', {
          url: options.url,
          error: failed,
          failures: state.failures,
          retryInMs: delay,
        });
        await pause(delay);
        delete state.retryInMs;
        if (stopping.signal.aborted) return;
      }
      await store.saveActionCursor(WEBHOOK_CONSUMER, page.cursor);
      state.cursor = page.cursor;
      state.failures = 0;
      state.delivered += page.actions.length;
    }
  };

  const running = (async () => {
    while (!stopping.signal.aborted) {
      try {
        await loop();
      } catch (error) {
        // A store that fails leaves the saved cursor where it was: the loop starts again from it.
        options.logger?.error('actions webhook: reading or saving the outbox failed; starting again', {
          error: (error as Error).message,
        });
        await pause(initialDelayMs);
      }
    }
  })();

  return {
    async stop() {
      stopping.abort();
      await running;
    },
    status: () => ({ ...state }),
  };
}
