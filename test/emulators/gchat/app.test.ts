// spec: docs/emulators.md "Two-way" — Google Chat delivers MESSAGE and CARD_CLICKED events to a registered
// app (`POST /_emulator/app {url, secret}`) with a Bearer JWT (RS256, iss chat@system.gserviceaccount.com,
// aud = secret) whose key is at `GET /_emulator/jwks`; `POST /_emulator/click` presses a button of a card.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OAuth2Client } from 'google-auth-library';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TURNLOG_BUTTON_FUNCTION } from '../../../src/platforms/gchat/intake-buttons.js';
import { certsFromKeyDocument } from '../../../src/platforms/gchat/intake-jwt.js';
import { POLICY_DECISION_ACTION, renderGchatCard } from '../../../src/platforms/gchat/render.js';
import { emulatorAnswer } from '../inspection.js';
import { type GchatHarness, personPosts, startHarness } from './gchat-harness.js';

const SPACE = 'spaces/AAAA';
const AUDIENCE = '1234567890';

interface Received {
  authorization: string | undefined;
  body: Record<string, unknown>;
}

/** A Chat app: records what it receives and answers `answer`. */
async function startApp(
  answer: unknown = {},
): Promise<{ url: string; received: Received[]; server: Server }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({
        authorization: req.headers.authorization,
        body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>,
      });
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/events`, received, server };
}

/** Any answer, a refusal included: these tests read its status. */
const post = emulatorAnswer;

let h: GchatHarness;
let app: Awaited<ReturnType<typeof startApp>> | undefined;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await h.close();
  const server = app?.server;
  if (server) await new Promise((resolve) => server.close(resolve));
  app = undefined;
});

/** A policy card the app posts through googleapis, as turnlog renders it. */
async function postPolicyCard(): Promise<string> {
  const cardsV2 = renderGchatCard({
    kind: 'policy',
    id: 'p1',
    title: 'Approval needed',
    body: 'rm -rf /tmp/cache',
    actions: [
      { id: 'approve', label: 'Approve', style: 'primary' },
      { id: 'reject', label: 'Reject', style: 'danger' },
    ],
  });
  const created = await h.chat.spaces.messages.create({ parent: SPACE, requestBody: { cardsV2 } });
  return created.data.name as string;
}

describe('gchat emulator: the app, its JWTs and clicks', () => {
  it('publishes a JWK set whose key verifies the Bearer JWT of every delivered event (google-auth-library)', async () => {
    app = await startApp();
    expect((await post(h.emulator.url, 'app', { url: app.url, secret: AUDIENCE })).status).toBe(200);
    const posted = await personPosts(h.emulator, { space: SPACE, text: 'deploy please', user: 'alice' });

    expect(app.received).toHaveLength(1);
    const [event] = app.received;
    expect(event?.body).toMatchObject({
      type: 'MESSAGE',
      space: { name: SPACE, spaceType: 'SPACE' },
      message: { name: posted.messageId, text: 'deploy please', thread: { name: posted.threadId } },
      user: { name: 'users/alice', displayName: 'alice', type: 'HUMAN' },
    });

    const jwks = await fetch(`${h.emulator.url}/_emulator/jwks`);
    expect(jwks.headers.get('cache-control')).toMatch(/max-age=\d+/);
    const document = (await jwks.json()) as { keys: Record<string, unknown>[] };
    expect(document.keys).toHaveLength(1);
    expect(document.keys[0]).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig', kid: expect.any(String) });
    expect(document.keys[0]).not.toHaveProperty('d');

    const token = /^Bearer (.+)$/.exec(event?.authorization ?? '')?.[1] as string;
    const ticket = await new OAuth2Client().verifySignedJwtWithCertsAsync(
      token,
      certsFromKeyDocument(document),
      AUDIENCE,
      ['chat@system.gserviceaccount.com'],
    );
    const claims = ticket.getPayload();
    expect(claims).toMatchObject({ iss: 'chat@system.gserviceaccount.com', aud: AUDIENCE });
    expect((claims?.exp ?? 0) - (claims?.iat ?? 0)).toBe(3600);
    await expect(
      new OAuth2Client().verifySignedJwtWithCertsAsync(
        token,
        certsFromKeyDocument(document),
        'another-project',
        ['chat@system.gserviceaccount.com'],
      ),
    ).rejects.toThrow(/Wrong recipient/);
  });

  it('a click presses the card button named by its action id, listed action, value or label, as CARD_CLICKED; the private answer is the reply', async () => {
    app = await startApp({
      actionResponse: { type: 'NEW_MESSAGE' },
      privateMessageViewer: { name: 'users/bob' },
      text: 'already approved by Alice',
    });
    await post(h.emulator.url, 'app', { url: app.url, secret: AUDIENCE });
    const card = await postPolicyCard();

    const click = await post(h.emulator.url, 'click', { messageId: card, action: 'approve', user: 'bob' });
    expect(click).toEqual({
      status: 200,
      body: { delivered: true, status: 200, reply: 'already approved by Alice' },
    });
    expect(app.received[0]?.body).toMatchObject({
      type: 'CARD_CLICKED',
      message: { name: card, sender: { type: 'BOT' } },
      user: { name: 'users/bob' },
      common: {
        invokedFunction: 'turnlog.policyDecision',
        parameters: { requestId: 'p1', decision: 'approved', action: 'approve' },
      },
      action: {
        actionMethodName: 'turnlog.policyDecision',
        parameters: [
          { key: 'requestId', value: 'p1' },
          { key: 'decision', value: 'approved' },
          { key: 'action', value: 'approve' },
        ],
      },
    });

    for (const action of ['reject', 'rejected', 'Reject']) {
      expect((await post(h.emulator.url, 'click', { messageId: card, action })).body.delivered).toBe(true);
      expect(app.received.at(-1)?.body).toMatchObject({ common: { parameters: { decision: 'rejected' } } });
    }
  });

  it("reads buttons back by the function turnlog's renderer gives them", () => {
    expect(TURNLOG_BUTTON_FUNCTION).toBe(POLICY_DECISION_ACTION);
  });

  it('names what is wrong: no such button, a message without buttons, an unknown message, an app without its audience', async () => {
    app = await startApp();
    const noSecret = await post(h.emulator.url, 'app', { url: app.url });
    expect(noSecret.status).toBe(400);
    expect(noSecret.body.error).toMatch(/needs `secret`: the JWT audience/);

    const card = await postPolicyCard();
    const unregistered = await post(h.emulator.url, 'click', { messageId: card, action: 'approve' });
    expect(unregistered.body).toEqual({ delivered: false, status: 0 });

    await post(h.emulator.url, 'app', { url: app.url, secret: AUDIENCE });
    const missing = await post(h.emulator.url, 'click', { messageId: card, action: 'maybe' });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatch(/no button "maybe" on .*Approve \(approve\), Reject \(reject\)/);
    const ambiguous = await post(h.emulator.url, 'click', { messageId: card, action: 'p1' });
    expect(ambiguous.status).toBe(400);
    expect(ambiguous.body.error).toMatch(/names 2 buttons/);

    const text = await personPosts(h.emulator, { space: SPACE, text: 'hello' });
    const plain = await post(h.emulator.url, 'click', { messageId: text.messageId, action: 'approve' });
    expect(plain.status).toBe(400);
    expect(plain.body.error).toMatch(/has no buttons/);

    const unknown = await post(h.emulator.url, 'click', {
      messageId: `${SPACE}/messages/nope`,
      action: 'approve',
    });
    expect(unknown.status).toBe(404);
    expect(app.received.map((r) => r.body.type)).toEqual(['MESSAGE']);
  });
});
