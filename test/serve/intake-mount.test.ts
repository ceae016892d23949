/**
 * Platform intake mount (docs/http-api.md, "Platform intake"): serve hands
 * `POST /v1/platforms/<id>/events` to that platform's intake, which verifies
 * the request by the platform's own scheme (no ingest bearer token), and a
 * person's message it receives becomes an anchor a turn can hang off.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { IntakeSink } from '../../src/actions/types.js';
import type { PlatformIntake } from '../../src/registry/descriptor.js';
import { type IngestServer, startIngestServer } from '../../src/serve/http.js';
import { createServeLogger } from '../../src/serve/logger.js';
import { SPACE, startRuntime } from '../runtime/runtime.helpers.js';

const TOKEN = 's3cret-ingest-token-0123456789';
let server: IngestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** An intake that takes `{"text", "messageId"}` bodies signed with a shared word, as a platform would sign. */
function wordSignedIntake(sink: IntakeSink): PlatformIntake & { refusedCount: number } {
  const intake = {
    refusedCount: 0,
    refused: () => intake.refusedCount,
    async handle(request: import('node:http').IncomingMessage, response: import('node:http').ServerResponse) {
      if (request.headers['x-signature'] !== 'good') {
        intake.refusedCount++;
        response.writeHead(401).end();
        return;
      }
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { messageId: string; text: string };
      const result = await sink.receive({
        kind: 'message',
        space: SPACE,
        messageId: body.messageId,
        text: body.text,
        dm: false,
        user: { id: 'users/1', name: 'Alice' },
        at: 0,
        dedupeKey: body.messageId,
      });
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(result));
    },
  };
  return intake;
}

describe('POST /v1/platforms/<id>/events', () => {
  it("routes to the platform's intake without the ingest token; 404 names a platform without one", async () => {
    const h = await startRuntime();
    const intake = wordSignedIntake(h.runtime);
    server = await startIngestServer({
      runtime: h.runtime,
      intakes: { gchat: intake },
      surfaces: {},
      host: '127.0.0.1',
      port: 0,
      token: TOKEN,
      bodyLimitBytes: 1 << 20,
      deadLetter: () => {},
      logger: createServeLogger('silent'),
    });
    const post = (platform: string, signature: string) =>
      fetch(`${server?.url}/v1/platforms/${platform}/events`, {
        method: 'POST',
        headers: { 'x-signature': signature, 'content-type': 'application/json' },
        body: JSON.stringify({ messageId: 'spaces/AAAA/messages/m1', text: 'hello' }),
      });

    const forged = await post('gchat', 'forged');
    expect(forged.status).toBe(401);
    expect(intake.refused()).toBe(1);

    const first = await post('gchat', 'good');
    expect(first.status).toBe(200);
    expect(await first.json()).toMatchObject({
      status: 'accepted',
      action: { type: 'message', text: 'hello' },
    });
    const again = await post('gchat', 'good');
    expect(await again.json()).toMatchObject({ status: 'duplicate' });

    const none = await post('slack', 'good');
    expect(none.status).toBe(404);
    expect(((await none.json()) as { error: string }).error).toMatch(/platforms\.slack/);

    // The person's message is the anchor: a turn rooted on it threads under it.
    h.send({ type: 'turn_started', turnId: 't1', root: { messageId: 'spaces/AAAA/messages/m1' } });
    h.send({ type: 'note', turnId: 't1', text: 'working' });
    await h.advance(5_000);
    expect(h.runtime.turn('t1')?.logMessages.length).toBe(1);
    await h.runtime.stop();
  });
});
