/**
 * spec: the project standard "bad input gets a clear error naming what is
 * wrong, and is kept (dead letters), never silently dropped", for the Google
 * Chat intake inside `turnlog serve` (docs/http-api.md "Platform intake"): a
 * request whose JWT verified but that turnlog cannot take (a body that is not
 * JSON or not a Chat event, an event type it does not know, a button it did
 * not render, a click on a message it does not know, a runtime that throws)
 * is stored as a dead letter with source `intake:gchat`, redacted (issue 9),
 * and Chat gets its answer (400 naming the problem, or 200 with a private
 * message to the person). A request that fails verification is refused and
 * counted, never stored.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryStore } from '../../../src/store/memory.js';
import type { TurnlogStore } from '../../../src/store/store.js';
import { type GchatE2E, SPACE_NAME, startGchatE2E } from '../../e2e/gchat/harness.js';
import { startTestServe, type TestServe } from '../../serve/serve.helpers.js';

const AUDIENCE = '1234567890';
/** A credential a person pasted into something turnlog keeps: it must not reach the store. */
const LEAKED = 'ghp_0123456789abcdefghijklmnopqrstuvwxyzAB';

let keys: GchatE2E | undefined;
let serve: TestServe | undefined;
let relay: Server | undefined;
afterEach(async () => {
  await serve?.close();
  await new Promise((resolve) => (relay ? relay.close(resolve) : resolve(undefined)));
  await keys?.stop();
  keys = serve = relay = undefined;
});

/**
 * `turnlog serve` with the Google Chat intake; the emulator's Chat app points
 * at a relay in front of it that remembers the last Authorization header, so
 * a test can send any body with a token the intake verifies.
 */
async function start(store: TurnlogStore = createMemoryStore()) {
  keys = await startGchatE2E();
  const e = keys;
  serve = await startTestServe({
    store,
    config: {
      platforms: {
        gchat: {
          apiUrl: e.emulator.url,
          events: { audience: AUDIENCE, jwksUrl: `${e.emulator.url}/_emulator/jwks` },
        },
      },
    },
  });
  serve.clock.set(e.clock.now());
  const endpoint = `${serve.url}/v1/platforms/gchat/events`;
  let authorization = '';
  relay = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      authorization = req.headers.authorization ?? '';
      const forwarded = await fetch(endpoint, {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/json' },
        body: Buffer.concat(chunks),
      });
      res.writeHead(forwarded.status, { 'content-type': 'application/json' }).end(await forwarded.text());
    });
  });
  await new Promise<void>((resolve) => relay?.listen(0, '127.0.0.1', resolve));
  const emulator = (path: string, body: unknown) =>
    fetch(`${e.emulator.url}/_emulator/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  await emulator('app', {
    url: `http://127.0.0.1:${(relay.address() as AddressInfo).port}/`,
    secret: AUDIENCE,
  });
  // One real message, so the relay has seen a token Chat signed for this audience.
  const posted = (await (await emulator('inbound', { space: SPACE_NAME, text: 'hello' })).json()) as {
    messageId: string;
  };
  const send = async (body: string, auth = authorization) => {
    const res = await fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(auth ? { authorization: auth } : {}) },
      body,
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const deadLetters = async () =>
    (await (serve as TestServe).store.deadLetters()).filter((d) => d.source === 'intake:gchat');
  return { serve, send, deadLetters, posted };
}

const event = (type: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    type,
    eventTime: '2026-01-01T12:00:00Z',
    space: { name: SPACE_NAME, type: 'ROOM' },
    user: { name: 'users/bob', displayName: 'Bob' },
    message: { name: `${SPACE_NAME}/messages/not-a-card`, thread: { name: `${SPACE_NAME}/threads/t1` } },
    ...extra,
  });

describe('Google Chat intake: what it cannot take is kept as a dead letter', () => {
  it('a verified body that is not JSON: 400 naming the problem, kept with the secret in it redacted', async () => {
    const { send, deadLetters } = await start();
    const res = await send(`{"type":"MESSAGE","message":{"text":"token ${LEAKED}"`);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/the body is not JSON/);
    const kept = await deadLetters();
    expect(kept).toEqual([
      expect.objectContaining({ reason: expect.stringMatching(/the body is not JSON/) }),
    ]);
    expect(kept[0]?.payload).toContain('"type":"MESSAGE"');
    expect(kept[0]?.payload).toContain('[REDACTED');
    expect(JSON.stringify(kept)).not.toContain(LEAKED);
  });

  it('a body that starts with a secret: neither the answer nor the log quotes any of it', async () => {
    const { send, deadLetters, serve } = await start();
    const res = await send(`${LEAKED} and more`);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/not valid JSON/);
    expect(JSON.stringify(res.body)).not.toContain('ghp_');
    expect(serve.logText()).toMatch(/kept a request turnlog could not take/);
    expect(serve.logText()).not.toContain('ghp_');
    expect(JSON.stringify(await deadLetters())).not.toContain('ghp_');
  });

  it('an event type turnlog does not know, an over-limit body (413) and an event without a space (400): each kept naming what is wrong', async () => {
    const { send, deadLetters } = await start();
    expect((await send(event('WIDGET_UPDATED'))).status).toBe(400);
    expect((await send(JSON.stringify({ padding: 'x'.repeat(300_000) }))).status).toBe(413);
    expect((await send(JSON.stringify({ type: 'MESSAGE', user: { name: 'users/bob' } }))).status).toBe(400);
    // Chat telling the app where it is: acknowledged, nothing wrong, nothing kept.
    expect((await send(event('ADDED_TO_SPACE'))).status).toBe(200);
    expect((await deadLetters()).map((d) => d.reason)).toEqual([
      expect.stringMatching(/unknown Google Chat event type "WIDGET_UPDATED"/),
      expect.stringMatching(/body over 262144 bytes: not a Google Chat event; its first bytes kept/),
      expect.stringMatching(/not a Google Chat event: space/),
    ]);
  });

  it('a button turnlog did not render and a click on a message it does not know: the person is told, the click is kept', async () => {
    const { send, deadLetters } = await start();
    const foreign = await send(
      event('CARD_CLICKED', { common: { invokedFunction: 'other.app', parameters: { note: LEAKED } } }),
    );
    expect(foreign.status).toBe(200);
    expect(foreign.body.text).toBe('turnlog does not know this button (other.app).');
    const unknown = await send(
      event('CARD_CLICKED', {
        common: { invokedFunction: 'turnlog.policyDecision', parameters: { action: 'approve' } },
      }),
    );
    expect(unknown.status).toBe(200);
    expect(unknown.body.text).toMatch(/turnlog does not know message/);
    const kept = await deadLetters();
    expect(kept.map((d) => d.reason)).toEqual([
      expect.stringMatching(
        /a click on a button turnlog did not render: turnlog does not know this button \(other\.app\)/,
      ),
      expect.stringMatching(
        /a click turnlog did not take: turnlog does not know message spaces\/AAAA\/messages\/not-a-card/,
      ),
    ]);
    expect(kept[1]?.payload).toContain('turnlog.policyDecision');
    expect(JSON.stringify(kept)).not.toContain(LEAKED);
  });

  it('a runtime that throws on a click: the person is told to try again, the click is kept with the error', async () => {
    const store = createMemoryStore();
    store.card = () => {
      throw new Error('the card table is unreadable');
    };
    const { send, deadLetters } = await start(store);
    const res = await send(
      event('CARD_CLICKED', {
        common: { invokedFunction: 'turnlog.policyDecision', parameters: { action: 'approve' } },
      }),
    );
    expect(res.status).toBe(200);
    expect(res.body.text).toMatch(/could not record this press; try again/);
    expect(await deadLetters()).toEqual([
      expect.objectContaining({
        reason: expect.stringMatching(/the runtime could not take a click: the card table is unreadable/),
      }),
    ]);
  });

  it('a request that fails verification is refused and counted, never stored', async () => {
    const { send, deadLetters, serve } = await start();
    expect((await send(`{"not json ${LEAKED}`, 'Bearer not.a.jwt')).status).toBe(401);
    expect((await send(`{"not json`, '')).status).toBe(401);
    expect(await deadLetters()).toEqual([]);
    expect(
      serve.logs.filter((l) => l.msg === 'gchat intake: refused a request that failed verification'),
    ).toHaveLength(2);
  });
});
