// spec: issue 11 items 1 and 6 (Slack Socket Mode in the emulator) — `apps.connections.open` with the app-level
// token (a wrong one is invalid_auth, a bot token not_allowed_token_type), the WebSocket's `hello`, a person's
// message as an `events_api` envelope and a button press as an `interactive` one, acks, redelivery of an event
// nobody acknowledged, and `disconnect` making the official client (Bolt's SocketModeReceiver, @slack/socket-mode)
// reconnect.
import { SocketModeReceiver } from '@slack/bolt';
import { WebAPIPlatformError, WebClient } from '@slack/web-api';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WebSocket } from 'ws';
import { type SlackEmulator, startSlackEmulator } from '../../../src/emulators/slack/index.js';
import { rejectionOf, silentLogger } from './slack-test-kit.js';

const APP_TOKEN = 'xapp-1-A0EMULATED-1-socket-mode-test';
const BOT_TOKEN = 'xoxb-socket-mode-bot';
const CHANNEL = 'C0SOCKET01';

let emulator: SlackEmulator | undefined;
const stops: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
  await emulator?.close();
  emulator = undefined;
});

async function call(endpoint: string, body?: unknown, method = 'POST') {
  const res = await fetch(`${emulator!.url}/_emulator/${endpoint}`, {
    method,
    ...(body === undefined
      ? {}
      : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const webClient = (token: string) =>
  new WebClient(token, {
    slackApiUrl: `${emulator!.url}/api/`,
    retryConfig: { retries: 0 },
    logger: silentLogger,
  });

/**
 * The official Socket Mode client, as Bolt's SocketModeReceiver builds it. Its ping timeout is also its delay
 * before a reconnect: 1.5 s instead of 5 s, still long enough that a busy machine never misses a pong.
 */
function socketClient(token = APP_TOKEN) {
  const receiver = new SocketModeReceiver({
    appToken: token,
    logger: silentLogger,
    clientPingTimeout: 1500,
    installerOptions: { clientOptions: { slackApiUrl: `${emulator!.url}/api/` } },
  });
  stops.push(() => receiver.client.disconnect());
  return receiver.client;
}

interface Delivery {
  kind: string;
  id: string;
  status: number;
  via: string;
  envelopeId?: string;
  retry?: number;
}
const deliveries = async () =>
  (await call('deliveries', undefined, 'GET')).body.deliveries as unknown as Delivery[];

/** A message of the app's with an Approve button, to press. */
async function postCard(): Promise<string> {
  const posted = await webClient(BOT_TOKEN).chat.postMessage({
    channel: CHANNEL,
    text: 'Approve rm -rf build?',
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: 'Approve `rm -rf build`?' } },
      {
        type: 'actions',
        block_id: 'policy',
        elements: [
          {
            type: 'button',
            action_id: 'approve',
            value: 'approve',
            text: { type: 'plain_text', text: 'Approve' },
          },
        ],
      },
    ],
  });
  return posted.ts!;
}

describe('Slack emulator: apps.connections.open', () => {
  it('answers a WebSocket URL to the registered app-level token, invalid_auth to another, not_allowed_token_type to a bot token', async () => {
    emulator = await startSlackEmulator({ limits: [] });
    // No Socket Mode app yet: nobody's app token is known.
    const before = await rejectionOf(webClient(APP_TOKEN).apps.connections.open());
    expect((before as WebAPIPlatformError).data.error).toBe('invalid_auth');

    expect((await call('app', { appToken: APP_TOKEN })).body).toEqual({ registered: true });
    const opened = await webClient(APP_TOKEN).apps.connections.open();
    expect(opened.ok).toBe(true);
    expect(opened.url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/link\/\?ticket=[0-9a-f-]+&app_id=A0EMULATED$/);

    const wrong = await rejectionOf(webClient('xapp-1-A0EMULATED-1-someone-else').apps.connections.open());
    expect(wrong).toBeInstanceOf(WebAPIPlatformError);
    expect((wrong as WebAPIPlatformError).data).toMatchObject({ ok: false, error: 'invalid_auth' });
    const bot = await rejectionOf(webClient(BOT_TOKEN).apps.connections.open());
    expect((bot as WebAPIPlatformError).data.error).toBe('not_allowed_token_type');

    // The URL is recorded as handed out, never the ticket.
    const opens = emulator.state.calls().filter((c) => c.path === '/api/apps.connections.open');
    expect(opens.map((c) => c.details?.error ?? 'ok')).toEqual([
      'invalid_auth',
      'ok',
      'invalid_auth',
      'not_allowed_token_type',
    ]);
    expect(JSON.stringify(emulator.state.calls())).not.toContain('ticket=');
  });

  it('refuses a registration that is not an app-level token, or gives both url and appToken', async () => {
    emulator = await startSlackEmulator({ limits: [] });
    const botToken = await call('app', { appToken: BOT_TOKEN });
    expect(botToken.status).toBe(400);
    expect(String(botToken.body.error)).toMatch(/app-level token \(xapp-…/);
    const both = await call('app', { appToken: APP_TOKEN, url: 'http://127.0.0.1:1/events' });
    expect(both.status).toBe(400);
    expect(String(both.body.error)).toMatch(/url .* or appToken .*exactly one/);
  });

  it('a ticket opens one connection: a second upgrade with it is refused', async () => {
    emulator = await startSlackEmulator({ limits: [] });
    await call('app', { appToken: APP_TOKEN });
    const { url } = await webClient(APP_TOKEN).apps.connections.open();
    const first = new WebSocket(url!);
    stops.push(async () => first.terminate());
    const hello = await new Promise<Record<string, unknown>>((resolve, reject) => {
      first.once('message', (data) => resolve(JSON.parse(data.toString()) as Record<string, unknown>));
      first.once('error', reject);
    });
    expect(hello).toMatchObject({
      type: 'hello',
      num_connections: 1,
      connection_info: { app_id: 'A0EMULATED' },
    });
    const again = new WebSocket(url!);
    const refused = await new Promise<number>((resolve) =>
      again.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0)),
    );
    expect(refused).toBe(401);
  });
});

describe('Slack emulator: Socket Mode envelopes', () => {
  it("hello, then a person's message as an events_api envelope; its ack is the delivery", async () => {
    emulator = await startSlackEmulator({ limits: [] });
    await call('app', { appToken: APP_TOKEN });
    const client = socketClient();
    const envelopes: Record<string, unknown>[] = [];
    client.on('message', async ({ ack, body, envelope_id, retry_num, accepts_response_payload }) => {
      envelopes.push({ envelope_id, body, retry_num, accepts_response_payload });
      await ack();
    });
    // start() resolves on the emulator's `hello`.
    await client.start();
    expect(emulator.socketMode.connections()).toBe(1);

    const posted = await call('inbound', { space: CHANNEL, text: 'deploy it <!here>', user: 'U0ALICE001' });
    expect(posted.status).toBe(200);
    expect(envelopes).toEqual([
      {
        envelope_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        retry_num: 0,
        accepts_response_payload: false,
        body: expect.objectContaining({
          type: 'event_callback',
          team_id: 'T0EMULATED',
          api_app_id: 'A0EMULATED',
          event_id: expect.stringMatching(/^Ev/),
          event: expect.objectContaining({
            type: 'message',
            channel: CHANNEL,
            channel_type: 'channel',
            user: 'U0ALICE001',
            text: 'deploy it <!here>',
            ts: posted.body.messageId,
          }),
        }),
      },
    ]);
    expect(await deliveries()).toEqual([
      {
        kind: 'event',
        id: (envelopes[0]!.body as { event_id: string }).event_id,
        status: 200,
        via: 'socket',
        envelopeId: envelopes[0]!.envelope_id,
        retry: 0,
      },
    ]);
    expect((await call('socket', undefined, 'GET')).body).toMatchObject({
      enabled: true,
      opened: 1,
      connections: [{ draining: false, acks: 1 }],
      unacked: [],
    });
  });

  it('a button press is an interactive block_actions envelope; the ack and the response_url reply make the click', async () => {
    emulator = await startSlackEmulator({ limits: [] });
    await call('app', { appToken: APP_TOKEN });
    const client = socketClient();
    const seen: { type: string; body: Record<string, unknown> }[] = [];
    client.on('interactive', async ({ ack, body }) => {
      seen.push({ type: 'interactive', body });
      // As Bolt's `respond`: an ephemeral reply through the response_url, then the ack.
      await fetch(body.response_url as string, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ response_type: 'ephemeral', text: 'Noted.' }),
      });
      await ack();
    });
    await client.start();
    const ts = await postCard();

    const click = await call('click', { messageId: ts, action: 'approve', user: 'U0ALICE001' });
    expect(click.body).toEqual({ delivered: true, status: 200, reply: 'Noted.' });
    expect(seen).toEqual([
      {
        type: 'interactive',
        body: expect.objectContaining({
          type: 'block_actions',
          container: expect.objectContaining({ message_ts: ts, channel_id: CHANNEL }),
          user: expect.objectContaining({ id: 'U0ALICE001' }),
          actions: [expect.objectContaining({ action_id: 'approve', block_id: 'policy', value: 'approve' })],
        }),
      },
    ]);
    expect(await deliveries()).toEqual([
      expect.objectContaining({ kind: 'interaction', status: 200, via: 'socket' }),
    ]);
  });

  it('an event nobody acknowledged is sent again with retry_attempt and the same event_id; a press is not', async () => {
    emulator = await startSlackEmulator({ limits: [], socketMode: { ackTimeoutMs: 200 } });
    await call('app', { appToken: APP_TOKEN });
    const client = socketClient();
    const got: { eventId: string; envelopeId: string; retry: number; reason: unknown }[] = [];
    client.on('message', async ({ ack, body, envelope_id, retry_num, retry_reason }) => {
      got.push({ eventId: body.event_id, envelopeId: envelope_id, retry: retry_num, reason: retry_reason });
      // Only the second delivery is acknowledged.
      if (got.length === 2) await ack();
    });
    let pressed = 0;
    client.on('interactive', () => {
      pressed += 1; // never acknowledged
    });
    await client.start();

    await call('inbound', { space: CHANNEL, text: 'hello?' });
    await vi.waitFor(() => expect(got).toHaveLength(2), { timeout: 10_000, interval: 20 });
    expect(got[1]).toMatchObject({ eventId: got[0]!.eventId, retry: 1, reason: 'timeout' });
    expect(got[0]).toMatchObject({ retry: 0, reason: '' });
    expect(got[1]!.envelopeId).not.toBe(got[0]!.envelopeId);
    expect((await deliveries()).map((d) => [d.kind, d.retry, d.status])).toEqual([
      ['event', 0, 0],
      ['event', 1, 200],
    ]);

    const ts = await postCard();
    const click = await call('click', { messageId: ts, action: 'approve' });
    expect(click.body).toEqual({ delivered: false, status: 0 });
    expect(pressed).toBe(1);
    expect((await deliveries()).filter((d) => d.kind === 'interaction')).toEqual([
      expect.objectContaining({ status: 0, retry: 0 }),
    ]);
  });

  it('an event never acknowledged is retried 3 times, then recorded as missed', async () => {
    emulator = await startSlackEmulator({ limits: [], socketMode: { ackTimeoutMs: 100 } });
    await call('app', { appToken: APP_TOKEN });
    const client = socketClient();
    const retries: number[] = [];
    client.on('message', ({ retry_num }) => {
      retries.push(retry_num);
    });
    await client.start();
    await call('inbound', { space: CHANNEL, text: 'anyone?' });
    await vi.waitFor(async () => expect(await deliveries()).toHaveLength(4), {
      timeout: 10_000,
      interval: 20,
    });
    expect(retries).toEqual([0, 1, 2, 3]);
    expect((await deliveries()).every((d) => d.status === 0)).toBe(true);
    expect((await call('socket', undefined, 'GET')).body.unacked).toEqual([]);
  });

  it('disconnect (refresh_requested): the client closes, opens a new connection, and gets the next event there', async () => {
    emulator = await startSlackEmulator({ limits: [] });
    await call('app', { appToken: APP_TOKEN });
    const client = socketClient();
    const texts: string[] = [];
    let reconnecting = 0;
    client.on('reconnecting', () => {
      reconnecting += 1;
    });
    client.on('message', async ({ ack, event }) => {
      texts.push(event.text);
      await ack();
    });
    await client.start();
    const first = emulator.socketMode.view().connections[0]!.id;

    expect((await call('socket/disconnect', { reason: 'refresh_requested' })).body).toEqual({
      disconnected: 1,
    });
    await vi.waitFor(
      () => {
        const { connections, opened } = emulator!.socketMode.view();
        expect(opened).toBeGreaterThanOrEqual(2);
        expect(connections.map((c) => c.id)).toEqual([expect.not.stringMatching(first)]);
      },
      { timeout: 10_000, interval: 20 },
    );
    expect(reconnecting).toBeGreaterThanOrEqual(1);

    await call('inbound', { space: CHANNEL, text: 'after the refresh' });
    expect(texts).toEqual(['after the refresh']);
    expect((await deliveries()).map((d) => d.status)).toEqual([200]);
  });
});
