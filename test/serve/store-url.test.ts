/**
 * Issue 23.1 through `startServe`: `store.url` makes serve open (and close)
 * the Postgres store itself. A turn's events with eventIds sent again after
 * serve was restarted on the same store.url are duplicates and show nothing
 * twice (the eventIds and run record live in Postgres). (An `inbound` outside
 * a live turn is left without an eventId here: the runtime looks a space's
 * record up synchronously only, src/runtime/run-record.ts `recall`, so with a
 * store that answers later its first retried inbound is not yet known: a gap
 * reported with issue 23.3.) An unreachable
 * server stops serve at start with a ConfigError naming store.url and the
 * URL, never its password. On a real Postgres (test/cluster/servers.ts).
 */
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { SimulatedClock } from 'xstate';
import { ConfigError } from '../../src/config.js';
import { type Serve, startServe } from '../../src/serve/index.js';
import { createMemorySurface, type MemorySurface } from '../../src/testing/memory-surface.js';
import { type RunningPostgres, startPostgres } from '../cluster/servers.js';
import { ndjson, postEvents, SPACE, turnEvents } from './serve.helpers.js';

let server: RunningPostgres;
beforeAll(async () => {
  server = await startPostgres();
});
afterAll(() => server?.stop());

const serves: Serve[] = [];
afterEach(async () => {
  for (const serve of serves.splice(0)) await serve.close();
});

async function start(url: string, surface: MemorySurface, clock: SimulatedClock): Promise<Serve> {
  const serve = await startServe({
    // The simulated clock does not move during close(): a short flush bound keeps the test quick.
    config: { ingest: { port: 0, shutdownTimeoutMs: 1000 }, store: { url } },
    surfaces: { gchat: surface },
    clock,
    logger: pino({ level: 'silent' }),
  });
  serves.push(serve);
  return serve;
}

const count = (surface: MemorySurface, needle: string) =>
  surface
    .messages(SPACE)
    .map((m) => m.text)
    .join('\n')
    .split(needle).length - 1;

describe('serve with store.url', () => {
  it('restarted on the same Postgres, a retried turn (turn_ended included) is applied once', async () => {
    const clock = new SimulatedClock();
    const surface = createMemorySurface({ platform: 'gchat', now: () => clock.now() });
    const events = [
      ...turnEvents(surface, 'T1'),
      {
        type: 'tool_call',
        space: SPACE,
        turnId: 'T1',
        callId: 'c2',
        tool: 'Read',
        input: { path: 'second-file.ts' },
      },
      { type: 'turn_ended', space: SPACE, turnId: 'T1', outcome: 'ok' },
    ].map((event, i) => (event.type === 'inbound' ? event : { ...event, eventId: `T1-e${i}` }));
    const body = ndjson(...events);
    const first = await start(server.url, surface, clock);
    expect((await postEvents(first.url, body)).json).toEqual({ accepted: 5, rejected: [], duplicates: 0 });
    // The final frame waits for its budget slot on the simulated clock: move it until the frame lands.
    await vi.waitFor(
      () => {
        clock.increment(500);
        expect(count(surface, 'second-file.ts')).toBe(1);
      },
      { timeout: 20_000, interval: 20 },
    );
    await first.close();
    const posts = surface.calls.filter((c) => c.op === 'create').length;
    expect(count(surface, 'second-file.ts')).toBe(1);

    const second = await start(server.url, surface, clock);
    // With a Postgres store.url serve runs as a cluster member: the retry is appended to the space's inbox
    // and answered 202 before its owner finds the eventIds applied, so it is not counted as duplicates in
    // the answer (a known gap, issue 23): what holds is that nothing is applied twice (below).
    expect(await postEvents(second.url, body)).toMatchObject({
      status: 202,
      json: { accepted: 5, rejected: [] },
    });
    expect(await (await fetch(`${second.url}/v1/turns/T1`)).json()).toMatchObject({ state: 'ended' });
    clock.increment(5000);
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(surface.calls.filter((c) => c.op === 'create')).toHaveLength(posts);
    expect(count(surface, 'second-file.ts')).toBe(1);
  });

  it('an unreachable server stops serve at start, naming store.url without the password', async () => {
    const clock = new SimulatedClock();
    const surface = createMemorySurface({ platform: 'gchat', now: () => clock.now() });
    const url = `postgres://turnlog:pg-s3cret@127.0.0.1:${server.port + 1}/turnlog`;
    const error = await start(url, surface, clock).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect(error?.message).toMatch(
      /^store\.url: postgres store "postgres:\/\/turnlog@127\.0\.0\.1:\d+\/turnlog": opening the database failed/,
    );
    expect(error?.message).not.toContain('pg-s3cret');
  });
});
