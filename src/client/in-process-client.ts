/** `createInProcessClient`: the client interface over a runtime in the same process. */
import type { Runtime } from '../runtime.js';
import { buildClient, type EventTransport } from './client.js';
import { EventNotAcceptedError } from './errors.js';
import { DeliveryLedger } from './ledger.js';
import type { ClientOptions, TurnlogClient } from './types.js';

/**
 * Each event goes straight to `runtime.ingest`, which stamps `at` on receipt
 * (the runtime's clock), so the answer is known at once: a refused event is
 * in the ledger before `log()` returns. People's actions come from
 * `runtime.actions` (a long poll in process).
 */
export function createInProcessClient(
  runtime: Pick<Runtime, 'ingest'> & Partial<Pick<Runtime, 'actions'>>,
  options: ClientOptions = {},
): TurnlogClient {
  const ledger = new DeliveryLedger(options.onRejected);
  const transport: EventTransport = {
    enqueue(event) {
      ledger.sent(1);
      const result = runtime.ingest(event);
      if (result.ok) ledger.accepted(1);
      else ledger.notAccepted(new EventNotAcceptedError(event, result.error, 'rejected'));
    },
    drain: () => Promise.resolve(),
    close: () => Promise.resolve(),
  };
  // Actions come from the runtime's own long poll (its clock times the wait).
  const actions = runtime.actions?.bind(runtime);
  return buildClient(transport, ledger, {
    ...options,
    ...(actions
      ? {
          poll: (after, waitS, signal) =>
            actions({ ...(after !== undefined ? { after } : {}), waitMs: waitS * 1000, signal }),
        }
      : {}),
  });
}
