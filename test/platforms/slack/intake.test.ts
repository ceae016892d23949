// spec: issue 13 items 1, 6, 7 (Slack) — the Slack intake inside turnlog serve's HTTP server: a Bolt App whose
// receiver verifies Slack's v0 signature and timestamp, takes Events API message events and block_actions
// interactions, and relays what the runtime answers; the Slack emulator delivering them the way Slack does.
import { createHmac } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { ClickIntake, IntakeEvent, IntakeResult } from '../../../src/actions/types.js';
import { createSlackIntake, type SlackIntake } from '../../../src/platforms/slack/intake.js';
import { type IngestServer, startIngestServer } from '../../../src/serve/http.js';
import { createServeLogger } from '../../../src/serve/logger.js';
import {
  BOT_TOKEN,
  CHANNEL,
  inspectEmulator,
  landed,
  type SlackE2E,
  startSlackE2E,
} from '../../e2e/slack/harness.js';

const SECRET = 'slack-signing-secret-0123456789abcdef';

let e: SlackE2E | undefined;
let server: IngestServer | undefined;
let intake: SlackIntake | undefined;
afterEach(async () => {
  await intake?.stop?.();
  await server?.close();
  await e?.stop();
  e = intake = server = undefined;
});

/**
 * The runtime (real, on the Slack emulator) behind serve's HTTP server, with the Slack intake mounted and the
 * emulator's app registered at its events URL. `clicks` answers a click instead of the runtime when given
 * (the card registry that resolves clicks is built elsewhere).
 */
async function start(opts: { clicks?: (click: ClickIntake) => IntakeResult } = {}) {
  e = await startSlackE2E();
  const received: IntakeEvent[] = [];
  const warnings: string[] = [];
  const h = e;
  intake = createSlackIntake(
    { token: BOT_TOKEN, apiUrl: h.emulator.url, signingSecret: SECRET },
    {
      sink: {
        async receive(event) {
          received.push(event);
          if (event.kind === 'click' && opts.clicks) return opts.clicks(event);
          return h.runtime.receive(event);
        },
      },
      now: () => h.clock.now(),
      logger: { info: () => {}, warn: (message) => warnings.push(message) },
    },
  );
  if (!intake) throw new Error('no intake for a config with a signing secret');
  await intake.start?.();
  server = await startIngestServer({
    runtime: h.runtime,
    intakes: { slack: intake },
    surfaces: {},
    host: '127.0.0.1',
    port: 0,
    bodyLimitBytes: 1 << 20,
    deadLetter: () => {},
    logger: createServeLogger('silent'),
  });
  const url = `${server.url}/v1/platforms/slack/events`;
  await inspectEmulator(h.emulator.url, 'app', { url, secret: SECRET });
  return { h, url, received, warnings };
}

const sign = (secret: string, timestampS: number, body: string) =>
  `v0=${createHmac('sha256', secret).update(`v0:${timestampS}:${body}`).digest('hex')}`;

function eventBody(eventId: string, ts: string, extra: Record<string, unknown> = {}) {
  return JSON.stringify({
    type: 'event_callback',
    event_id: eventId,
    team_id: 'T0EMULATED',
    event: {
      type: 'message',
      channel: CHANNEL,
      channel_type: 'channel',
      user: 'U0PERSON01',
      text: 'hi',
      ts,
      ...extra,
    },
  });
}

async function post(url: string, body: string, headers: Record<string, string>) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
  return { status: res.status, text: await res.text() };
}

describe('Slack intake: verification', () => {
  it('refuses a forged signature, a missing one and an old timestamp with 401, counting each', async () => {
    const { h, url, received } = await start();
    const now = Math.floor(h.clock.now() / 1000);
    const body = eventBody('Ev1', '1767268800.000100');

    const forged = await post(url, body, {
      'x-slack-request-timestamp': String(now),
      'x-slack-signature': sign('not-the-secret', now, body),
    });
    expect(forged.status).toBe(401);
    const unsigned = await post(url, body, { 'x-slack-request-timestamp': String(now) });
    expect(unsigned.status).toBe(401);
    // A replay: signed right, but six minutes old.
    const old = now - 6 * 60;
    const replayed = await post(url, body, {
      'x-slack-request-timestamp': String(old),
      'x-slack-signature': sign(SECRET, old, body),
    });
    expect(replayed.status).toBe(401);
    // The body changed after signing.
    const tampered = await post(url, body.replace('hi', 'hello'), {
      'x-slack-request-timestamp': String(now),
      'x-slack-signature': sign(SECRET, now, body),
    });
    expect(tampered.status).toBe(401);
    expect(intake?.refused()).toBe(4);
    expect(received).toEqual([]);

    // The same request signed right is taken.
    const good = await post(url, body, {
      'x-slack-request-timestamp': String(now),
      'x-slack-signature': sign(SECRET, now, body),
    });
    expect(good.status).toBe(200);
    expect(received).toHaveLength(1);
    expect(intake?.refused()).toBe(4);
  });

  it('answers url_verification with its challenge', async () => {
    const { h, url } = await start();
    const now = Math.floor(h.clock.now() / 1000);
    const body = JSON.stringify({ type: 'url_verification', token: 't', challenge: 'c-123' });
    const res = await post(url, body, {
      'x-slack-request-timestamp': String(now),
      'x-slack-signature': sign(SECRET, now, body),
    });
    expect(res).toEqual({ status: 200, text: JSON.stringify({ challenge: 'c-123' }) });
  });

  it('ignores an event_id it has seen (Slack retrying) and records the message once', async () => {
    const { h, url, received } = await start();
    const now = Math.floor(h.clock.now() / 1000);
    const body = eventBody('EvDUP', '1767268800.000200');
    const headers = {
      'x-slack-request-timestamp': String(now),
      'x-slack-signature': sign(SECRET, now, body),
    };
    expect((await post(url, body, headers)).status).toBe(200);
    expect(
      (
        await post(url, body, {
          ...headers,
          'x-slack-retry-num': '1',
          'x-slack-retry-reason': 'http_timeout',
        })
      ).status,
    ).toBe(200);
    expect(received).toHaveLength(1);
  });

  // Issue 22 (Slack dedupe): one message delivered under two event_ids makes one `message` action
  // (deduplicated by channel + ts, in the store's outbox, so across restarts too).
  it('one message under two event_ids is one message action', async () => {
    const { h, url, received } = await start();
    const now = Math.floor(h.clock.now() / 1000);
    for (const eventId of ['EvFIRST', 'EvSECOND']) {
      const body = eventBody(eventId, '1767268800.000300');
      const headers = {
        'x-slack-request-timestamp': String(now),
        'x-slack-signature': sign(SECRET, now, body),
      };
      expect((await post(url, body, headers)).status).toBe(200);
    }
    expect(received).toHaveLength(2);
    const messages = (await h.runtime.actions()).actions.filter((a) => a.type === 'message');
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatchObject({ messageId: '1767268800.000300', space: `slack:${CHANNEL}` });
  });

  it("skips bots' messages, the app's own and subtypes other than thread_broadcast", async () => {
    const { h, url, received } = await start();
    const now = Math.floor(h.clock.now() / 1000);
    const send = (id: string, extra: Record<string, unknown>) => {
      const body = eventBody(id, `1767268800.00030${id.length}`, extra);
      return post(url, body, {
        'x-slack-request-timestamp': String(now),
        'x-slack-signature': sign(SECRET, now, body),
      });
    };
    await send('EvA', { bot_id: 'B0OTHER', subtype: 'bot_message' });
    await send('EvBB', { subtype: 'message_changed' });
    await send('EvCCC', { subtype: 'channel_join' });
    await send('EvDDDD', { subtype: 'thread_broadcast', thread_ts: '1767268700.000100' });
    expect(received).toEqual([
      expect.objectContaining({
        kind: 'message',
        threadId: '1767268700.000100',
        dedupeKey: `message:${CHANNEL}:1767268800.000306`,
      }),
    ]);
  });
});

describe('Slack intake: the emulator delivers the way Slack does', () => {
  it("a person's message becomes an anchor a turn hangs its card under", async () => {
    const { h, received } = await start();
    const posted = (await inspectEmulator(h.emulator.url, 'inbound', {
      space: CHANNEL,
      text: 'please look at the build',
    })) as { messageId: string };
    expect(received).toEqual([
      {
        kind: 'message',
        space: `slack:${CHANNEL}`,
        messageId: posted.messageId,
        text: 'please look at the build',
        dm: false,
        user: { id: 'U0PERSON01' },
        at: expect.any(Number),
        dedupeKey: `message:${CHANNEL}:${posted.messageId}`,
      },
    ]);
    // The host names the person's message as the root; the card goes in its thread.
    h.send({ type: 'turn_started', turnId: 'T1', root: { messageId: posted.messageId } });
    h.send({ type: 'tool_call', turnId: 'T1', callId: 'c1', tool: 'Read', input: { path: 'ci.log' } });
    await h.advance(1500);
    expect(landed(h.creates())).toEqual([expect.objectContaining({ thread: posted.messageId })]);
  });

  it('a DM is a message with dm: true', async () => {
    const { h, received } = await start();
    await inspectEmulator(h.emulator.url, 'inbound', { space: 'D0DIRECT01', text: 'hello' });
    expect(received).toEqual([expect.objectContaining({ space: 'slack:D0DIRECT01', dm: true })]);
  });

  it('a click on a button turnlog posted reaches receive as a ClickIntake, and a refusal is told to the person', async () => {
    const clicks: ClickIntake[] = [];
    const { h } = await start({
      clicks: (click) => {
        clicks.push(click);
        return clicks.length === 1
          ? { status: 'accepted' }
          : { status: 'already-decided', text: 'Already approved by Alice.' };
      },
    });
    const root = await h.userMessage('u1');
    h.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1' });
    h.send({ type: 'policy_request', turnId: 'T1', requestId: 'p1', command: 'rm', args: ['-rf', 'build'] });
    await h.advance(1500);
    const card = h.messages().find((m) => (m.buttons ?? []).length > 0);
    expect(card?.buttons?.map((b) => b.action)).toEqual(['approve', 'reject']);

    const first = (await inspectEmulator(h.emulator.url, 'click', {
      messageId: card!.id,
      action: 'approve',
      user: 'U0ALICE001',
    })) as { delivered: boolean; status: number; reply?: string };
    expect(first).toEqual({ delivered: true, status: 200 });
    expect(clicks[0]).toEqual({
      kind: 'click',
      space: `slack:${CHANNEL}`,
      messageId: card!.id,
      threadId: root.messageId,
      action: 'approve',
      user: { id: 'U0ALICE001', name: 'u0alice001' },
      at: expect.any(Number),
      dedupeKey: expect.stringMatching(/:U0ALICE001$/),
    });

    const second = await inspectEmulator(h.emulator.url, 'click', {
      messageId: card!.id,
      action: 'reject',
      user: 'U0BOB00001',
    });
    expect(second).toEqual({ delivered: true, status: 200, reply: 'Already approved by Alice.' });
    expect(clicks.map((c) => c.action)).toEqual(['approve', 'reject']);
  });

  it("the runtime's own resolver: the first press is taken quietly, a second one is told who decided", async () => {
    const { h } = await start();
    await h.userMessage('u1');
    h.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1' });
    h.send({ type: 'policy_request', turnId: 'T1', requestId: 'p1', command: 'deploy' });
    await h.advance(1500);
    const card = h.messages().find((m) => (m.buttons ?? []).length > 0)!;
    const press = (action: string, user: string) =>
      inspectEmulator(h.emulator.url, 'click', { messageId: card.id, action, user }) as Promise<{
        delivered: boolean;
        reply?: string;
      }>;
    // Both see the buttons: whichever the runtime takes first wins, the other is told so (ephemeral).
    const answers = await Promise.all([press('approve', 'U0ALICE001'), press('reject', 'U0BOB00001')]);
    expect(answers.every((a) => a.delivered)).toBe(true);
    expect(answers.filter((a) => a.reply === undefined)).toHaveLength(1);
    expect(answers.find((a) => a.reply !== undefined)?.reply).toMatch(/^Already (approved|rejected) by /);
  });

  it('an app registered with another secret is refused: the emulator signs with the secret it was given', async () => {
    const { h, url, received } = await start();
    await inspectEmulator(h.emulator.url, 'app', { url, secret: 'someone-elses-secret' });
    await inspectEmulator(h.emulator.url, 'inbound', { space: CHANNEL, text: 'hi' });
    expect(received).toEqual([]);
    expect(intake?.refused()).toBe(1);
  });
});

describe('createSlackIntake', () => {
  it('is undefined without a signing secret or an app token', () => {
    expect(
      createSlackIntake(
        { token: BOT_TOKEN },
        {
          sink: { receive: async () => ({ status: 'unknown' }) },
          now: Date.now,
          logger: { info() {}, warn() {} },
        },
      ),
    ).toBeUndefined();
  });
});
