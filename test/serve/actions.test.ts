/**
 * `GET /v1/actions?after=CURSOR&wait=SECONDS` (docs/http-api.md, "Actions"):
 * pages by cursor, a long poll woken by an append (the simulated clock never
 * moves, so only the append can answer it), an empty answer when the wait
 * passes, 400 for a bad cursor or wait, 401 without the token, and a wait
 * that ends when the client goes away or the server closes.
 */
import { once } from 'node:events';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Action, MessageIntake } from '../../src/actions/types.js';
import { verifyTurnlogSignature } from '../../src/actions/webhook.js';
import type { Runtime } from '../../src/runtime.js';
import { getJson, SPACE, startTestServe, type TestServe, TOKEN } from './serve.helpers.js';

let serve: TestServe | undefined;
afterEach(async () => {
  await serve?.close();
  serve = undefined;
});

let n = 0;
async function personSays(s: TestServe, text: string): Promise<Action> {
  const posted = s.surface.inbound({ space: SPACE, text });
  const intake: MessageIntake = {
    kind: 'message',
    space: SPACE,
    messageId: posted.messageId,
    threadId: posted.threadId,
    text,
    dm: false,
    user: { id: 'users/1', name: 'Alice' },
    at: s.clock.now(),
    dedupeKey: `k${++n}`,
  };
  const result = await s.runtime.receive(intake);
  return result.action as Action;
}

/** Counts the runtime's long polls as the route starts and ends them. */
function watchPolls(s: TestServe): { started: number; settled: number } {
  const seen = { started: 0, settled: 0 };
  const runtime = s.runtime as Runtime;
  const original = runtime.actions.bind(runtime);
  runtime.actions = (options) => {
    seen.started++;
    return original(options).finally(() => {
      seen.settled++;
    });
  };
  return seen;
}

const get = (s: TestServe, query: string) => getJson(s.url, `/v1/actions${query}`, TOKEN);

describe('GET /v1/actions', () => {
  it('answers every kept action from the oldest, then those after a cursor, and the cursor to go on from', async () => {
    serve = await startTestServe({ ingest: { token: TOKEN } });
    expect((await get(serve, '')).json).toEqual({ actions: [], cursor: expect.stringMatching(/\.0$/) });
    const first = await personSays(serve, 'first');
    const second = await personSays(serve, 'second');
    const all = await get(serve, '');
    expect(all.status).toBe(200);
    expect(all.json).toEqual({ actions: [first, second], cursor: second.cursor });
    expect((await get(serve, `?after=${first.cursor}`)).json).toEqual({
      actions: [second],
      cursor: second.cursor,
    });
    expect((await get(serve, `?after=${second.cursor}&wait=0`)).json).toEqual({
      actions: [],
      cursor: second.cursor,
    });
  });

  it('a long poll is answered by the next action as soon as it is recorded', async () => {
    serve = await startTestServe({ ingest: { token: TOKEN } });
    const polls = watchPolls(serve);
    const waiting = get(serve, '?wait=30');
    await vi.waitFor(() => expect(polls.started).toBe(1), { timeout: 5_000 });
    const action = await personSays(serve, 'wake up');
    expect((await waiting).json).toEqual({ actions: [action], cursor: action.cursor });
  });

  it('a long poll with nothing new answers empty once its wait has passed (on the runtime clock)', async () => {
    serve = await startTestServe({ ingest: { token: TOKEN } });
    const polls = watchPolls(serve);
    const waiting = get(serve, '?wait=2.5');
    await vi.waitFor(() => expect(polls.started).toBe(1), { timeout: 5_000 });
    serve.clock.increment(2_499);
    await new Promise((resolve) => setImmediate(resolve));
    expect(polls.settled).toBe(0);
    serve.clock.increment(1);
    expect((await waiting).json).toEqual({ actions: [], cursor: expect.stringMatching(/\.0$/) });
  });

  it('400 names a bad cursor, a bad wait or an unknown parameter', async () => {
    serve = await startTestServe({ ingest: { token: TOKEN } });
    const cases: [string, RegExp][] = [
      ['?after=abc', /^after: cursor "abc" is not an actions cursor/],
      ['?after=', /^after: cursor "" is not an actions cursor/],
      ['?after=-1', /not an actions cursor/],
      ['?wait=31', /^wait: "31" is not a number of seconds from 0 to 30$/],
      ['?wait=soon', /^wait: "soon" is not a number of seconds from 0 to 30$/],
      ['?limit=5', /^unknown query parameter "limit"/],
    ];
    for (const [query, error] of cases) {
      const answer = await get(serve, query);
      expect(answer.status, query).toBe(400);
      expect(answer.json.error, query).toMatch(error);
      if (query.startsWith('?after')) expect(answer.json.cursor, query).toMatch(/^[0-9a-f]{12}\.0$/);
    }
  });

  // Issue 22.4: a cursor turnlog never gave out is a 400 with the current cursor, never a silent empty wait.
  it('a cursor ahead of the newest is 400 at once, with the current cursor (no wait)', async () => {
    serve = await startTestServe({ ingest: { token: TOKEN } });
    const first = await personSays(serve, 'first');
    for (const ahead of ['1000', `${first.cursor.split('.')[0]}.1000`]) {
      const answer = await get(serve, `?after=${ahead}&wait=30`);
      expect(answer.status, ahead).toBe(400);
      expect(answer.json, ahead).toEqual({
        error: expect.stringMatching(/ahead of the newest action \(1\)/),
        cursor: first.cursor,
      });
    }
    // The current cursor answered is one to read on from: the next action comes after it.
    const second = await personSays(serve, 'second');
    expect((await get(serve, `?after=${first.cursor}`)).json).toEqual({
      actions: [second],
      cursor: second.cursor,
    });
  });

  // Issue 22.4: a cursor of a replaced store (a memory store before a restart) is refused, not waited on.
  it('a cursor from a replaced store is 400 with this store’s cursor; an old bare cursor is still read', async () => {
    serve = await startTestServe({ ingest: { token: TOKEN } });
    const before = await personSays(serve, 'before the restart');
    await serve.close();
    serve = await startTestServe({ ingest: { token: TOKEN } });
    const after = await personSays(serve, 'after the restart');
    const refused = await get(serve, `?after=${before.cursor}&wait=30`);
    expect(refused.status).toBe(400);
    expect(refused.json).toEqual({
      error: expect.stringMatching(/is from another store/),
      cursor: after.cursor,
    });
    // A bare position (the format before store ids) is this store's when not ahead of the newest.
    expect((await get(serve, '?after=0')).json).toEqual({ actions: [after], cursor: after.cursor });
    expect((await get(serve, '?after=1')).json).toEqual({ actions: [], cursor: after.cursor });
  });

  it('401 without the bearer token; 405 for another method', async () => {
    serve = await startTestServe({ ingest: { token: TOKEN } });
    const anonymous = await getJson(serve.url, '/v1/actions');
    expect(anonymous.status).toBe(401);
    const post = await fetch(`${serve.url}/v1/actions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(post.status).toBe(405);
  });

  it('a client that goes away ends its wait (nothing is left waiting)', async () => {
    serve = await startTestServe({ ingest: { token: TOKEN } });
    const polls = watchPolls(serve);
    // node:http, so the client's socket really closes when it gives up (as a host's process exiting would).
    const client = request(`${serve.url}/v1/actions?wait=30`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    const failed = new Promise((resolve) => client.once('error', resolve));
    client.end();
    await vi.waitFor(() => expect(polls.started).toBe(1), { timeout: 5_000 });
    client.destroy();
    await failed;
    await vi.waitFor(() => expect(polls.settled).toBe(1), { timeout: 5_000 });
  });

  it('closing the server answers a waiting poll (empty) instead of holding the shutdown', async () => {
    serve = await startTestServe({ ingest: { token: TOKEN } });
    const polls = watchPolls(serve);
    const waiting = get(serve, '?wait=30');
    await vi.waitFor(() => expect(polls.started).toBe(1), { timeout: 5_000 });
    const closing = serve.close();
    serve = undefined;
    expect((await waiting).json).toEqual({ actions: [], cursor: expect.stringMatching(/\.0$/) });
    await closing;
  });
});

describe('serve with actions.webhook', () => {
  it('pushes each recorded action to the host, signed, besides GET /v1/actions', async () => {
    const bodies: { body: string; signature: string }[] = [];
    const host = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => {
        body += String(chunk);
      });
      request.on('end', () => {
        bodies.push({ body, signature: String(request.headers['x-turnlog-signature']) });
        response.writeHead(204).end();
      });
    });
    host.listen(0, '127.0.0.1');
    await once(host, 'listening');
    const url = `http://127.0.0.1:${(host.address() as AddressInfo).port}/hook`;
    try {
      serve = await startTestServe({
        ingest: { token: TOKEN },
        config: { actions: { webhook: { url, secret: 'hook-secret-0123456789' } } },
      });
      const action = await personSays(serve, 'ship it');
      await vi.waitFor(() => expect(bodies).toHaveLength(1), { timeout: 5_000 });
      expect(JSON.parse(bodies[0]?.body ?? '')).toEqual({ actions: [action] });
      expect(
        verifyTurnlogSignature('hook-secret-0123456789', bodies[0]?.signature, bodies[0]?.body ?? '', {
          nowS: 0,
        }),
      ).toBe(true);
      expect((await get(serve, '')).json).toEqual({ actions: [action], cursor: action.cursor });
      await serve.close();
      serve = undefined;
    } finally {
      await new Promise((resolve) => host.close(resolve));
    }
  });
});
