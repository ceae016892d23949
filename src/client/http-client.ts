/** `createTurnlogClient`: run events to a running `turnlog serve` over HTTP (docs/http-api.md). */
import { systemClock } from '../clock.js';
import { buildClient } from './client.js';
import { createHttpActionsPoll } from './http-actions.js';
import { HttpTransport, type HttpTransportOptions } from './http-transport.js';
import { DeliveryLedger } from './ledger.js';
import type { ClientOptions, TurnlogClient } from './types.js';

export type TurnlogClientOptions = HttpTransportOptions & ClientOptions;

/**
 * A client of `POST /v1/events` (and of `GET /v1/actions` for `actions()`
 * and a turn's `onDecision`/`onAnswer`/`onStop`). Events are batched, so each is stamped with
 * `at` when logged (the time it happened, not the time the batch went).
 */
export function createTurnlogClient(options: TurnlogClientOptions): TurnlogClient {
  const ledger = new DeliveryLedger(options.onRejected);
  const transport = new HttpTransport(options, ledger);
  const clock = options.clock ?? systemClock;
  const poll = createHttpActionsPoll({
    url: options.url,
    ...(options.token !== undefined ? { token: options.token } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
    clock,
    ...(options.retryDelayMs !== undefined ? { retryDelayMs: options.retryDelayMs } : {}),
  });
  return buildClient(transport, ledger, { ...options, now: () => clock.now(), poll });
}
