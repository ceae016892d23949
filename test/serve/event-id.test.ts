/**
 * `POST /v1/events` with `eventId`s (README "HTTP API"; docs/http-api.md
 * extended compatibly): a retried request gets the same 202 as the first,
 * its events count as accepted and the answer's `duplicates` says how many
 * were already applied (always present, 0 when none); the chat shows each
 * entry once — also when serve was restarted on the same SQLite file between
 * the two requests.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createSqliteStore } from '../../src/store/sqlite.js';
import { createMemorySurface, type MemorySurface } from '../../src/testing/memory-surface.js';
import {
  closeTestServe,
  ndjson,
  postEvents,
  SPACE,
  startTestServe,
  type TestServe,
  turnEvents,
} from './serve.helpers.js';

let serves: TestServe[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const serve of serves.splice(0)) await closeTestServe(serve);
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function start(opts: Parameters<typeof startTestServe>[0] = {}): Promise<TestServe> {
  const serve = await startTestServe(opts);
  serves.push(serve);
  return serve;
}

/** The events of a person's message and a turn with two tool calls, each with its own eventId. */
function batch(surface: MemorySurface, turnId: string): Record<string, unknown>[] {
  const events = [
    ...turnEvents(surface, turnId),
    {
      type: 'tool_call',
      space: SPACE,
      turnId,
      callId: 'c2',
      tool: 'Read',
      input: { path: 'second-file.ts' },
    },
  ];
  return events.map((event, i) => ({ ...event, eventId: `${turnId}-e${i}` }));
}

const count = (surface: MemorySurface, needle: string) =>
  surface
    .messages(SPACE)
    .map((m) => m.text)
    .join('\n')
    .split(needle).length - 1;

describe('POST /v1/events: a batch sent twice', () => {
  it('answers 202 both times, the second with duplicates = n, and shows every entry once', async () => {
    const serve = await start();
    const body = ndjson(...batch(serve.surface, 'T1'));
    const first = await postEvents(serve.url, body);
    expect(first).toMatchObject({ status: 202, json: { accepted: 4, rejected: [], duplicates: 0 } });
    const second = await postEvents(serve.url, body);
    expect(second).toMatchObject({ status: 202, json: { accepted: 4, rejected: [], duplicates: 4 } });

    // The log message is posted with the first entry; the second is edited in after the debounce.
    await vi.waitFor(() => expect(count(serve.surface, 'npm test')).toBe(1), { timeout: 10_000 });
    serve.clock.increment(5000);
    await vi.waitFor(() => expect(count(serve.surface, 'second-file.ts')).toBe(1), { timeout: 10_000 });
    expect(count(serve.surface, 'npm test')).toBe(1);
    expect(count(serve.surface, 'second-file.ts')).toBe(1);
    expect(serve.runtime.turn('T1')?.entries).toBe(2);
    expect(serve.surface.calls.filter((c) => c.op === 'create' && c.thread !== null)).toHaveLength(1);
    expect(await serve.store.deadLetters()).toEqual([]);
  });

  it('counts duplicates among new and refused lines; without eventIds there are none', async () => {
    const serve = await start();
    const [inbound, started, call] = batch(serve.surface, 'T1');
    await postEvents(serve.url, ndjson(inbound, started));
    const note = { type: 'note', space: SPACE, turnId: 'T1', text: 'n', eventId: 'n1' };
    const { status, json } = await postEvents(
      serve.url,
      ndjson(inbound, started, call, note, { type: 'note', space: SPACE, turnId: 'T1' }),
    );
    expect(status).toBe(202);
    expect(json).toEqual({
      accepted: 4,
      duplicates: 2,
      rejected: [{ line: 5, error: 'line 5: note.text: missing (expected a string)' }],
    });
    const plain = { type: 'note', space: SPACE, turnId: 'T1', text: 'plain' };
    expect((await postEvents(serve.url, ndjson(plain, plain))).json).toEqual({
      accepted: 2,
      rejected: [],
      duplicates: 0,
    });
  });

  it('a JSON body counts duplicates the same way', async () => {
    const serve = await start();
    const body = JSON.stringify(batch(serve.surface, 'T1'));
    await postEvents(serve.url, body, { contentType: 'application/json' });
    const again = await postEvents(serve.url, body, { contentType: 'application/json' });
    expect(again).toMatchObject({ status: 202, json: { accepted: 4, duplicates: 4 } });
  });

  it('serve restarted on the same SQLite file in between: the retried batch, turn_ended included, is all duplicates', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'turnlog-serve-event-id-'));
    dirs.push(dir);
    const path = join(dir, 'turnlog.db');
    const surface = createMemorySurface({ platform: 'gchat' });
    const events = [
      ...batch(surface, 'T1'),
      { type: 'turn_ended', space: SPACE, turnId: 'T1', outcome: 'ok', eventId: 'T1-end' },
    ];
    const body = ndjson(...events);
    const first = await start({ surface, store: createSqliteStore({ path }) });
    expect((await postEvents(first.url, body)).json).toEqual({ accepted: 5, rejected: [], duplicates: 0 });
    // The answer was lost; serve went down (its close flushes the turn) and came back on the same file.
    expect(await closeTestServe(first)).toEqual({ flushed: true });
    serves = serves.filter((s) => s !== first);
    const posts = surface.calls.filter((c) => c.op === 'create').length;

    const second = await start({ surface, store: createSqliteStore({ path }) });
    expect(await postEvents(second.url, body)).toMatchObject({
      status: 202,
      json: { accepted: 5, rejected: [], duplicates: 5 },
    });
    second.clock.increment(5000);
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(surface.calls.filter((c) => c.op === 'create')).toHaveLength(posts);
    expect(count(surface, 'second-file.ts')).toBe(1);
  });
});
