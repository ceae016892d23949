/**
 * createTurnlogClient stamps an `eventId` on every event it sends (README
 * "Sending events from Node"): a fresh UUID per event, set once when the
 * event is queued, so a retried request carries the same ids and the ingest
 * answers the events it already applied as duplicates — against a real
 * `turnlog serve` whose answer to the first attempt is lost (503 or a reset
 * connection after the events were applied), the chat shows each entry once.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createTurnlogClient, type EventNotAcceptedError } from '../../src/client/index.js';
import type { Clock } from '../../src/clock.js';
import {
  closeTestServe,
  SPACE as SERVE_SPACE,
  startTestServe,
  type TestServe,
} from '../serve/serve.helpers.js';
import { type IngestStub, startIngestStub } from './ingest-stub.js';

const SPACE = 'discord:123456789012345678';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** Fires every timer on the next turn of the event loop (batching and backoff without waiting). */
const immediateClock: Clock = {
  now: () => 1_760_000_000_000,
  setTimeout: (fn) => setImmediate(fn),
  clearTimeout: (id) => clearImmediate(id as NodeJS.Immediate),
};

let stubs: IngestStub[] = [];
const serves: TestServe[] = [];
afterEach(async () => {
  await Promise.all(stubs.map((s) => s.close()));
  for (const serve of serves.splice(0)) await closeTestServe(serve);
  stubs = [];
});

const lines = (body: string) =>
  body
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('createTurnlogClient: eventId', () => {
  it('stamps a distinct UUID on every event: turn, subagent, inbound and send()', async () => {
    const s = await startIngestStub();
    stubs.push(s);
    const c = createTurnlogClient({ url: s.url, clock: immediateClock });
    c.inbound({ space: SPACE, messageId: '1', ref: 'u1' });
    const turn = c.startTurn({ space: SPACE, turnId: 'T1', rootRef: 'u1' });
    const call = turn.toolCall('Bash', { command: 'ls' });
    turn.toolResult(call, { ok: true });
    const sub = turn.subagent('Explore');
    sub.note('looking');
    sub.end('done');
    const raw = { type: 'note', space: SPACE, turnId: 'T1', text: 'raw' };
    c.send(raw);
    turn.answer('done');
    await turn.end('ok');

    const sent = s.requests.flatMap((r) => lines(r.body));
    expect(sent.map((e) => e.type)).toEqual([
      'inbound',
      'turn_started',
      'tool_call',
      'tool_result',
      'subagent',
      'note',
      'subagent',
      'note',
      'answer',
      'turn_ended',
    ]);
    for (const event of sent) expect(event.eventId).toMatch(UUID);
    expect(new Set(sent.map((e) => e.eventId)).size).toBe(sent.length);
    // The object given to send() is not changed.
    expect(raw).not.toHaveProperty('eventId');
    await c.close();
  });

  it('keeps an eventId the host gave', async () => {
    const s = await startIngestStub();
    stubs.push(s);
    const c = createTurnlogClient({ url: s.url, clock: immediateClock });
    c.send({ type: 'inbound', space: SPACE, messageId: '1', eventId: 'host-1' });
    await c.flush();
    expect(lines(s.requests[0]?.body ?? '')[0]?.eventId).toBe('host-1');
    await c.close();
  });

  it('a retried request carries the same ids; a rejection names the eventId it was sent with', async () => {
    const s = await startIngestStub();
    stubs.push(s);
    s.fault({ status: 503 }, { drop: true });
    const errors: EventNotAcceptedError[] = [];
    const c = createTurnlogClient({ url: s.url, clock: immediateClock, onRejected: (e) => errors.push(e) });
    c.send({ type: 'inbound', space: SPACE, messageId: '1' });
    c.send({ type: 'note', space: SPACE, turnId: 'T1' }); // refused by the ingest: no text
    await c.flush();
    expect(s.requests.map((r) => r.status)).toEqual([503, 0, 202]);
    const [a, b, c3] = s.requests.map((r) => lines(r.body).map((e) => e.eventId));
    expect(a?.map((id) => typeof id === 'string' && UUID.test(id))).toEqual([true, true]);
    expect(a).toEqual(b);
    expect(a).toEqual(c3);
    expect(errors).toHaveLength(1);
    expect(errors[0]?.eventId).toBe(a?.[1]);
    await c.close();
  });

  for (const [lost, answer] of [
    ['answered 503', () => new Response(JSON.stringify({ error: 'overloaded' }), { status: 503 })],
    [
      'lost to a reset connection',
      () => {
        throw new TypeError('fetch failed', { cause: new Error('read ECONNRESET') });
      },
    ],
  ] as const) {
    it(`against turnlog serve: a first attempt applied but ${lost} is retried, and the log shows each entry once`, async () => {
      const serve = await startTestServe();
      // The client stamps `at` from its own clock; the ingest refuses one more than a day off its own.
      serve.clock.set(immediateClock.now());
      serves.push(serve);
      let attempts = 0;
      const answers: Record<string, unknown>[] = [];
      const c = createTurnlogClient({
        url: serve.url,
        clock: immediateClock,
        fetch: async (input, init) => {
          attempts++;
          const response = await fetch(input, init);
          if (attempts === 1) {
            await response.text(); // applied by serve, but the client never sees the answer
            return answer();
          }
          answers.push((await response.clone().json()) as Record<string, unknown>);
          return response;
        },
      });
      const root = serve.surface.inbound({ space: SERVE_SPACE, text: 'please check' });
      c.inbound({ space: SERVE_SPACE, messageId: root.messageId, threadId: root.threadId, ref: 'u1' });
      const turn = c.startTurn({ space: SERVE_SPACE, turnId: 'T1', rootRef: 'u1' });
      turn.toolCall('Read', { path: 'only-once.ts' });
      turn.note('a note shown once');
      await c.flush();

      expect(attempts).toBe(2);
      expect(answers).toEqual([{ accepted: 4, rejected: [], duplicates: 4 }]);
      expect(c.counts).toEqual({ sent: 4, accepted: 4, rejected: 0 });
      await turn.end('ok');
      // The terminal frame waits for the space's next slot after the first post (1 s plus the budget margin).
      await vi.waitFor(
        () => {
          serve.clock.increment(200);
          expect(serve.surface.messages(SERVE_SPACE).some((m) => m.text.includes('a note shown once'))).toBe(
            true,
          );
        },
        { timeout: 10_000 },
      );
      const text = serve.surface
        .messages(SERVE_SPACE)
        .map((m) => m.text)
        .join('\n');
      expect(text.split('only-once.ts')).toHaveLength(2);
      expect(text.split('a note shown once')).toHaveLength(2);
      expect(serve.runtime.turn('T1')?.entries ?? (await serve.runtime.finishedTurn('T1'))?.entries).toBe(2);
      const record = await serve.store.events('T1');
      expect(record.map((e) => e.seq)).toEqual([1, 2, 3, 4]);
      await c.close();
    });
  }
});
