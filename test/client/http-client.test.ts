/**
 * createTurnlogClient against a local stand-in of `turnlog serve`'s ingest
 * (docs/http-api.md): NDJSON batches, bearer token, per-line rejections, 400,
 * 401, 413 and retried 5xx/429/network errors.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SimulatedClock } from 'xstate';
import { ingestEndpoint } from '../../src/client/http-transport.js';
import {
  createTurnlogClient,
  DeliveryError,
  type EventNotAcceptedError,
  type TurnlogClientOptions,
} from '../../src/client/index.js';
import type { Clock } from '../../src/clock.js';
import { type IngestStub, startIngestStub } from './ingest-stub.js';

const SPACE = 'discord:123456789012345678';
const NOW = 1_760_000_000_000;

let stubs: IngestStub[] = [];
async function stub(opts: Parameters<typeof startIngestStub>[0] = {}): Promise<IngestStub> {
  const started = await startIngestStub(opts);
  stubs.push(started);
  return started;
}
afterEach(async () => {
  await Promise.all(stubs.map((s) => s.close()));
  stubs = [];
});

/** Fires every timer on the next turn of the event loop and remembers what it was asked to wait. */
function recordingClock(): { clock: Clock; delays: number[] } {
  const delays: number[] = [];
  return {
    delays,
    clock: {
      now: () => NOW,
      setTimeout: (fn, ms) => {
        delays.push(ms);
        return setImmediate(fn);
      },
      clearTimeout: (id) => clearImmediate(id as NodeJS.Immediate),
    },
  };
}

function client(url: string, options: Partial<TurnlogClientOptions> = {}) {
  const errors: EventNotAcceptedError[] = [];
  const { clock, delays } = recordingClock();
  const c = createTurnlogClient({ url, clock, onRejected: (e) => errors.push(e), ...options });
  return { client: c, errors, delays };
}

const bodyLines = (s: IngestStub, i: number) =>
  (s.requests[i]?.body ?? '')
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('createTurnlogClient: batches', () => {
  it('posts NDJSON to /v1/events with the bearer token, one line per event, stamped with when it was logged', async () => {
    const s = await stub({ token: 'tok-1' });
    const { client: c } = client(s.url, { token: 'tok-1' });
    const turn = c.startTurn({ space: SPACE, turnId: 'T1', rootRef: 'u1' });
    const call = turn.toolCall('Bash', { command: 'npm test' });
    turn.toolResult(call, { ok: true, output: 'ok' });
    await turn.end('ok');
    expect(s.requests).toHaveLength(1);
    expect(s.requests[0]).toMatchObject({
      authorization: 'Bearer tok-1',
      contentType: 'application/x-ndjson',
      status: 202,
    });
    expect(bodyLines(s, 0).map((e) => [e.type, e.turnId, e.at])).toEqual([
      ['turn_started', 'T1', NOW],
      ['tool_call', 'T1', NOW],
      ['tool_result', 'T1', NOW],
      ['turn_ended', 'T1', NOW],
    ]);
    expect(s.events.map((e) => e.type)).toEqual(['turn_started', 'tool_call', 'tool_result', 'turn_ended']);
    expect(c.counts).toEqual({ sent: 4, accepted: 4, rejected: 0 });
  });

  it('waits batchMs after the first event for company, then sends what came', async () => {
    const s = await stub();
    const clock = new SimulatedClock();
    let posts = 0;
    const c = createTurnlogClient({
      url: s.url,
      clock,
      batchMs: 50,
      fetch: (input, init) => {
        posts++;
        return fetch(input, init);
      },
    });
    c.send({ type: 'inbound', space: SPACE, messageId: '1' });
    clock.increment(49);
    c.send({ type: 'inbound', space: SPACE, messageId: '2' });
    await Promise.resolve();
    expect(posts).toBe(0);
    clock.increment(1);
    await vi.waitFor(() => expect(s.events).toHaveLength(2), { timeout: 10_000 });
    expect(posts).toBe(1);
    await c.close();
  });

  it('sends a full batch at once, and keeps the order across requests', async () => {
    const s = await stub();
    const { client: c } = client(s.url, { maxBatch: 3 });
    for (let i = 1; i <= 7; i++) c.send({ type: 'inbound', space: SPACE, messageId: String(i) });
    await c.flush();
    expect(s.requests.map((r) => r.body.trimEnd().split('\n').length)).toEqual([3, 3, 1]);
    expect(s.events.map((e) => (e.type === 'inbound' ? e.messageId : ''))).toEqual([
      '1',
      '2',
      '3',
      '4',
      '5',
      '6',
      '7',
    ]);
  });
});

describe('createTurnlogClient: what the ingest refuses is reported', () => {
  it('names the event of each rejected line with the ingest error (without the body line number)', async () => {
    const s = await stub();
    const { client: c, errors } = client(s.url);
    const turn = c.startTurn({ space: SPACE, turnId: 'T1' });
    turn.toolCall('', {}, { callId: 'c2' });
    turn.note('still fine');
    const report = await c.flush();
    expect(errors.map((e) => e.message)).toEqual([
      'turnlog rejected tool_call c2 of turn T1: tool_call.tool: expected a non-empty string, got ""',
    ]);
    expect(report).toEqual({ accepted: 2, rejected: errors });
    expect(s.events.map((e) => e.type)).toEqual(['turn_started', 'note']);
  });

  it('400 (nothing parsed): every event is rejected; close() throws listing them', async () => {
    const s = await stub();
    const c = createTurnlogClient({ url: s.url, clock: recordingClock().clock });
    for (let i = 0; i < 5; i++) c.send({ type: 'nope', space: SPACE, n: i });
    const error = (await c.close().catch((e: unknown) => e)) as DeliveryError;
    expect(error).toBeInstanceOf(DeliveryError);
    expect(error.errors).toHaveLength(5);
    expect(error.message).toMatch(
      /^5 events were not accepted: turnlog rejected nope in discord:\d+: unknown type "nope"/,
    );
    expect(error.message).toMatch(/; and 2 more$/);
    expect(s.requests.map((r) => r.status)).toEqual([400]);
  });

  it('401: the batch is refused at once (no retry), telling to give the token', async () => {
    const s = await stub({ token: 'right' });
    const { client: c, errors } = client(s.url, { token: 'wrong' });
    c.send({ type: 'inbound', space: SPACE, messageId: '1' });
    await c.flush();
    expect(s.requests.map((r) => r.status)).toEqual([401]);
    expect(errors.map((e) => [e.kind, e.reason, e.status])).toEqual([
      ['rejected', 'HTTP 401: missing or wrong bearer token', 401],
    ]);
  });

  it('413: halves the batch until it fits; an event over the limit on its own is rejected', async () => {
    const s = await stub({ maxBodyBytes: 600 });
    const { client: c, errors } = client(s.url);
    const turn = c.startTurn({ space: SPACE, turnId: 'T1' });
    turn.note('a');
    turn.note('b');
    turn.note('x'.repeat(700));
    turn.note('c');
    await c.flush();
    expect(s.events.map((e) => (e.type === 'note' ? e.text : e.type))).toEqual([
      'turn_started',
      'a',
      'b',
      'c',
    ]);
    expect(errors.map((e) => e.message)).toEqual([
      'turnlog rejected note of turn T1: HTTP 413: body over 600 bytes',
    ]);
    expect(c.counts).toEqual({ sent: 5, accepted: 4, rejected: 1 });
  });

  it('a bare status says what it means; a 2xx without a readable answer counts as accepted', async () => {
    const answers = [new Response('', { status: 401 }), new Response('OK', { status: 202 })];
    const { client: c, errors } = client('http://127.0.0.1:9', {
      fetch: async () => answers.shift() ?? new Response('', { status: 500 }),
    });
    c.send({ type: 'inbound', space: SPACE, messageId: '1' });
    await c.flush();
    c.send({ type: 'inbound', space: SPACE, messageId: '2' });
    await c.flush();
    expect(errors.map((e) => e.reason)).toEqual(["HTTP 401 (give the ingest's bearer token)"]);
    expect(c.counts).toEqual({ sent: 2, accepted: 1, rejected: 1 });
  });

  it('a fetch that breaks the Response contract: the batch is reported undelivered, later ones still go', async () => {
    const s = await stub();
    let broken = true;
    const { client: c, errors } = client(s.url, {
      fetch: async (input, init) => {
        if (!broken) return fetch(input, init);
        broken = false;
        return { status: 503, text: async () => '', headers: null } as unknown as Response;
      },
    });
    c.send({ type: 'inbound', space: SPACE, messageId: '1' });
    await c.flush();
    c.send({ type: 'inbound', space: SPACE, messageId: '2' });
    await c.flush();
    expect(errors.map((e) => [e.kind, e.reason])).toEqual([
      ['undelivered', expect.stringMatching(/^client error: Cannot read properties of null/)],
    ]);
    expect(s.events).toHaveLength(1);
  });

  it('another status (a wrong path: 404) is reported with the answer', async () => {
    const s = await stub();
    const { client: c, errors } = client(`${s.url}/elsewhere/v1/events`);
    c.send({ type: 'inbound', space: SPACE, messageId: '1' });
    await c.flush();
    expect(errors.map((e) => e.reason)).toEqual(['HTTP 404: no route POST /elsewhere/v1/events']);
  });
});

describe('createTurnlogClient: retries', () => {
  it('retries 5xx with exponential backoff, then delivers', async () => {
    const s = await stub();
    s.fault({ status: 503 }, { status: 502 });
    const { client: c, errors, delays } = client(s.url, { retryDelayMs: 250 });
    c.send({ type: 'inbound', space: SPACE, messageId: '1' });
    await c.flush();
    expect(s.requests.map((r) => r.status)).toEqual([503, 502, 202]);
    expect(delays).toEqual([50, 250, 500]); // the batch wait, then the backoff
    expect(errors).toEqual([]);
    expect(s.events).toHaveLength(1);
  });

  it("waits out a 429's Retry-After instead of the backoff", async () => {
    const s = await stub();
    s.fault({ status: 429, retryAfterS: 3 });
    const { client: c, delays } = client(s.url);
    c.send({ type: 'inbound', space: SPACE, messageId: '1' });
    await c.flush();
    expect(delays.slice(1)).toEqual([3000]);
    expect(s.events).toHaveLength(1);
  });

  it('retries a dropped connection (a network error)', async () => {
    const s = await stub();
    s.fault({ drop: true });
    const { client: c, errors } = client(s.url);
    c.send({ type: 'inbound', space: SPACE, messageId: '1' });
    await c.flush();
    expect(errors).toEqual([]);
    expect(s.events).toHaveLength(1);
  });

  it('gives up after the retries and reports every event of the batch undelivered', async () => {
    const s = await stub();
    s.fault({ status: 503 }, { status: 503 });
    const { client: c, errors } = client(s.url, { retries: 1 });
    const turn = c.startTurn({ space: SPACE, turnId: 'T1' });
    turn.note('lost?');
    await c.flush();
    expect(s.requests).toHaveLength(2);
    expect(errors.map((e) => [e.kind, e.message])).toEqual([
      [
        'undelivered',
        'turnlog could not deliver turn_started of turn T1: HTTP 503: injected 503 (gave up after 2 attempts)',
      ],
      [
        'undelivered',
        'turnlog could not deliver note of turn T1: HTTP 503: injected 503 (gave up after 2 attempts)',
      ],
    ]);
    expect(c.counts).toEqual({ sent: 2, accepted: 0, rejected: 2 });
  });

  it('an unreachable ingest: undelivered, with the cause', async () => {
    const s = await stub();
    await s.close();
    stubs = [];
    const { client: c, errors } = client(s.url, { retries: 0 });
    c.send({ type: 'inbound', space: SPACE, messageId: '1' });
    await c.flush();
    expect(errors[0]?.reason).toMatch(
      /^network error: fetch failed: connect ECONNREFUSED 127\.0\.0\.1:\d+ \(gave up after 1 attempt\)$/,
    );
  });
});

describe('createTurnlogClient: bad input', () => {
  it('turns the ingest origin into the events endpoint, and refuses what is not an http(s) url', () => {
    expect(ingestEndpoint('http://127.0.0.1:8787')).toBe('http://127.0.0.1:8787/v1/events');
    expect(ingestEndpoint('https://turnlog.example/base/')).toBe('https://turnlog.example/base/v1/events');
    expect(ingestEndpoint('http://h:1/v1/events')).toBe('http://h:1/v1/events');
    expect(() => ingestEndpoint('localhost:8787')).toThrow(
      'the ingest url "localhost:8787" must be http: or https:',
    );
    expect(() => ingestEndpoint('127.0.0.1:8787')).toThrow('the ingest url "127.0.0.1:8787" is not a URL');
    expect(() => ingestEndpoint('not a url')).toThrow(
      'the ingest url "not a url" is not a URL (e.g. http://127.0.0.1:8787)',
    );
  });

  it('refuses options out of range, naming them', () => {
    const url = 'http://127.0.0.1:1';
    expect(() => createTurnlogClient({ url, maxBatch: 0 })).toThrow('maxBatch must be an integer ≥ 1, got 0');
    expect(() => createTurnlogClient({ url, batchMs: -1 })).toThrow('batchMs must be a number ≥ 0, got -1');
    expect(() => createTurnlogClient({ url, retries: 1.5 })).toThrow(
      'retries must be an integer ≥ 0, got 1.5',
    );
    expect(() => createTurnlogClient({ url, token: '' })).toThrow('token must not be empty');
  });

  it('refuses, when logged, an event that cannot be encoded as JSON', async () => {
    const c = createTurnlogClient({ url: 'http://127.0.0.1:1' });
    const turn = c.startTurn({ space: SPACE, turnId: 'T1' });
    const input: Record<string, unknown> = {};
    input.self = input;
    expect(() => turn.toolCall('Read', input)).toThrow(
      /^cannot encode the tool_call event as JSON: Converting circular/,
    );
    expect(() => turn.toolCall('Read', { size: 1n })).toThrow('cannot encode the tool_call event as JSON');
  });
});
