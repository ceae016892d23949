// spec: issue 11 items 1 and 9 (Slack Socket Mode) — `turnlog serve` with platforms.slack.appToken and no events
// URL: its Slack intake (Bolt's SocketModeReceiver) connects to the emulator's Socket Mode; a person's message
// reaches the host as a `message` action, a press on the policy card's Approve becomes one `decision` action and
// the card shows who decided; after the emulator's `disconnect` the intake reconnects; a bad app token is a clear
// start-up error naming platforms.slack.appToken.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Action } from '../../../src/actions/types.js';
import { type SlackEmulator, startSlackEmulator } from '../../../src/emulators/slack/index.js';
import type { EmulatedMessage } from '../../../src/emulators/types.js';
import { SlackStartupError } from '../../../src/platforms/slack/app.js';
import { createSlackIntake, type SlackIntake } from '../../../src/platforms/slack/intake.js';
import { type Serve, startServe } from '../../../src/serve/index.js';
import { createServeLogger } from '../../../src/serve/logger.js';
import { createMemoryStore } from '../../../src/store/memory.js';

const CHANNEL = 'C0SOCKMODE';
const SPACE = `slack:${CHANNEL}`;
const APP_TOKEN = 'xapp-1-A0EMULATED-1-serve-socket-mode';
const BOT_TOKEN = 'xoxb-serve-socket-mode';
const INGEST = 'socket-mode-ingest-token-0123456789';

let emulator: SlackEmulator | undefined;
let serve: Serve | undefined;
let intake: SlackIntake | undefined;
afterEach(async () => {
  await intake?.stop?.();
  await serve?.close();
  await emulator?.close();
  serve = emulator = intake = undefined;
});

async function emulatorCall(endpoint: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${emulator!.url}/_emulator/${endpoint}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const answer = (await res.json()) as Record<string, unknown>;
  if (!res.ok) throw new Error(`/_emulator/${endpoint} answered ${res.status}: ${JSON.stringify(answer)}`);
  return answer;
}

const messages = () => emulator!.state.messages(CHANNEL) as EmulatedMessage[];
const buttonsOf = (message: EmulatedMessage | undefined) => (message?.buttons ?? []).map((b) => b.action);

/** `turnlog serve` with Slack over Socket Mode only: no signing secret, no events URL registered. */
function startSocketServe(appToken = APP_TOKEN) {
  return startServe({
    config: {
      ingest: { port: 0, token: INGEST },
      store: { path: ':memory:' },
      platforms: { slack: { apiUrl: emulator!.url, token: 'env:SLACK_BOT', appToken: 'env:SLACK_APP' } },
      visibility: { threadLog: { editDebounceMs: 200 } },
      log: { level: 'silent' },
    },
    env: { SLACK_BOT: BOT_TOKEN, SLACK_APP: appToken },
    store: createMemoryStore(),
    logger: createServeLogger('silent'),
  });
}

/** The agent host: posts run events, long-polls GET /v1/actions. */
function host(url: string) {
  let cursor: string | undefined;
  const seen: Action[] = [];
  return {
    seen,
    async events(...events: Record<string, unknown>[]) {
      const res = await fetch(`${url}/v1/events`, {
        method: 'POST',
        headers: { authorization: `Bearer ${INGEST}`, 'content-type': 'application/x-ndjson' },
        body: events.map((event) => JSON.stringify({ space: SPACE, ...event })).join('\n'),
      });
      expect(res.status).toBe(202);
    },
    /** Whatever actions are waiting now (no long poll). */
    async drain(): Promise<Action[]> {
      const query = new URLSearchParams({ wait: '0', ...(cursor ? { after: cursor } : {}) });
      const res = await fetch(`${url}/v1/actions?${query}`, {
        headers: { authorization: `Bearer ${INGEST}` },
      });
      const page = (await res.json()) as { actions: Action[]; cursor: string };
      cursor = page.cursor;
      seen.push(...page.actions);
      return seen;
    },
    async next<T extends Action['type']>(type: T): Promise<Extract<Action, { type: T }>> {
      const deadline = Date.now() + 20_000;
      while (Date.now() < deadline) {
        const query = new URLSearchParams({ wait: '2', ...(cursor ? { after: cursor } : {}) });
        const res = await fetch(`${url}/v1/actions?${query}`, {
          headers: { authorization: `Bearer ${INGEST}` },
        });
        const page = (await res.json()) as { actions: Action[]; cursor: string };
        cursor = page.cursor;
        seen.push(...page.actions);
        const found = seen.find((action) => action.type === type);
        if (found) {
          seen.splice(seen.indexOf(found), 1);
          return found as Extract<Action, { type: T }>;
        }
      }
      throw new Error(`no ${type} action within 20 s`);
    },
  };
}

describe('serve: Slack over Socket Mode', () => {
  it("a person's message → message action; Approve on the policy card → one decision; the card shows it", async () => {
    emulator = await startSlackEmulator({ limits: [] });
    await emulatorCall('app', { appToken: APP_TOKEN });
    serve = await startSocketServe();
    expect(emulator.socketMode.connections()).toBe(1);
    // Socket Mode only: there is no events URL to post to.
    expect(
      (await fetch(`${serve.url}/v1/platforms/slack/events`, { method: 'POST', body: '{}' })).status,
    ).toBe(404);
    const h = host(serve.url);

    // Alice posts, so her press decides (issue 22.2: only the requester or an approver).
    const person = await emulatorCall('inbound', {
      space: CHANNEL,
      text: 'please clean the build dir',
      user: 'U0ALICE001',
    });
    const message = await h.next('message');
    expect(message).toMatchObject({
      space: SPACE,
      messageId: person.messageId,
      text: 'please clean the build dir',
    });

    await h.events(
      { type: 'turn_started', turnId: 'T1', rootRef: message.id },
      { type: 'policy_request', turnId: 'T1', requestId: 'p1', command: 'rm -rf build' },
    );
    const card = await vi.waitFor(
      () => {
        const found = messages().find((m) => buttonsOf(m).includes('approve'));
        if (!found) throw new Error('no policy card yet');
        return found;
      },
      { timeout: 20_000, interval: 50 },
    );
    expect(card.thread).toBe(person.messageId);

    const alice = await emulatorCall('click', { messageId: card.id, action: 'approve', user: 'U0ALICE001' });
    expect(alice).toEqual({ delivered: true, status: 200 });
    const decision = await h.next('decision');
    expect(decision).toMatchObject({ turnId: 'T1', requestId: 'p1', decision: 'approved' });
    // A second press is acknowledged and told it was decided; it makes no second decision.
    const again = await emulatorCall('click', { messageId: card.id, action: 'reject', user: 'U0ALICE001' });
    expect(again).toMatchObject({ delivered: true, reply: expect.stringMatching(/already approved/i) });

    await vi.waitFor(
      () => {
        const now = messages().find((m) => m.id === card.id);
        expect(buttonsOf(now)).toEqual([]);
        expect(`${now?.text}\n${now?.card?.text ?? ''}`).toMatch(/approved by/i);
      },
      { timeout: 20_000, interval: 50 },
    );
    await h.events({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' });
    // The second press made no second decision.
    expect((await h.drain()).filter((a) => a.type === 'decision')).toEqual([]);
    const sockets = (await (await fetch(`${emulator.url}/_emulator/deliveries`)).json()) as {
      deliveries: { kind: string; status: number; via: string }[];
    };
    expect(sockets.deliveries.map((d) => [d.kind, d.via, d.status])).toEqual([
      ['event', 'socket', 200],
      ['interaction', 'socket', 200],
      ['interaction', 'socket', 200],
    ]);
  });

  it('after the emulator says disconnect, the intake opens a new connection and still takes messages', async () => {
    emulator = await startSlackEmulator({ limits: [] });
    await emulatorCall('app', { appToken: APP_TOKEN });
    serve = await startSocketServe();
    const h = host(serve.url);
    expect(emulator.socketMode.disconnect('refresh_requested')).toBe(1);
    // @slack/socket-mode waits its client ping timeout (5 s) before it reconnects.
    await vi.waitFor(
      () => {
        const view = emulator!.socketMode.view();
        expect(view.opened).toBe(2);
        expect(view.connections.filter((c) => !c.draining)).toHaveLength(1);
      },
      { timeout: 20_000, interval: 50 },
    );
    const person = await emulatorCall('inbound', { space: CHANNEL, text: 'still there?' });
    expect(await h.next('message')).toMatchObject({ messageId: person.messageId, text: 'still there?' });
  });

  it('an app token Slack refuses is a start-up error naming platforms.slack.appToken, and nothing listens', async () => {
    emulator = await startSlackEmulator({ limits: [] });
    await emulatorCall('app', { appToken: APP_TOKEN });
    const refused = startSocketServe('xapp-1-A0EMULATED-1-revoked');
    await expect(refused).rejects.toBeInstanceOf(SlackStartupError);
    await expect(refused).rejects.toThrow(
      /platforms\.slack\.appToken was refused by Slack \(invalid_auth\).*connections:write/,
    );
    expect(emulator.socketMode.connections()).toBe(0);
  });

  it('a bot token given as the app token is refused at start, before any connection is tried', async () => {
    emulator = await startSlackEmulator({ limits: [] });
    await emulatorCall('app', { appToken: APP_TOKEN });
    const refused = startSocketServe(BOT_TOKEN);
    await expect(refused).rejects.toBeInstanceOf(SlackStartupError);
    await expect(refused).rejects.toThrow(/platforms\.slack\.appToken is not an app-level token \(xapp-…\)/);
    expect(emulator.state.calls().filter((c) => c.path === '/api/apps.connections.open')).toEqual([]);
  });
});

describe('Slack intake: Socket Mode start-up', () => {
  it('gives up with a start-up error naming the last refusal when no connection opens in time (the client would retry for ever)', async () => {
    emulator = await startSlackEmulator({ limits: [] });
    await emulatorCall('app', { appToken: APP_TOKEN });
    // Slack answering something the socket client deems worth retrying (here invalid_arguments), every time.
    await emulatorCall('faults', { rules: [{ path: 'apps.connections.open', status: 400 }] });
    intake = createSlackIntake(
      { apiUrl: emulator.url, token: BOT_TOKEN, appToken: APP_TOKEN },
      {
        sink: { receive: async () => ({ status: 'unknown' }) },
        now: Date.now,
        logger: { info() {}, warn() {} },
      },
      { socketModeStartTimeoutMs: 1000 },
    );
    const started = intake!.start!();
    await expect(started).rejects.toBeInstanceOf(SlackStartupError);
    await expect(started).rejects.toThrow(
      /platforms\.slack: no Socket Mode connection within 1 s at http:\/\/127\.0\.0\.1:\d+ \(last: .*invalid_arguments.*\): check platforms\.slack\.appToken/,
    );
    expect(emulator.socketMode.connections()).toBe(0);
  });
});
