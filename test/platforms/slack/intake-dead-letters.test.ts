// spec: the project standard "bad input gets a clear error naming what is wrong, and is kept (dead letters),
// never silently dropped", for the Slack intake (docs/http-api.md "Platform intake"): a request that passed
// Slack's signature check but cannot be taken (a body that does not parse, an event type or interaction
// turnlog does not handle, a click on a message turnlog does not know, a runtime that throws) is stored as
// a dead letter with source `intake:slack` and a reason naming what is wrong, redacted (issue 9), and Slack
// gets the answer it expects (400 for a body that does not parse, 200 otherwise so it does not retry).
// A request that fails verification is refused and counted, never stored.
import { createHmac } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { IntakeSink } from '../../../src/actions/types.js';
import { builtinPlatforms } from '../../../src/platforms/all.js';

import type { SlackIntake } from '../../../src/platforms/slack/intake.js';
import type { PlatformIntake } from '../../../src/registry/descriptor.js';
import { type IngestServer, startIngestServer } from '../../../src/serve/http.js';
import { createServeLogger } from '../../../src/serve/logger.js';
import { createIntakes } from '../../../src/serve/surfaces.js';
import {
  BOT_TOKEN,
  CHANNEL,
  inspectEmulator,
  type SlackE2E,
  startSlackE2E,
} from '../../e2e/slack/harness.js';

const SECRET = 'slack-signing-secret-0123456789abcdef';
/** A credential a person pasted into something turnlog keeps: it must not reach the store. */
const LEAKED = 'xoxb-1234567890-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx';

let e: SlackE2E | undefined;
let server: IngestServer | undefined;
let intake: PlatformIntake | undefined;
afterEach(async () => {
  await intake?.stop?.();
  await server?.close();
  await e?.stop();
  e = intake = server = undefined;
});

/** The Slack intake as serve builds it (createIntakes, dead letters into the store), on the Slack emulator. */
async function start(opts: { sink?: (runtime: IntakeSink) => IntakeSink } = {}) {
  e = await startSlackE2E();
  const h = e;
  const warnings: string[] = [];
  const intakes = createIntakes(
    { slack: { token: BOT_TOKEN, apiUrl: h.emulator.url, signingSecret: SECRET } } as never,
    builtinPlatforms,
    {
      sink: opts.sink ? opts.sink(h.runtime) : h.runtime,
      now: () => h.clock.now(),
      logger: {
        info: () => {},
        warn: (message, fields) => warnings.push(`${message} ${JSON.stringify(fields)}`),
      },
    },
    (record) => h.store.deadLetter(record),
  );
  intake = intakes.slack;
  if (!intake) throw new Error('no Slack intake for a config with a signing secret');
  await intake.start?.();
  server = await startIngestServer({
    runtime: h.runtime,
    intakes,
    surfaces: {},
    host: '127.0.0.1',
    port: 0,
    bodyLimitBytes: 1 << 20,
    deadLetter: () => {},
    logger: createServeLogger('silent'),
  });
  const url = `${server.url}/v1/platforms/slack/events`;
  await inspectEmulator(h.emulator.url, 'app', { url, secret: SECRET });
  const post = async (body: string, contentType = 'application/json', secret = SECRET) => {
    const now = Math.floor(h.clock.now() / 1000);
    const signature = `v0=${createHmac('sha256', secret).update(`v0:${now}:${body}`).digest('hex')}`;
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': contentType,
        'x-slack-request-timestamp': String(now),
        'x-slack-signature': signature,
      },
      body,
    });
    return { status: res.status, text: await res.text() };
  };
  const deadLetters = async () => (await h.store.deadLetters()).filter((d) => d.source === 'intake:slack');
  return { h, post, deadLetters, warnings };
}

describe('Slack intake: what it cannot take is kept as a dead letter', () => {
  it('a signed body that is not JSON: 400 naming the problem, kept with the secret in it redacted', async () => {
    const { post, deadLetters } = await start();
    const body = `{"type":"event_callback","token":"${LEAKED}","event":{"type":"message"`;
    const res = await post(body);
    expect(res.status).toBe(400);
    expect(res.text).toMatch(/JSON/);
    const kept = await deadLetters();
    expect(kept).toEqual([
      expect.objectContaining({ source: 'intake:slack', reason: expect.stringMatching(/not JSON|JSON/) }),
    ]);
    expect(kept[0]?.payload).toContain('event_callback');
    expect(kept[0]?.payload).toContain('[REDACTED');
    expect(JSON.stringify(kept)).not.toContain(LEAKED);
  });

  it('a body that starts with a secret: neither the answer nor the log quotes any of it', async () => {
    const { post, deadLetters, warnings } = await start();
    const res = await post(`${LEAKED} and more`);
    expect(res.status).toBe(400);
    expect(res.text).toMatch(/not valid JSON/);
    expect(res.text).not.toContain('xoxb-');
    expect(warnings.join('\n')).toMatch(/kept a request turnlog could not take/);
    expect(warnings.join('\n')).not.toContain('xoxb-');
    expect(JSON.stringify(await deadLetters())).not.toContain('xoxb-');
  });

  it('an interactivity form whose payload is not a JSON object: 400, kept', async () => {
    const { post, deadLetters } = await start();
    const res = await post(
      new URLSearchParams({ payload: '"just a string"' }).toString(),
      'application/x-www-form-urlencoded',
    );
    expect(res.status).toBe(400);
    expect(await deadLetters()).toEqual([
      expect.objectContaining({ reason: expect.stringMatching(/payload is not a JSON object/) }),
    ]);
  });

  it('an event type turnlog does not take and an interaction other than a button: 200 (no retry), each kept naming its type', async () => {
    const { post, deadLetters } = await start();
    const reaction = await post(
      JSON.stringify({
        type: 'event_callback',
        event_id: 'EvREACT',
        team_id: 'T0EMULATED',
        event: { type: 'reaction_added', user: 'U0PERSON01', reaction: 'eyes', item: { channel: CHANNEL } },
      }),
    );
    expect(reaction.status).toBe(200);
    const view = await post(
      new URLSearchParams({
        payload: JSON.stringify({ type: 'view_submission', user: { id: 'U0PERSON01' }, view: { id: 'V1' } }),
      }).toString(),
      'application/x-www-form-urlencoded',
    );
    expect(view.status).toBe(200);
    const odd = await post(JSON.stringify({ type: 'something_else', note: `key ${LEAKED}` }));
    expect(odd.status).toBe(200);
    const kept = await deadLetters();
    expect(kept.map((d) => d.reason)).toEqual([
      expect.stringMatching(/reaction_added event: turnlog takes only message events/),
      expect.stringMatching(/view_submission interaction: turnlog takes only block_actions/),
      expect.stringMatching(/"something_else".*not an Events API event or an interaction turnlog takes/),
    ]);
    expect(JSON.stringify(kept)).not.toContain(LEAKED);
  });

  it("people's messages the intake skips on purpose (bots, the app's own, edits) are not dead letters", async () => {
    const { post, deadLetters } = await start();
    const event = (id: string, extra: Record<string, unknown>) =>
      post(
        JSON.stringify({
          type: 'event_callback',
          event_id: id,
          team_id: 'T0EMULATED',
          event: {
            type: 'message',
            channel: CHANNEL,
            user: 'U0PERSON01',
            text: 'x',
            ts: '1767268800.0001',
            ...extra,
          },
        }),
      );
    expect((await event('EvBOT', { bot_id: 'B0OTHER', subtype: 'bot_message' })).status).toBe(200);
    expect((await event('EvEDIT', { subtype: 'message_changed' })).status).toBe(200);
    expect(await deadLetters()).toEqual([]);
  });

  it('a click on a message turnlog does not know: the person is told, and the click is kept with the reason', async () => {
    const { h, deadLetters } = await start();
    const res = await fetch(`${h.emulator.url}/api/chat.postMessage`, {
      method: 'POST',
      headers: { authorization: `Bearer ${BOT_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        channel: CHANNEL,
        text: 'not a turnlog card',
        blocks: [
          {
            type: 'actions',
            elements: [{ type: 'button', action_id: 'approve', text: { type: 'plain_text', text: 'OK' } }],
          },
        ],
      }),
    });
    const posted = (await res.json()) as { ts: string };
    const answer = (await inspectEmulator(h.emulator.url, 'click', {
      messageId: posted.ts,
      action: 'approve',
      user: 'U0ALICE001',
    })) as { delivered: boolean; reply?: string };
    expect(answer.delivered).toBe(true);
    expect(answer.reply).toMatch(/turnlog does not know message/);
    const kept = await deadLetters();
    expect(kept).toEqual([
      expect.objectContaining({
        reason: expect.stringMatching(/a click turnlog did not take: turnlog does not know message/),
      }),
    ]);
    expect(kept[0]?.payload).toContain('block_actions');
  });

  it('a block_actions payload that is not a button on a message: 200, kept naming why', async () => {
    const { post, deadLetters } = await start();
    const res = await post(
      new URLSearchParams({
        payload: JSON.stringify({
          type: 'block_actions',
          user: { id: 'U0PERSON01' },
          container: { type: 'view', view_id: 'V1' },
          actions: [{ type: 'button', action_id: 'approve', action_ts: '1767268800.000100' }],
        }),
      }).toString(),
      'application/x-www-form-urlencoded',
    );
    expect(res.status).toBe(200);
    expect(await deadLetters()).toEqual([
      expect.objectContaining({ reason: expect.stringMatching(/not a button on a message/) }),
    ]);
  });

  it('a runtime that throws: Slack still gets 200, a click is told to try again, each is kept with the error', async () => {
    const { h, post, deadLetters } = await start({
      sink: () => ({
        receive: () => Promise.reject(new Error('store is full')),
      }),
    });
    const res = await post(
      JSON.stringify({
        type: 'event_callback',
        event_id: 'EvTHROW',
        team_id: 'T0EMULATED',
        event: { type: 'message', channel: CHANNEL, user: 'U0PERSON01', text: 'hi', ts: '1767268800.000100' },
      }),
    );
    expect(res.status).toBe(200);
    const posted = (await (
      await fetch(`${h.emulator.url}/api/chat.postMessage`, {
        method: 'POST',
        headers: { authorization: `Bearer ${BOT_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          channel: CHANNEL,
          text: 'a card',
          blocks: [
            {
              type: 'actions',
              elements: [{ type: 'button', action_id: 'approve', text: { type: 'plain_text', text: 'OK' } }],
            },
          ],
        }),
      })
    ).json()) as { ts: string };
    const answer = (await inspectEmulator(h.emulator.url, 'click', {
      messageId: posted.ts,
      action: 'approve',
    })) as { delivered: boolean; status: number; reply?: string };
    expect(answer).toEqual({
      delivered: true,
      status: 200,
      reply: 'turnlog could not record this press; try again.',
    });
    await vi.waitFor(async () =>
      expect((await deadLetters()).map((d) => d.reason)).toEqual([
        expect.stringMatching(/could not take a message: store is full/),
        expect.stringMatching(/could not take a click: store is full/),
      ]),
    );
  });

  it("through the app's listeners (what any receiver, Socket Mode too, hands Bolt): an event or interaction turnlog does not take is kept and acknowledged", async () => {
    const { deadLetters } = await start();
    const app = (intake as SlackIntake).app;
    if (!app) throw new Error('the Slack app is not started');
    const acks: unknown[] = [];
    const ack = async (reply?: unknown) => void acks.push(reply ?? null);
    await app.processEvent({
      body: {
        type: 'event_callback',
        team_id: 'T0EMULATED',
        event: { type: 'app_mention', user: 'U0PERSON01' },
      },
      ack,
    });
    await app.processEvent({
      body: { type: 'shortcut', team: { id: 'T0EMULATED' }, user: { id: 'U0PERSON01' }, callback_id: 'cb' },
      ack,
    });
    expect((await deadLetters()).map((d) => d.reason)).toEqual([
      expect.stringMatching(/app_mention event: turnlog takes only message events/),
      expect.stringMatching(/shortcut interaction: turnlog takes only block_actions/),
    ]);
    expect(acks).toHaveLength(2);
  });

  it('a request that fails verification is refused and counted, never stored', async () => {
    const { post, deadLetters } = await start();
    const res = await post(`{"not":"json"`, 'application/json', 'not-the-secret');
    expect(res.status).toBe(401);
    expect(intake?.refused()).toBe(1);
    expect(await deadLetters()).toEqual([]);
  });
});
