// spec: docs/emulators.md "Emulator inspection API", exercised over HTTP with a fake platform handler.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { createEmulatorServer, type EmulatorServer } from '../../../src/emulators/core/index.js';
import type { LimitRule, RecordedCall } from '../../../src/emulators/types.js';
import { fakePlatform } from './fake-platform.js';

const PER_SPACE_POSTS: LimitRule = { op: 'create', scope: 'space', limit: 2, windowS: 10 };

let clock: SimulatedClock;
let emulator: EmulatorServer;

beforeEach(async () => {
  clock = new SimulatedClock();
  clock.set(1_700_000_000_000);
  emulator = await createEmulatorServer({
    platform: 'slack',
    handler: fakePlatform,
    defaults: [PER_SPACE_POSTS],
    now: () => clock.now(),
  });
});

afterEach(async () => {
  await emulator.close();
});

/** One request; `body` a JSON value or a raw string. Returns the status, the parsed body and the headers. */
async function send(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${emulator.url}${path}`, {
    method,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
}

/** Like `send`, without the headers, so answers compare whole. */
async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const { status, body: answer } = await send(method, path, body, headers);
  return { status, body: answer };
}

const post = (channel: string, text: string, headers?: Record<string, string>) =>
  call('POST', '/api/post', { channel, text }, headers);

async function calls(since?: number): Promise<RecordedCall[]> {
  const res = await call('GET', `/_emulator/calls${since === undefined ? '' : `?since=${since}`}`);
  return res.body.calls;
}

describe('emulator server: recording and inspection', () => {
  it('listens on loopback and records each platform call with seq and the injected clock', async () => {
    expect(emulator.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const created = await post('C1', 'hello');
    expect(created).toMatchObject({ status: 200, body: { ok: true, id: 'm1' } });
    clock.increment(1500);
    await call('POST', '/api/edit', { channel: 'C1', id: 'm1', text: 'hello again' });

    const recorded = await calls();
    expect(recorded).toEqual([
      {
        seq: 1,
        at: 1_700_000_000_000,
        method: 'POST',
        path: '/api/post',
        op: 'create',
        status: 200,
        space: 'C1',
        thread: null,
        messageId: 'm1',
        text: 'hello',
        notifies: true,
        mentions: [],
      },
      {
        seq: 2,
        at: 1_700_000_001_500,
        method: 'POST',
        path: '/api/edit',
        op: 'update',
        status: 200,
        space: 'C1',
        thread: null,
        messageId: 'm1',
        text: 'hello again',
        notifies: false,
        mentions: [],
      },
    ]);
    expect((await calls(1)).map((c) => c.seq)).toEqual([2]);
    expect(emulator.state.calls()).toEqual(recorded);
  });

  it('GET /_emulator/messages shows the space as a person sees it, edits counted', async () => {
    await post('C1', 'first');
    await post('C2', 'elsewhere');
    clock.increment(2000);
    await call('POST', '/api/edit', { channel: 'C1', id: 'm1', text: 'first, edited' });

    const res = await call('GET', '/_emulator/messages?space=C1');
    expect(res.body).toEqual({
      messages: [
        {
          id: 'm1',
          thread: null,
          text: 'first, edited',
          createdAt: 1_700_000_000_000,
          updatedAt: 1_700_000_002_000,
          edits: 1,
          deleted: false,
          reactions: [],
        },
      ],
    });
    expect((await call('GET', '/_emulator/messages?space=nowhere')).body).toEqual({ messages: [] });
  });

  it('parses application/x-www-form-urlencoded bodies (Slack web-api default) like JSON ones', async () => {
    const res = await fetch(`${emulator.url}/api/post`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ channel: 'C9', text: 'from a form <!channel>' }).toString(),
    });
    expect(res.status).toBe(200);
    expect(emulator.state.messages('C9').map((m) => m.text)).toEqual(['from a form <!channel>']);
    expect(emulator.state.calls()[0]).toMatchObject({ space: 'C9', mentions: ['<!channel>'] });
  });

  it('POST /_emulator/inbound creates a person’s message, recorded as op inbound that notifies no one', async () => {
    const res = await call('POST', '/_emulator/inbound', { space: 'C1', text: 'please help', user: 'U7' });
    expect(res).toMatchObject({ status: 200, body: { messageId: 'm1', threadId: 'm1' } });
    const reply = await call('POST', '/_emulator/inbound', { space: 'C1', text: 'more', threadId: 'm1' });
    expect(reply.body).toEqual({ messageId: 'm2', threadId: 'm1' });

    expect(await calls()).toMatchObject([
      { op: 'inbound', space: 'C1', messageId: 'm1', thread: null, text: 'please help', notifies: false },
      { op: 'inbound', space: 'C1', messageId: 'm2', thread: 'm1', notifies: false },
    ]);
    const unknownThread = await call('POST', '/_emulator/inbound', {
      space: 'C1',
      text: 'x',
      threadId: 'm99',
    });
    expect(unknownThread).toEqual({ status: 400, body: { error: 'unknown threadId m99' } });
  });

  it('POST /_emulator/delete: a person deletes a message and a later edit gets the platform’s not-found', async () => {
    await post('C1', 'doomed');
    const res = await call('POST', '/_emulator/delete', { messageId: 'm1' });
    expect(res).toEqual({ status: 200, body: { messageId: 'm1', deleted: true } });
    expect(emulator.state.messages('C1')[0]).toMatchObject({ id: 'm1', deleted: true });

    const edit = await call('POST', '/api/edit', { channel: 'C1', id: 'm1', text: 'too late' });
    expect(edit).toMatchObject({ status: 404, body: { ok: false, kind: 'message_not_found' } });
    expect((await calls()).map((c) => [c.op, c.status])).toEqual([
      ['create', 200],
      ['delete', 200],
      ['update', 404],
    ]);
    expect(await call('POST', '/_emulator/delete', { messageId: 'nope' })).toEqual({
      status: 404,
      body: { error: 'no message "nope" to delete' },
    });
  });

  it('an unknown platform route answers 404 in the platform’s shape and is recorded as op other', async () => {
    const res = await call('GET', '/api/unknown.method');
    expect(res).toMatchObject({ status: 404, body: { ok: false, kind: 'unknown-route' } });
    expect(await calls()).toMatchObject([
      { op: 'other', status: 404, method: 'GET', path: '/api/unknown.method' },
    ]);
  });

  it('a handler that throws answers 500 in the platform’s shape and records why', async () => {
    const res = await call('POST', '/api/crash', {});
    expect(res).toMatchObject({ status: 500, body: { ok: false, kind: 'internal' } });
    expect((await calls())[0]).toMatchObject({ op: 'other', status: 500, details: { error: 'handler bug' } });
  });
});

describe('emulator server: faults', () => {
  it('answers matching calls with the fault `times` times, then lets them through', async () => {
    const res = await call('POST', '/_emulator/faults', {
      rules: [{ op: 'update', status: 500, times: 2 }],
    });
    expect(res.body).toEqual({ rules: [{ op: 'update', status: 500, times: 2 }] });
    await post('C1', 'log');
    const edits = [];
    for (const text of ['a', 'b', 'c']) {
      edits.push((await call('POST', '/api/edit', { channel: 'C1', id: 'm1', text })).status);
    }
    expect(edits).toEqual([500, 500, 200]);
    expect(emulator.state.messages('C1')[0]).toMatchObject({ text: 'c', edits: 1 });
    expect((await calls()).slice(1, 3)).toMatchObject([
      { op: 'update', status: 500, messageId: 'm1', notifies: false, details: { rejectedBy: 'fault' } },
      { op: 'update', status: 500, details: { rejectedBy: 'fault' } },
    ]);
    expect(emulator.state.faultInjector.list()).toEqual([]);
  });

  it('matches by method and path (substring or /regex/) and uses the platform’s answer with Retry-After', async () => {
    emulator.state.faults([
      { path: '/^\\/api\\/ed/', status: 429, retryAfterS: 7 },
      { method: 'post', path: 'post', status: 403, times: 1 },
    ]);
    const limited = await send('POST', '/api/edit', { channel: 'C1', id: 'm1', text: 'x' });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('7');
    expect(limited.body).toEqual({ ok: false, kind: 'fault' });
    expect((await post('C1', 'x')).status).toBe(403);
    expect((await post('C1', 'x')).status).toBe(200);
  });

  it('a faulted call does not use up the rate limit', async () => {
    emulator.state.faults([{ op: 'create', status: 503, times: 3 }]);
    for (let i = 0; i < 3; i++) expect((await post('C1', 'x')).status).toBe(503);
    expect((await post('C1', 'x')).status).toBe(200);
    expect((await post('C1', 'x')).status).toBe(200);
    expect((await post('C1', 'x')).status).toBe(429);
  });
});

describe('emulator server: rate limits', () => {
  it('refuses the call over `limit` per `windowS` with the exact retry-after, and admits it once the window slides', async () => {
    expect((await post('C1', 'a')).status).toBe(200);
    clock.increment(4000);
    expect((await post('C1', 'b')).status).toBe(200);
    expect((await post('C2', 'other space')).status).toBe(200);

    clock.increment(1000);
    const refused = await send('POST', '/api/post', { channel: 'C1', text: 'c' });
    expect(refused.status).toBe(429);
    // The first call (t=0) leaves the 10 s window at t=10 s; now is t=5 s.
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(refused.body).toEqual({ ok: false, kind: 'rate-limited', bucket: 'create:space:C1:10s' });
    expect((await calls()).at(-1)).toMatchObject({
      op: 'create',
      status: 429,
      space: 'C1',
      notifies: false,
      details: { rejectedBy: 'rate-limit', retryAfterS: 5 },
    });
    expect(emulator.state.messages('C1')).toHaveLength(2);

    clock.increment(4999);
    expect((await post('C1', 'still early')).status).toBe(429);
    clock.increment(1);
    expect((await post('C1', 'c')).status).toBe(200);
    // Sliding window: b (t=4 s) and c (t=10 s) fill it until b leaves at t=14 s.
    clock.increment(3999);
    expect((await post('C1', 'd')).status).toBe(429);
  });

  it('POST /_emulator/limits replaces that op+scope; GET shows the rules in force', async () => {
    const res = await call('POST', '/_emulator/limits', {
      rules: [
        { op: 'create', scope: 'space', limit: 1, windowS: 60 },
        { op: '*', scope: 'app', limit: 3, windowS: 60 },
      ],
    });
    const inForce = [
      { op: 'create', scope: 'space', limit: 1, windowS: 60 },
      { op: '*', scope: 'app', limit: 3, windowS: 60 },
    ];
    expect(res.body).toEqual({ rules: inForce });
    expect((await call('GET', '/_emulator/limits')).body).toEqual({ rules: inForce });

    expect((await post('C1', 'a')).status).toBe(200);
    expect((await post('C1', 'b')).status).toBe(429);
    // `app` scope counts per token: another app has its own allowance.
    expect((await post('C2', 'a', { authorization: 'Bearer one' })).status).toBe(200);
    expect((await post('C3', 'a', { authorization: 'Bearer one' })).status).toBe(200);
    expect((await post('C4', 'a', { authorization: 'Bearer one' })).status).toBe(200);
    expect((await post('C5', 'a', { authorization: 'Bearer one' })).status).toBe(429);
    expect((await post('C5', 'a', { authorization: 'Bearer two' })).status).toBe(200);
  });
});

describe('emulator server: reset and bad input', () => {
  it('POST /_emulator/reset clears calls, messages, faults and limit overrides', async () => {
    await post('C1', 'a');
    emulator.state.faults([{ op: 'update', status: 500 }]);
    emulator.state.limits([{ op: 'create', scope: 'space', limit: 1, windowS: 60 }]);
    expect((await post('C1', 'b')).status).toBe(429);

    expect(await call('POST', '/_emulator/reset')).toEqual({ status: 200, body: { reset: true } });
    expect(await calls()).toEqual([]);
    expect(emulator.state.messages('C1')).toEqual([]);
    expect(emulator.state.faultInjector.list()).toEqual([]);
    expect(emulator.state.limits()).toEqual([PER_SPACE_POSTS]);

    expect((await post('C1', 'c')).status).toBe(200);
    expect((await post('C1', 'd')).status).toBe(200);
    // seq and ids keep counting so a stale poller or message id never aliases a new one.
    expect((await calls()).map((c) => [c.seq, c.messageId])).toEqual([
      [3, 'm2'],
      [4, 'm3'],
    ]);
  });

  it.each([
    ['/_emulator/faults', { rules: [{ status: 'x' }] }, 'bad fault rule: rules[0].status: '],
    [
      '/_emulator/faults',
      { rules: [{ status: 500, retryAfter: 3 }] },
      'bad fault rule: rules[0]: Unrecognized key: "retryAfter"',
    ],
    [
      '/_emulator/faults',
      { rules: [{ status: 500, path: '/(/' }] },
      'bad fault rule: rules[0].path: not a valid /regex/flags',
    ],
    ['/_emulator/faults', { rules: [{ status: 200 }] }, 'bad fault rule: rules[0].status: '],
    ['/_emulator/faults', {}, 'bad faults body: rules: '],
    [
      '/_emulator/limits',
      { rules: [{ op: 'create', scope: 'team', limit: 1, windowS: 1 }] },
      'bad limit rule: rules[0].scope: ',
    ],
    [
      '/_emulator/limits',
      { rules: [{ op: 'create', scope: 'app', limit: 1, windowS: -1 }] },
      'bad limit rule: rules[0].windowS: ',
    ],
    ['/_emulator/inbound', { text: 'hi' }, 'bad inbound message: space: '],
    ['/_emulator/delete', { id: 'm1' }, 'bad delete body: messageId: '],
  ])('POST %s with %j → 400 naming the field', async (path, body, message) => {
    const res = await call('POST', path, body);
    expect(res.status).toBe(400);
    expect(res.body.error).toContain(message);
  });

  it('a bad query, a missing space or an unknown inspection endpoint is refused with a clear message', async () => {
    expect(await call('GET', '/_emulator/calls?since=abc')).toEqual({
      status: 400,
      body: { error: 'bad since: expected a call seq (integer ≥ 0), got abc' },
    });
    expect((await call('GET', '/_emulator/messages')).body.error).toMatch(/^missing space/);
    const unknown = await call('GET', '/_emulator/nope');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toContain(
      'no emulator endpoint GET /_emulator/nope; known: GET /_emulator/calls',
    );
    expect(await calls()).toEqual([]);
  });

  it('a platform call whose JSON body does not parse gets the platform’s 400 and is recorded', async () => {
    const res = await call('POST', '/api/post', '{"channel": ');
    expect(res).toMatchObject({ status: 400, body: { ok: false, kind: 'bad-request' } });
    expect(await calls()).toMatchObject([{ op: 'other', status: 400, path: '/api/post' }]);
  });
});

describe('emulator server: apps and clicks (docs/emulators.md "Two-way")', () => {
  it('names what is wrong when a platform takes no app registration or has no buttons, and a click on an unknown message', async () => {
    const app = await call('POST', '/_emulator/app', { url: 'http://127.0.0.1:1/v1/platforms/slack/events' });
    expect(app.status).toBe(400);
    expect(app.body.error).toMatch(/takes no app registration/);
    const badUrl = await call('POST', '/_emulator/app', { url: 'not a url' });
    expect(badUrl.status).toBe(400);
    expect(badUrl.body.error).toMatch(/url/);
    await post('C1', 'hello');
    const click = await call('POST', '/_emulator/click', { messageId: 'm1', action: 'approve' });
    expect(click.status).toBe(400);
    expect(click.body.error).toMatch(/has no buttons/);
  });
});
