// spec: issue 13 item 6 (Slack) — the emulator delivers to a registered app the way Slack does: an Events API
// event_callback for a person's message and a form-encoded block_actions payload for a click, each signed
// `v0=` + HMAC-SHA256(secret, `v0:<timestamp>:<body>`); the response_url records the app's ephemeral reply.
import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { WebClient } from '@slack/web-api';
import { afterEach, describe, expect, it } from 'vitest';
import type { EmulatorServer } from '../../../src/emulators/core/index.js';
import { startSlackEmulator } from '../../../src/emulators/slack/index.js';
import { emulatorAnswer } from '../inspection.js';

const NOW = Date.UTC(2026, 0, 1, 12, 0, 0);
const SECRET = 'emulator-signing-secret';

let emulator: EmulatorServer | undefined;
let app: Server | undefined;
afterEach(async () => {
  await emulator?.close();
  await new Promise<void>((resolve) => (app ? app.close(() => resolve()) : resolve()));
  emulator = app = undefined;
});

interface Received {
  headers: IncomingMessage['headers'];
  body: string;
}

/** A stand-in app: records each request; `onRequest` may answer the person through the response_url first. */
async function startApp(onRequest: (got: Received) => Promise<void> = async () => {}) {
  const got: Received[] = [];
  app = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const received = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
    got.push(received);
    await onRequest(received);
    res.writeHead(200).end();
  });
  await new Promise<void>((resolve) => app!.listen(0, '127.0.0.1', resolve));
  const address = app.address() as { port: number };
  return { url: `http://127.0.0.1:${address.port}/events`, got };
}

/** Any answer, a refusal included: these tests read its status. */
const call = (endpoint: string, body: unknown) => emulatorAnswer(emulator!.url, endpoint, body);

const expectedSignature = (timestamp: string, body: string) =>
  `v0=${createHmac('sha256', SECRET).update(`v0:${timestamp}:${body}`).digest('hex')}`;

describe('Slack emulator: app delivery', () => {
  it("signs a person's message as Slack does and sends it as an event_callback", async () => {
    emulator = await startSlackEmulator({ now: () => NOW });
    const { url, got } = await startApp();
    await call('app', { url, secret: SECRET });
    const posted = await call('inbound', { space: 'C0APPTEST1', text: 'hello <!channel>' });
    expect(got).toHaveLength(1);
    const [request] = got;
    expect(request!.headers['x-slack-request-timestamp']).toBe(String(NOW / 1000));
    expect(request!.headers['x-slack-signature']).toBe(expectedSignature(String(NOW / 1000), request!.body));
    expect(JSON.parse(request!.body)).toMatchObject({
      type: 'event_callback',
      event_id: expect.stringMatching(/^Ev/),
      event: {
        type: 'message',
        channel: 'C0APPTEST1',
        channel_type: 'channel',
        user: 'U0PERSON01',
        text: 'hello <!channel>',
        ts: posted.body.messageId,
      },
    });
  });

  it('a click is a signed form-encoded block_actions payload; the reply sent to its response_url comes back', async () => {
    emulator = await startSlackEmulator({ now: () => NOW });
    const { url, got } = await startApp(async ({ body }) => {
      const payload = JSON.parse(new URLSearchParams(body).get('payload') ?? '{}') as {
        response_url: string;
      };
      await fetch(payload.response_url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          response_type: 'ephemeral',
          replace_original: false,
          text: 'Already decided.',
        }),
      });
    });
    await call('app', { url, secret: SECRET });
    const client = new WebClient('xoxb-app', { slackApiUrl: `${emulator.url}/api/` });
    const posted = await client.chat.postMessage({
      channel: 'C0APPTEST1',
      text: 'Approve?',
      blocks: [
        {
          type: 'actions',
          block_id: 'turnlog:policy:p1',
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

    const clicked = await call('click', { messageId: posted.ts, action: 'approve', user: 'U0ALICE001' });
    expect(clicked.body).toEqual({ delivered: true, status: 200, reply: 'Already decided.' });
    const request = got[0]!;
    expect(request.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(request.headers['x-slack-signature']).toBe(
      expectedSignature(String(request.headers['x-slack-request-timestamp']), request.body),
    );
    expect(JSON.parse(new URLSearchParams(request.body).get('payload')!)).toMatchObject({
      type: 'block_actions',
      user: { id: 'U0ALICE001' },
      container: { type: 'message', message_ts: posted.ts, channel_id: 'C0APPTEST1' },
      channel: { id: 'C0APPTEST1' },
      actions: [
        {
          action_id: 'approve',
          block_id: 'turnlog:policy:p1',
          value: 'approve',
          action_ts: expect.any(String),
        },
      ],
    });

    // A button the message does not have is bad input, named.
    const missing = await call('click', { messageId: posted.ts, action: 'nope' });
    expect(missing.status).toBe(400);
    expect(String(missing.body.error)).toContain('"nope"');
    // A response_url used after the click's answer has expired.
    const late = await fetch(`${emulator.url}/_emulator/response?id=unknown`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'late' }),
    });
    expect(late.status).toBe(404);
  });

  it('without a registered app nothing is delivered', async () => {
    emulator = await startSlackEmulator({ now: () => NOW });
    const client = new WebClient('xoxb-app', { slackApiUrl: `${emulator.url}/api/` });
    const posted = await client.chat.postMessage({
      channel: 'C0APPTEST1',
      text: 'Approve?',
      blocks: [
        {
          type: 'actions',
          elements: [{ type: 'button', action_id: 'approve', text: { type: 'plain_text', text: 'Approve' } }],
        },
      ],
    });
    expect((await call('click', { messageId: posted.ts, action: 'approve' })).body).toEqual({
      delivered: false,
      status: 0,
    });
    expect((await call('inbound', { space: 'C0APPTEST1', text: 'hi' })).status).toBe(200);
  });
});
