/**
 * The ingest HTTP API in process (docs/http-api.md): POST /v1/events (NDJSON,
 * JSON array, JSON object; per-line errors; 400/401/413/415; dead letters),
 * GET /v1/turns/:turnId, GET /healthz, and what the logs may contain.
 */
import { request } from 'node:http';
import { connect } from 'node:net';
import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConfigError } from '../../src/config.js';
import { startServe } from '../../src/serve/index.js';
import { createMemoryStore } from '../../src/store/memory.js';
import type { ChatSurface } from '../../src/surfaces/surface.js';
import { createMemorySurface } from '../../src/testing/memory-surface.js';
import {
  getJson,
  ndjson,
  postEvents,
  SPACE,
  startTestServe,
  type TestServe,
  TOKEN,
  turnEvents,
} from './serve.helpers.js';

let serve: TestServe | undefined;
afterEach(async () => {
  await serve?.close();
  serve = undefined;
});

const deadLetters = async (s: TestServe) => await s.store.deadLetters();

describe('POST /v1/events', () => {
  it('ingests NDJSON and reports each refused line by its 1-based number, blank lines counted', async () => {
    serve = await startTestServe();
    const [inbound, started, call] = turnEvents(serve.surface, 'T1');
    const body = [
      JSON.stringify(inbound),
      '',
      JSON.stringify(started),
      JSON.stringify({
        type: 'tool_result',
        space: SPACE,
        turnId: 'T1',
        callId: 'c1',
        tool: 'Bash',
        ok: 'yes',
      }),
      `${JSON.stringify(call)}\r`,
      '{not json',
    ].join('\n');
    const { status, json } = await postEvents(serve.url, body);
    expect(status).toBe(202);
    expect(json.accepted).toBe(3);
    expect(json.rejected).toEqual([
      { line: 4, error: 'line 4: tool_result.ok: expected a boolean, got "yes"' },
      { line: 6, error: expect.stringMatching(/^line 6: invalid JSON/) },
    ]);
    expect(serve.runtime.turn('T1')?.entries).toBe(1);
  });

  it('keeps every refused line as a dead letter with its reason', async () => {
    serve = await startTestServe();
    const bad = JSON.stringify({
      type: 'tool_result',
      space: SPACE,
      turnId: 'T',
      callId: 'c1',
      tool: 'Read',
      ok: 1,
    });
    await postEvents(serve.url, ndjson({ type: 'nonsense', space: SPACE, turnId: 'T' }, JSON.parse(bad)));
    const letters = await deadLetters(serve);
    expect(letters.map((d) => [d.source, d.reason, d.payload])).toEqual([
      ['ingest', expect.stringMatching(/unknown type "nonsense"/), expect.stringContaining('"nonsense"')],
      ['ingest', 'tool_result.ok: expected a boolean, got 1', bad],
    ]);
  });

  it('ingests a JSON array item by item, reporting a refused item by its 0-based index', async () => {
    serve = await startTestServe();
    const [inbound, started] = turnEvents(serve.surface, 'T2');
    const items = [
      inbound,
      { type: 'answer', space: SPACE, turnId: 'T2' },
      started,
      'a string, not an event',
    ];
    const { status, json } = await postEvents(serve.url, JSON.stringify(items), {
      contentType: 'application/json',
    });
    expect(status).toBe(202);
    expect(json).toEqual({
      accepted: 2,
      duplicates: 0,
      rejected: [
        { line: 1, error: 'index 1: answer.text: missing (expected a string)' },
        { line: 3, error: 'index 3: expected a JSON object (one run event), got "a string, not an event"' },
      ],
    });
    // The string item never reached the runtime, and is kept all the same.
    expect((await deadLetters(serve)).map((d) => d.payload)).toContain('"a string, not an event"');
  });

  it('ingests one JSON object (with a charset parameter on the content type)', async () => {
    serve = await startTestServe();
    const [inbound] = turnEvents(serve.surface, 'T3');
    const { status, json } = await postEvents(serve.url, JSON.stringify(inbound), {
      contentType: 'application/json; charset=utf-8',
    });
    expect(status).toBe(202);
    expect(json).toEqual({ accepted: 1, rejected: [], duplicates: 0 });
  });

  it('answers 400 with the same shape and an error when no event is accepted', async () => {
    serve = await startTestServe();
    const { status, json } = await postEvents(serve.url, ndjson({ type: 'answer', space: SPACE }, 42));
    expect(status).toBe(400);
    expect(json.accepted).toBe(0);
    expect(json.rejected).toHaveLength(2);
    expect(json.error).toBe('no event accepted: 2 rejected');
  });

  it('answers 400 for a JSON body that does not parse, and keeps the body as a dead letter', async () => {
    serve = await startTestServe();
    const body = '[{"type": "inbound",';
    const { status, json } = await postEvents(serve.url, body, { contentType: 'application/json' });
    expect(status).toBe(400);
    expect(json).toMatchObject({
      accepted: 0,
      rejected: [],
      error: expect.stringMatching(/^body: invalid JSON/),
    });
    expect(await deadLetters(serve)).toEqual([
      expect.objectContaining({
        source: 'ingest',
        reason: expect.stringMatching(/^body: invalid JSON/),
        payload: body,
      }),
    ]);
  });

  it('answers 400 for an empty body and for JSON that is neither an array nor an object', async () => {
    serve = await startTestServe();
    const empty = await postEvents(serve.url, '\n  \n');
    expect(empty.status).toBe(400);
    expect(empty.json.error).toMatch(/^empty body/);
    const scalar = await postEvents(serve.url, '42', { contentType: 'application/json' });
    expect(scalar.status).toBe(400);
    expect(scalar.json.error).toBe('body: expected a JSON array of run events or one event object, got 42');
  });

  it('answers 415 for another content type, or none, naming the accepted ones', async () => {
    serve = await startTestServe();
    const plain = await postEvents(serve.url, '{}', { contentType: 'text/plain' });
    expect(plain.status).toBe(415);
    expect(plain.json.error).toMatch(/"text\/plain".*application\/x-ndjson.*application\/json/);
    const none = await postEvents(serve.url, '{}', { contentType: null });
    expect(none.status).toBe(415);
  });
});

describe('the body limit', () => {
  /** Raw node:http, so the body can be streamed in chunks without a Content-Length. */
  function postRaw(
    url: string,
    chunks: string[],
    headers: Record<string, string>,
  ): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const req = request(`${url}/v1/events`, { method: 'POST', headers }, (res) => {
        let body = '';
        res.on('data', (d) => {
          body += String(d);
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      // The server may close the connection while the rest of the body is still going out.
      req.on('error', (error: NodeJS.ErrnoException) => {
        if (error.code !== 'EPIPE' && error.code !== 'ECONNRESET') reject(error);
      });
      for (const chunk of chunks) req.write(chunk);
      req.end();
    });
  }

  it('answers 413 to a declared Content-Length over the limit and keeps a dead letter with the reason', async () => {
    serve = await startTestServe({ ingest: { bodyLimitBytes: 1024 } });
    const body = `${JSON.stringify({ type: 'note', space: SPACE, turnId: 'T', text: 'x'.repeat(2000) })}\n`;
    const { status, body: text } = await postRaw(serve.url, [body], {
      'content-type': 'application/x-ndjson',
      'content-length': String(Buffer.byteLength(body)),
    });
    expect(status).toBe(413);
    expect(JSON.parse(text).error).toBe('body over the limit of 1024 bytes (ingest.bodyLimitBytes)');
    const [letter] = await deadLetters(serve);
    expect(letter?.reason).toMatch(/^body over the limit of 1024 bytes/);
  });

  it('stops reading a streamed (chunked) body past the limit, answers 413 and keeps what arrived', async () => {
    serve = await startTestServe({ ingest: { bodyLimitBytes: 1024 } });
    const line = `${JSON.stringify({ type: 'note', space: SPACE, turnId: 'T', text: 'y'.repeat(200) })}\n`;
    const { status } = await postRaw(
      serve.url,
      Array.from({ length: 20 }, () => line),
      {
        'content-type': 'application/x-ndjson',
        'transfer-encoding': 'chunked',
      },
    );
    expect(status).toBe(413);
    const [letter] = await deadLetters(serve);
    // The first 1,024 bytes, less the word the cut fell in (see the next test).
    expect(letter?.payload.length).toBeLessThanOrEqual(1024);
    expect(letter?.payload.length).toBeGreaterThan(1024 - line.length);
    expect(letter?.payload.startsWith(line)).toBe(true);
    expect(serve.runtime.turn('T')).toBeUndefined();
  });

  it('logs a request path with its secrets redacted (issue 9 audit: GET /v1/turns/<a token> was logged as sent)', async () => {
    serve = await startTestServe();
    const token = 'ghp_Zq8Xw3Vb6Nm1Lk4Jh7Gf2Ds5Aa9Pp0Oo3Ii6Uu';
    const response = await fetch(`${serve.url}/v1/turns/${token}`);
    expect(response.status).toBe(404);
    await response.text();
    await vi.waitFor(() => expect(serve?.logText()).toContain('"path":"/v1/turns/'), { timeout: 5000 });
    expect(serve.logText()).not.toContain('Zq8Xw3');
  });

  it('keeps no piece of a secret the limit cut in two (issue 9 audit: the cut left a token too short for its pattern)', async () => {
    serve = await startTestServe({ ingest: { bodyLimitBytes: 1024 } });
    const token = 'ghp_Zq8Xw3Vb6Nm1Lk4Jh7Gf2Ds5Aa9Pp0Oo3Ii6Uu';
    const prefix = JSON.stringify({ type: 'note', space: SPACE, turnId: 'T', text: 'x' }).slice(0, -2);
    // The limit falls 14 characters into the token: `ghp_Zq8Xw3Vb6N` matches no pattern on its own.
    const head = `${prefix}${'x'.repeat(1024 - prefix.length - 14 - ' token '.length)} token `;
    const body = `${head}${token}"}\n${'y'.repeat(2000)}`;
    const { status } = await postRaw(serve.url, [body], { 'content-type': 'application/x-ndjson' });
    expect(status).toBe(413);
    const [letter] = await deadLetters(serve);
    expect(letter?.payload).toContain(' token ');
    expect(letter?.payload).not.toContain('Zq8Xw3');
  });

  it('lets a fetch() that streams an over-limit body read its 413 (the rest is thrown away, not kept)', async () => {
    serve = await startTestServe({ ingest: { bodyLimitBytes: 1024 } });
    const chunk = new TextEncoder().encode(`${'z'.repeat(511)}\n`);
    const response = await fetch(`${serve.url}/v1/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-ndjson' },
      body: new ReadableStream<Uint8Array>({
        start(controller) {
          for (let i = 0; i < 8; i++) controller.enqueue(chunk);
          controller.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect(response.status).toBe(413);
    expect(response.headers.get('connection')).toBe('close');
    expect((await deadLetters(serve)).map((d) => d.payload.length)).toEqual([1024]);
  });

  it('accepts a body of exactly the limit', async () => {
    serve = await startTestServe();
    const [inbound] = turnEvents(serve.surface, 'T');
    const text = JSON.stringify(inbound);
    await serve.close();
    serve = await startTestServe({ ingest: { bodyLimitBytes: Buffer.byteLength(text) } });
    const { status } = await postEvents(serve.url, text);
    expect(status).toBe(202);
  });
});

describe('the bearer token', () => {
  it('answers 401 with WWW-Authenticate: Bearer to a missing, wrong or malformed token', async () => {
    serve = await startTestServe({ ingest: { token: TOKEN } });
    const body = ndjson({ type: 'inbound', space: SPACE, messageId: 'spaces/AAAA/messages/m1' });
    const attempts = [
      {},
      { token: `${TOKEN.slice(0, -1)}X` }, // same length, last byte differs
      { token: TOKEN.slice(0, 5) }, // a prefix: different length must not throw in timingSafeEqual
      { token: `${TOKEN}${TOKEN}` },
      { authorization: `Basic ${TOKEN}` },
      { authorization: `Bearer ${TOKEN} extra` },
    ];
    for (const attempt of attempts) {
      const { status, headers, json } = await postEvents(serve.url, body, attempt);
      expect(status, JSON.stringify(attempt)).toBe(401);
      expect(headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect(json.error).toMatch(/bearer token/);
    }
    expect(await deadLetters(serve)).toEqual([]);
    expect((await postEvents(serve.url, body, { token: TOKEN })).status).toBe(202);
    expect((await postEvents(serve.url, body, { authorization: `bearer ${TOKEN}` })).status).toBe(202);
  });

  it('guards GET /v1/turns too, but not /healthz', async () => {
    serve = await startTestServe({ ingest: { token: TOKEN } });
    expect((await getJson(serve.url, '/v1/turns/T1')).status).toBe(401);
    expect((await getJson(serve.url, '/v1/turns/T1', TOKEN)).status).toBe(404);
    expect((await getJson(serve.url, '/healthz')).status).toBe(200);
  });

  it('refuses to listen on a non-loopback host without a token, naming the key', async () => {
    const start = (ingest: Record<string, unknown>) =>
      startServe({
        config: { ingest: { port: 0, ...ingest } },
        surfaces: { gchat: createMemorySurface() },
        store: createMemoryStore(),
        logger: pino({ level: 'silent' }),
      });
    await expect(start({ host: '0.0.0.0' })).rejects.toThrow(ConfigError);
    await expect(start({ host: '0.0.0.0' })).rejects.toThrow(
      /ingest\.token: required when ingest\.host .*"0\.0\.0\.0"/,
    );
    const guarded = await start({ host: '0.0.0.0', token: TOKEN });
    expect(guarded.url).toMatch(/^http:\/\/0\.0\.0\.0:\d+$/);
    await guarded.close();
  });

  it.each(['x', '   ', 'short-token-15c', '  a b c d e f g h i j k l m n o  '])(
    'refuses a token with fewer than 16 non-blank characters (%j) on a non-loopback host',
    async (token) => {
      const start = startServe({
        config: { ingest: { port: 0, host: '0.0.0.0', token } },
        surfaces: { gchat: createMemorySurface() },
        store: createMemoryStore(),
        logger: pino({ level: 'silent' }),
      });
      await expect(start).rejects.toThrow(/ingest\.token: must have at least 16 non-blank characters/);
    },
  );
});

describe('slow clients', () => {
  /** A raw socket to the server; resolves `closed` when the server cuts it, with what it answered. */
  function rawClient(url: string) {
    const { hostname, port } = new URL(url);
    const socket = connect({ host: hostname, port: Number(port) });
    let received = '';
    let closed = false;
    socket.on('data', (chunk) => {
      received += String(chunk);
    });
    socket.on('close', () => {
      closed = true;
    });
    socket.on('error', () => {});
    return { socket, received: () => received, closed: () => closed };
  }

  it('cuts a client that trickles its headers past ingest.headersTimeoutMs', async () => {
    serve = await startTestServe({ ingest: { headersTimeoutMs: 150, bodyTimeoutMs: 400 } });
    const client = rawClient(serve.url);
    client.socket.write('POST /v1/events HTTP/1.1\r\nHost: x\r\n');
    const trickle = setInterval(() => client.socket.write('X-Slow: 1\r\n'), 20);
    try {
      await vi.waitFor(() => expect(client.closed()).toBe(true), { timeout: 5000, interval: 20 });
    } finally {
      clearInterval(trickle);
    }
    expect(client.received()).toMatch(/^HTTP\/1\.1 408/);
  });

  it('cuts a client that sends its headers but trickles its body past ingest.bodyTimeoutMs', async () => {
    serve = await startTestServe({ ingest: { headersTimeoutMs: 100, bodyTimeoutMs: 300 } });
    const client = rawClient(serve.url);
    client.socket.write(
      'POST /v1/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-ndjson\r\nContent-Length: 100000\r\n\r\n',
    );
    const trickle = setInterval(() => client.socket.write('{'), 20);
    try {
      await vi.waitFor(() => expect(client.closed()).toBe(true), { timeout: 5000, interval: 20 });
    } finally {
      clearInterval(trickle);
    }
    expect(serve.runtime.turn('T1')).toBeUndefined();
  });
});

describe('GET /v1/turns/:turnId', () => {
  it('shows a live turn, then the ended one; 404 for an unknown turn', async () => {
    serve = await startTestServe();
    await postEvents(serve.url, ndjson(...turnEvents(serve.surface, 'T1')));
    const live = await getJson(serve.url, '/v1/turns/T1');
    expect(live.status).toBe(200);
    expect(live.json).toMatchObject({ turnId: 'T1', space: SPACE, entries: 1, degraded: false });
    expect(live.json.state).not.toBe('ended');

    await postEvents(serve.url, ndjson({ type: 'turn_ended', space: SPACE, turnId: 'T1', outcome: 'ok' }));
    // The terminal frame waits for the space's next slot after the first post (1 s plus the budget margin).
    await vi.waitFor(
      async () => {
        serve!.clock.increment(200);
        const ended = await getJson(serve!.url, '/v1/turns/T1');
        expect(ended.json).toMatchObject({ state: 'ended', outcome: 'ok' });
        expect((ended.json.logMessages as unknown[]).length).toBe(1);
      },
      { timeout: 5000 },
    );

    const unknown = await getJson(serve.url, '/v1/turns/nope');
    expect(unknown.status).toBe(404);
    expect(unknown.json).toEqual({ error: 'no turn "nope"' });
  });

  it('answers a finished turn from the store when the runtime no longer holds it', async () => {
    const store = createMemoryStore();
    store.finishTurn({
      turnId: 'old turn',
      space: SPACE,
      state: 'ended',
      outcome: 'error',
      degraded: true,
      logMessages: [{ messageId: 'spaces/AAAA/messages/9', final: true }],
      entries: 7,
      deadLetters: 0,
      endedAt: 1,
    });
    const s = await startServe({
      config: { ingest: { port: 0 } },
      surfaces: { gchat: createMemorySurface() },
      store,
      logger: pino({ level: 'silent' }),
    });
    const { status, json } = await getJson(s.url, `/v1/turns/${encodeURIComponent('old turn')}`);
    await s.close();
    expect(status).toBe(200);
    expect(json).toMatchObject({
      turnId: 'old turn',
      state: 'ended',
      outcome: 'error',
      entries: 7,
      degraded: true,
    });
  });
});

describe('GET /healthz', () => {
  const surfaceWithReady = (ready: () => Promise<boolean>): ChatSurface => {
    const memory = createMemorySurface();
    return {
      platform: 'gchat',
      capabilities: memory.capabilities,
      post: (req) => memory.post(req),
      edit: (req) => memory.edit(req),
      react: (req) => memory.react(req),
      ready,
    };
  };

  it('answers 200 {"ok": true} when every surface is ready', async () => {
    serve = await startTestServe();
    expect(await getJson(serve.url, '/healthz')).toMatchObject({ status: 200, json: { ok: true } });
  });

  it('answers 503 naming the surface that is not ready, and why', async () => {
    serve = await startTestServe({ surface: surfaceWithReady(async () => false) });
    expect(await getJson(serve.url, '/healthz')).toMatchObject({
      status: 503,
      json: { ok: false, notReady: [{ surface: 'gchat', reason: 'not ready' }] },
    });
    await serve.close();
    serve = await startTestServe({
      surface: surfaceWithReady(async () => {
        throw new Error('no credentials');
      }),
    });
    expect((await getJson(serve.url, '/healthz')).json).toEqual({
      ok: false,
      notReady: [{ surface: 'gchat', reason: 'ready() failed: no credentials' }],
    });
  });
});

describe('other requests', () => {
  it('answers JSON 404 for an unknown path and 405 with Allow for a wrong method', async () => {
    serve = await startTestServe();
    const missing = await getJson(serve.url, '/v2/events');
    expect(missing).toMatchObject({ status: 404, json: { error: 'no route GET /v2/events' } });
    const wrong = await getJson(serve.url, '/v1/events');
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('POST');
  });
});

describe('logs', () => {
  it('logs one debug line per request and one warn per refused line, without event text or the token', async () => {
    serve = await startTestServe({ ingest: { token: TOKEN } });
    const secretText = 'the build is green, deploying to prod';
    const body = ndjson(
      { type: 'note', space: SPACE, turnId: 'T9', level: 'loud', text: secretText },
      `${secretText} (not JSON)`,
    );
    const { status } = await postEvents(serve.url, `${body}\n${secretText}`, { token: TOKEN });
    expect(status).toBe(400);
    const logs = serve.logs;
    expect(logs.filter((l) => l.msg === 'rejected an event').map((l) => l.line)).toEqual([1, 2, 3]);
    expect(logs.filter((l) => l.msg === 'request')).toEqual([
      expect.objectContaining({ level: 20, method: 'POST', path: '/v1/events', status: 400 }),
    ]);
    expect(serve.logText()).not.toContain('deploying');
    expect(serve.logText()).not.toContain(TOKEN);
  });
});

describe('POST /v1/events: `at` out of range', () => {
  it.each([
    ['9e15 (beyond what a Date can hold)', 9_000_000_000_000_000],
    ['two days ahead', 2 * 86_400_000 + 1],
    ['not a safe integer', 2 ** 60],
  ])(
    'refuses a note with at %s per line, keeps it as a dead letter, and the space stays up',
    async (_, at) => {
      serve = await startTestServe();
      const s = serve;
      s.clock.set(0);
      const [inbound, started, call] = turnEvents(s.surface, 'T1');
      const bad = { type: 'note', space: SPACE, turnId: 'T1', text: 'from the future', at };
      const { status, json } = await postEvents(s.url, ndjson(inbound, started, call, bad));
      expect(status).toBe(202);
      expect(json.rejected).toEqual([{ line: 4, error: expect.stringMatching(/^line 4: (note\.)?at: /) }]);
      const letters = await s.store.deadLetters();
      expect(letters.map((d) => d.reason)).toEqual([expect.stringContaining('at: ')]);
      // The turn goes on: its space never crashed on the event.
      s.clock.increment(2000);
      const ok = { type: 'note', space: SPACE, turnId: 'T1', text: 'still here', at: s.clock.now() };
      expect((await postEvents(s.url, ndjson(ok))).status).toBe(202);
      await vi.waitFor(() => expect(s.runtime.turn('T1')?.entries).toBe(2), { timeout: 5000 });
      expect(s.logText()).not.toContain('failed; starting it again');
    },
  );
});

describe('POST /v1/events: JSON depth', () => {
  const deep = (levels: number) => `${'['.repeat(levels)}1${']'.repeat(levels)}`;

  it('refuses a JSON array body whose second item is nested 5,000 deep with a 400, applying nothing', async () => {
    serve = await startTestServe();
    const s = serve;
    const [inbound] = turnEvents(s.surface, 'T1');
    const body = `[${JSON.stringify(inbound)}, {"type": "note", "space": "${SPACE}", "turnId": "T1", "text": ${deep(5000)}}]`;
    for (let attempt = 0; attempt < 2; attempt++) {
      const { status, json } = await postEvents(s.url, body, { contentType: 'application/json' });
      expect(status).toBe(400);
      expect(json).toMatchObject({
        accepted: 0,
        error: expect.stringMatching(/nested deeper than 64 levels/),
      });
    }
    expect(await s.store.events(`space:${SPACE}`)).toEqual([]);
    const letters = await s.store.deadLetters();
    expect(letters).toHaveLength(2);
    expect(letters[0]?.reason).toMatch(/nested deeper than 64 levels/);
  });

  it('refuses an NDJSON line nested 5,000 deep per line, with a dead letter, and applies the others', async () => {
    serve = await startTestServe();
    const s = serve;
    const [inbound, started] = turnEvents(s.surface, 'T1');
    const body = `${ndjson(inbound, started)}\n{"type": "note", "space": "${SPACE}", "turnId": "T1", "text": ${deep(5000)}}`;
    const { status, json } = await postEvents(s.url, body);
    expect(status).toBe(202);
    expect(json).toMatchObject({
      accepted: 2,
      rejected: [{ line: 3, error: expect.stringMatching(/^line 3: JSON nested deeper than 64 levels/) }],
    });
    expect((await s.store.deadLetters()).map((d) => d.reason)).toEqual([
      expect.stringMatching(/nested deeper than 64 levels/),
    ]);
  });

  it('refuses a value given in process nested deeper than the limit, and a cyclic one, without throwing', async () => {
    serve = await startTestServe();
    let nested: unknown = 'x';
    for (let i = 0; i < 5000; i++) nested = { nested };
    const cyclic: Record<string, unknown> = { type: 'note', space: SPACE, turnId: 'T1' };
    cyclic.text = cyclic;
    for (const value of [{ type: 'note', space: SPACE, turnId: 'T1', text: nested }, cyclic]) {
      expect(serve.runtime.ingest(value)).toEqual({
        ok: false,
        error: expect.stringMatching(/nested deeper than 64 levels/),
      });
    }
  });
});
