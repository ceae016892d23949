// spec: issue 11 item 6 (emulator fidelity: Slack Socket Mode) — a ticket from `apps.connections.open` is
// short-lived and single-use (Slack's URL is "temporary"; the emulator keeps it 30 s): past that, the upgrade
// is refused with 401 and the client must ask for a new URL. The emulator pings its connections as Slack does,
// so the official client (@slack/socket-mode, which drops a connection that hears no ping from the server
// within `serverPingTimeout`) keeps its one connection instead of reconnecting over and over.
import { SocketModeReceiver } from '@slack/bolt';
import { WebClient } from '@slack/web-api';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WebSocket } from 'ws';
import { type SlackEmulator, startSlackEmulator } from '../../../src/emulators/slack/index.js';
import { SOCKET_MODE_TICKET_TTL_MS } from '../../../src/emulators/slack/socket-mode.js';
import { silentLogger } from './slack-test-kit.js';

const APP_TOKEN = 'xapp-1-A0EMULATED-1-socket-lifetime-test';

let emulator: SlackEmulator | undefined;
const stops: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
  await emulator?.close();
  emulator = undefined;
});

async function register(): Promise<void> {
  const res = await fetch(`${emulator!.url}/_emulator/app`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ appToken: APP_TOKEN }),
  });
  expect(res.status).toBe(200);
}

const openUrl = async (): Promise<string> => {
  const opened = await new WebClient(APP_TOKEN, {
    slackApiUrl: `${emulator!.url}/api/`,
    retryConfig: { retries: 0 },
    logger: silentLogger,
  }).apps.connections.open();
  return opened.url!;
};

/** Connects with `url`: the upgrade's HTTP status when refused, else `open` (the socket is closed after). */
function connect(url: string): Promise<number | 'open'> {
  const socket = new WebSocket(url);
  stops.push(() => socket.terminate());
  return new Promise((resolve, reject) => {
    socket.once('open', () => resolve('open'));
    socket.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    socket.once('error', reject);
  });
}

describe('Slack emulator: Socket Mode tickets are short-lived', () => {
  it('a ticket opens a connection until it expires; an expired one is refused with 401', async () => {
    let now = 1_700_000_000_000;
    emulator = await startSlackEmulator({ limits: [], socketMode: { now: () => now } });
    await register();
    const fresh = await openUrl();
    const stale = await openUrl();
    now += SOCKET_MODE_TICKET_TTL_MS - 1;
    expect(await connect(fresh)).toBe('open');
    now += 1;
    expect(await connect(stale)).toBe(401);
    // A new URL is the way back in.
    expect(await connect(await openUrl())).toBe('open');
  });

  it('an expired ticket stays refused, and a used one too', async () => {
    let now = 1_700_000_000_000;
    emulator = await startSlackEmulator({ limits: [], socketMode: { now: () => now, ticketTtlMs: 5000 } });
    await register();
    const url = await openUrl();
    expect(await connect(url)).toBe('open');
    expect(await connect(url)).toBe(401);
    const late = await openUrl();
    now += 5000;
    expect(await connect(late)).toBe(401);
    now -= 5000; // even were the clock to go back: the refused ticket is gone
    expect(await connect(late)).toBe(401);
  });
});

describe('Slack emulator: Socket Mode pings', () => {
  it('pings every connection at its interval', async () => {
    emulator = await startSlackEmulator({ limits: [], socketMode: { pingIntervalMs: 50 } });
    await register();
    const socket = new WebSocket(await openUrl());
    stops.push(() => socket.terminate());
    let pings = 0;
    socket.on('ping', () => {
      pings += 1;
    });
    await vi.waitFor(() => expect(pings).toBeGreaterThanOrEqual(3), { timeout: 10_000, interval: 20 });
  });

  it('the official client keeps its one connection past its serverPingTimeout', async () => {
    emulator = await startSlackEmulator({ limits: [], socketMode: { pingIntervalMs: 100 } });
    await register();
    const receiver = new SocketModeReceiver({
      appToken: APP_TOKEN,
      logger: silentLogger,
      serverPingTimeout: 600,
      clientPingTimeout: 1500,
      installerOptions: { clientOptions: { slackApiUrl: `${emulator.url}/api/` } },
    });
    stops.push(() => receiver.client.disconnect());
    await receiver.client.start();
    // A watcher of its own counts the emulator's pings: many serverPingTimeouts pass meanwhile.
    const watcher = new WebSocket(await openUrl());
    stops.push(() => watcher.terminate());
    let pings = 0;
    watcher.on('ping', () => {
      pings += 1;
    });
    await vi.waitFor(() => expect(pings).toBeGreaterThanOrEqual(20), { timeout: 20_000, interval: 50 });
    // The client's connection and the watcher's: the client never had to open another.
    expect(emulator.socketMode.view().opened).toBe(2);
    expect(emulator.socketMode.connections()).toBe(2);
  });
});
