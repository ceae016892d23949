/**
 * The actions webhook (docs/http-api.md, "Actions"): signed POSTs to a real
 * loopback host, in cursor order, retried with capped exponential backoff on
 * a simulated clock until a 2xx, the delivered cursor saved so a restart
 * resumes after it; and `verifyTurnlogSignature` for hosts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { SimulatedClock } from 'xstate';
import { createOutbox } from '../../src/actions/outbox.js';
import type { Action, NewAction } from '../../src/actions/types.js';
import {
  signTurnlogPayload,
  startWebhookDelivery,
  verifyTurnlogSignature,
  type WebhookDelivery,
} from '../../src/actions/webhook.js';
import { createMemoryStore } from '../../src/store/memory.js';
import { createSqliteStore } from '../../src/store/sqlite.js';
import type { TurnlogStore } from '../../src/store/store.js';
import { SPACE, settle, startRuntime } from '../runtime/runtime.helpers.js';

const SECRET = 'whsec-test-0123456789';
const dir = mkdtempSync(join(tmpdir(), 'turnlog-webhook-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Received {
  body: string;
  signature: string;
  actions: Action[];
}

/** A host on 127.0.0.1 that answers each POST with the next status of `statuses` (then 200). */
async function startHost(statuses: number[] = []) {
  const received: Received[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      received.push({
        body,
        signature: String(request.headers['x-turnlog-signature']),
        actions: (JSON.parse(body) as { actions: Action[] }).actions,
      });
      response.writeHead(statuses.shift() ?? 200).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/turnlog-actions`;
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url, received };
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

let n = 0;
const message = (text: string): NewAction & { id: string } => ({
  id: `a${++n}`,
  type: 'message',
  space: SPACE,
  at: 0,
  user: { id: 'users/1' },
  messageId: `spaces/AAAA/messages/${n}`,
  text,
  dm: false,
});

function deliver(
  store: TurnlogStore,
  clock: SimulatedClock,
  url: string,
  extra: { maxDelayMs?: number; batch?: number } = {},
): { delivery: WebhookDelivery; outbox: ReturnType<typeof createOutbox> } {
  const outbox = createOutbox({ store, clock });
  const delivery = startWebhookDelivery({ url, secret: SECRET, outbox, store, clock, ...extra });
  cleanups.push(() => delivery.stop());
  return { delivery, outbox };
}

/** Waits until the delivery has failed `failures` times and scheduled its next attempt in `delayMs`. */
async function waitForRetry(delivery: WebhookDelivery, failures: number, delayMs: number): Promise<void> {
  await vi.waitFor(() => expect(delivery.status()).toMatchObject({ failures, retryInMs: delayMs }), {
    timeout: 5_000,
  });
}

describe('verifyTurnlogSignature', () => {
  const body = '{"actions":[]}';
  const header = signTurnlogPayload(SECRET, body, 1_700_000_000);

  it('accepts the signature of the body with the secret, within the tolerance', () => {
    expect(header).toMatch(/^t=1700000000,v1=[0-9a-f]{64}$/);
    expect(verifyTurnlogSignature(SECRET, header, body, { nowS: 1_700_000_100 })).toBe(true);
    expect(verifyTurnlogSignature(SECRET, header, Buffer.from(body), { nowS: 1_700_000_000 })).toBe(true);
    // While a secret is rotated the header may carry several signatures; one match is enough.
    const rotated = `${header},v1=${'0'.repeat(64)}`;
    expect(verifyTurnlogSignature(SECRET, rotated, body, { nowS: 1_700_000_000 })).toBe(true);
  });

  it('refuses another secret, a changed body, an old timestamp and a malformed header', () => {
    const now = { nowS: 1_700_000_000 };
    expect(verifyTurnlogSignature('another-secret', header, body, now)).toBe(false);
    expect(verifyTurnlogSignature(SECRET, header, '{"actions":[{}]}', now)).toBe(false);
    expect(verifyTurnlogSignature(SECRET, header, body, { nowS: 1_700_000_301 })).toBe(false);
    expect(verifyTurnlogSignature(SECRET, header, body, { nowS: 1_700_000_301, toleranceS: 600 })).toBe(true);
    for (const bad of [undefined, '', 'v1=abc', `t=1700000000`, header.replace('t=', 'x=')]) {
      expect(verifyTurnlogSignature(SECRET, bad, body, now)).toBe(false);
    }
  });
});

describe('the actions webhook', () => {
  it('retries a batch with exponential backoff on the clock until a 2xx, then saves its cursor', async () => {
    const host = await startHost([500, 503, 500]);
    const clock = new SimulatedClock();
    const store = createMemoryStore();
    // Both recorded before the delivery starts, so they go as one batch.
    const outbox = createOutbox({ store, clock });
    const first = await outbox.record(message('one'));
    const second = await outbox.record(message('two'));
    const delivery = startWebhookDelivery({ url: host.url, secret: SECRET, outbox, store, clock });
    cleanups.push(() => delivery.stop());

    await waitForRetry(delivery, 1, 1_000);
    expect(host.received).toHaveLength(1);
    clock.increment(999);
    await settle();
    expect(host.received).toHaveLength(1);
    clock.increment(1);
    await waitForRetry(delivery, 2, 2_000);
    expect(host.received).toHaveLength(2);
    clock.increment(2_000);
    await waitForRetry(delivery, 3, 4_000);
    clock.increment(4_000);
    await vi.waitFor(() => expect(delivery.status().cursor).toBe(second.action.cursor), { timeout: 5_000 });

    expect(host.received).toHaveLength(4);
    expect(delivery.status()).toMatchObject({ failures: 0, delivered: 2, lastError: 'HTTP 500' });
    expect(await store.actionCursor('webhook')).toBe(second.action.cursor);
    for (const request of host.received) {
      expect(request.actions).toEqual([first.action, second.action]);
      expect(verifyTurnlogSignature(SECRET, request.signature, request.body, { nowS: 0 })).toBe(true);
    }
  });

  it('caps the backoff at maxDelayMs', async () => {
    const host = await startHost([500, 500, 500, 500]);
    const clock = new SimulatedClock();
    const { delivery, outbox } = deliver(createMemoryStore(), clock, host.url, { maxDelayMs: 3_000 });
    await outbox.record(message('one'));
    const delays: number[] = [];
    for (const [index, expected] of [1_000, 2_000, 3_000, 3_000].entries()) {
      await waitForRetry(delivery, index + 1, expected);
      delays.push(expected);
      clock.increment(expected);
    }
    await vi.waitFor(() => expect(delivery.status().delivered).toBe(1), { timeout: 5_000 });
    expect(delays).toEqual([1_000, 2_000, 3_000, 3_000]);
    expect(host.received).toHaveLength(5);
  });

  it('delivers in cursor order, batch after batch, each action once when the host takes each', async () => {
    const host = await startHost();
    const clock = new SimulatedClock();
    const { delivery, outbox } = deliver(createMemoryStore(), clock, host.url, { batch: 3 });
    const recorded: Action[] = [];
    for (let i = 0; i < 10; i++) recorded.push((await outbox.record(message(`m${i}`))).action);
    await vi.waitFor(() => expect(delivery.status().delivered).toBe(10), { timeout: 5_000 });
    expect(host.received.every((r) => r.actions.length <= 3)).toBe(true);
    expect(host.received.flatMap((r) => r.actions)).toEqual(recorded);
  });

  it('resumes after a restart from the saved cursor: what the host took is not sent again', async () => {
    const host = await startHost();
    const path = join(dir, 'resume.db');
    const clock = new SimulatedClock();
    const store1 = createSqliteStore({ path });
    const run1 = deliver(store1, clock, host.url);
    await run1.outbox.record(message('before 1'));
    const taken = await run1.outbox.record(message('before 2'));
    await vi.waitFor(() => expect(run1.delivery.status().cursor).toBe(taken.action.cursor), {
      timeout: 5_000,
    });
    await run1.delivery.stop();
    // Recorded while no webhook runs (as between a crash and the restart).
    const later = [
      (await run1.outbox.record(message('after 1'))).action,
      (await run1.outbox.record(message('after 2'))).action,
    ];
    store1.close();

    const store2 = createSqliteStore({ path });
    cleanups.push(() => store2.close());
    const before = host.received.length;
    const run2 = deliver(store2, clock, host.url);
    await vi.waitFor(() => expect(run2.delivery.status().delivered).toBe(2), { timeout: 5_000 });
    expect(host.received.slice(before).flatMap((r) => r.actions)).toEqual(later);
  });

  it('is started by the runtime from actions.webhook (secret from env:NAME) and pushes what receive records', async () => {
    const host = await startHost();
    vi.stubEnv('TURNLOG_TEST_WEBHOOK_SECRET', SECRET);
    cleanups.push(() => void vi.unstubAllEnvs());
    const h = await startRuntime({
      config: { actions: { webhook: { url: host.url, secret: 'env:TURNLOG_TEST_WEBHOOK_SECRET' } } },
    });
    cleanups.push(async () => void (await h.runtime.stop()));
    const posted = h.surface.inbound({ space: SPACE, text: 'approve it' });
    const result = await h.runtime.receive({
      kind: 'message',
      space: SPACE,
      messageId: posted.messageId,
      threadId: posted.threadId,
      text: 'approve it',
      dm: false,
      user: { id: 'users/1' },
      at: 0,
      dedupeKey: posted.messageId,
    });
    await vi.waitFor(() => expect(host.received).toHaveLength(1), { timeout: 5_000 });
    expect(host.received[0]?.actions).toEqual([result.action]);
    expect(
      verifyTurnlogSignature(SECRET, host.received[0]?.signature, host.received[0]?.body ?? '', { nowS: 0 }),
    ).toBe(true);
  });

  it('a runtime whose webhook secret names an unset variable is refused at creation, naming the key', async () => {
    await expect(
      startRuntime({
        config: {
          actions: { webhook: { url: 'http://127.0.0.1:9/x', secret: 'env:TURNLOG_NOT_SET_ANYWHERE' } },
        },
      }),
    ).rejects.toThrow('actions.webhook.secret: environment variable TURNLOG_NOT_SET_ANYWHERE is not set');
  });
});
