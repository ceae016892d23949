/**
 * Idempotent ingest (README "Run events", `eventId`): `runtime.ingest` of an
 * event whose (turnId, eventId) was already accepted answers
 * `{ok: true, duplicate: true}` with the first copy's seq and applies nothing
 * — no second entry, no second run-record row, no dead letter — also after a
 * crash or stop, with the ids rebuilt from the SQLite run record (a live turn
 * restored at start, a turn that ended before the restart, inbound anchors).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { createMemoryStore } from '../../src/store/memory.js';
import { createSqliteStore, type SqliteStore } from '../../src/store/sqlite.js';
import { createMemorySurface, type MemorySurface } from '../../src/testing/memory-surface.js';
import { SPACE, startRuntime } from './runtime.helpers.js';

const dirs: string[] = [];
const stores: SqliteStore[] = [];
afterEach(() => {
  for (const store of stores.splice(0)) store.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function dbPath(): string {
  const dir = mkdtempSync(join(tmpdir(), 'turnlog-event-id-'));
  dirs.push(dir);
  return join(dir, 'turnlog.db');
}

function openStore(path: string): SqliteStore {
  const store = createSqliteStore({ path });
  stores.push(store);
  return store;
}

const call = (n: number) => ({
  type: 'tool_call',
  space: SPACE,
  turnId: 'T1',
  callId: `c${n}`,
  tool: 'Read',
  input: { path: `file-${n}.ts` },
  eventId: `e-call-${n}`,
});

/** How often each file shows in the space's messages: every entry exactly once means no duplicate. */
function shown(surface: MemorySurface, files: number[]): number[] {
  const text = surface
    .messages(SPACE)
    .map((m) => m.text)
    .join('\n');
  return files.map((n) => text.split(`file-${n}.ts`).length - 1);
}

const logPosts = (surface: MemorySurface) =>
  surface.calls.filter((c) => c.op === 'create' && c.status < 300 && c.thread !== null);

describe('runtime.ingest with eventId', () => {
  it('the same event twice: one entry, one seq, answered as a duplicate of the first', async () => {
    const h = await startRuntime();
    h.userMessage('u1');
    h.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1', eventId: 'e-start' });
    const first = h.runtime.ingest(call(1));
    const again = h.runtime.ingest(call(1));
    expect(first).toMatchObject({ ok: true, event: { seq: 2 } });
    expect(first).not.toHaveProperty('duplicate');
    expect(again).toEqual({ ok: true, duplicate: true, event: first.ok ? first.event : undefined });
    expect(h.runtime.ingest(call(2))).toMatchObject({ ok: true, event: { seq: 3 } });
    await h.advance(2000);

    expect(h.runtime.turn('T1')?.entries).toBe(2);
    expect((await h.store.events('T1')).map((e) => [e.seq, e.eventId])).toEqual([
      [1, 'e-start'],
      [2, 'e-call-1'],
      [3, 'e-call-2'],
    ]);
    expect(shown(h.surface, [1, 2])).toEqual([1, 1]);
    expect(await h.store.deadLetters()).toEqual([]);
    await h.runtime.stop();
  });

  it('the same events without eventId are applied twice, as before', async () => {
    const h = await startRuntime();
    h.userMessage('u1');
    h.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1' });
    const { eventId: _, ...plain } = call(1);
    expect(h.runtime.ingest(plain)).toMatchObject({ ok: true, event: { seq: 2 } });
    expect(h.runtime.ingest(plain)).toMatchObject({ ok: true, event: { seq: 3 } });
    await h.advance(2000);
    expect(h.runtime.turn('T1')?.entries).toBe(2);
    await h.runtime.stop();
  });

  it('an eventId reused for another kind of event is refused and kept as a dead letter', async () => {
    const h = await startRuntime();
    h.send({ type: 'turn_started', turnId: 'T1', eventId: 'x' });
    const result = h.runtime.ingest({ type: 'note', space: SPACE, turnId: 'T1', text: 'n', eventId: 'x' });
    expect(result).toEqual({
      ok: false,
      error:
        'eventId "x" of turn T1 was already accepted for a turn_started event (seq 1); this note event is refused: give every event its own eventId',
    });
    expect((await h.store.deadLetters()).map((d) => d.reason)).toEqual([result.ok ? '' : result.error]);
    await h.runtime.stop();
  });

  it('a retry of a whole turn that has ended here is all duplicates, turn_ended included', async () => {
    const h = await startRuntime();
    h.userMessage('u1');
    const batch = [
      { type: 'turn_started', space: SPACE, turnId: 'T1', rootRef: 'u1', eventId: 'e-start' },
      call(1),
      { type: 'turn_ended', space: SPACE, turnId: 'T1', outcome: 'ok', eventId: 'e-end' },
    ];
    for (const event of batch) expect(h.runtime.ingest(event)).toMatchObject({ ok: true });
    await h.advance(2000);
    for (const event of batch) expect(h.runtime.ingest(event)).toMatchObject({ ok: true, duplicate: true });
    await h.advance(2000);
    expect(logPosts(h.surface)).toHaveLength(1);
    expect(shown(h.surface, [1])).toEqual([1]);
    expect(await h.store.deadLetters()).toEqual([]);
    await h.runtime.stop();
  });
});

describe('runtime.ingest with eventId across a restart (SQLite run record)', () => {
  /** Half a turn through a first runtime, committed as serve would before answering. */
  async function firstHalf(path: string, clock: SimulatedClock, surface: MemorySurface) {
    const store = openStore(path);
    const first = await startRuntime({ clock, surface, store });
    first.userMessage('u1');
    const events = [
      { type: 'turn_started', space: SPACE, turnId: 'T1', rootRef: 'u1', eventId: 'e-start' },
      call(1),
      call(2),
    ];
    for (const event of events) expect(first.runtime.ingest(event)).toMatchObject({ ok: true });
    await first.advance(2000);
    await first.runtime.sync();
    return { first, events };
  }

  async function resendAndFinish(
    path: string,
    clock: SimulatedClock,
    surface: MemorySurface,
    sent: object[],
  ) {
    const second = await startRuntime({ clock, surface, store: openStore(path) });
    // The client never got the answer: it sends the first half again, then the rest.
    for (const event of sent) {
      expect(second.runtime.ingest(event)).toMatchObject({ ok: true, duplicate: true });
    }
    const fresh = second.runtime.ingest(call(3));
    expect(fresh).toMatchObject({ ok: true, event: { seq: 4 } });
    expect(fresh).not.toHaveProperty('duplicate');
    second.send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok', eventId: 'e-end' });
    await second.advance(3000);
    return second;
  }

  it('stopped without a flush: the live turn is restored with its ids; the resent half is not applied again', async () => {
    const path = dbPath();
    const clock = new SimulatedClock();
    const surface = createMemorySurface({ platform: 'gchat', now: () => clock.now() });
    const { first, events } = await firstHalf(path, clock, surface);
    await first.runtime.stop();

    const second = await resendAndFinish(path, clock, surface, events);
    expect(logPosts(surface)).toHaveLength(1);
    expect(shown(surface, [1, 2, 3])).toEqual([1, 1, 1]);
    expect((await second.store.events('T1')).map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
    await second.runtime.stop();
  });

  it('crashed (a new runtime on the same file, the old one never stopped): the same', async () => {
    const path = dbPath();
    const clock = new SimulatedClock();
    const surface = createMemorySurface({ platform: 'gchat', now: () => clock.now() });
    const { events } = await firstHalf(path, clock, surface);
    // The first runtime is abandoned as it is; a crashed process runs no more timers, so the clock
    // the new runtime uses is its own.
    const own = new SimulatedClock();
    own.set(clock.now());
    const second = await resendAndFinish(path, own, surface, events);
    expect(logPosts(surface)).toHaveLength(1);
    expect(shown(surface, [1, 2, 3])).toEqual([1, 1, 1]);
    expect((await second.store.events('T1')).map((e) => e.eventId)).toEqual([
      'e-start',
      'e-call-1',
      'e-call-2',
      'e-call-3',
      'e-end',
    ]);
    await second.runtime.stop();
  });

  it('a turn that ended before the restart: its resent events are duplicates, no second log message', async () => {
    const path = dbPath();
    const clock = new SimulatedClock();
    const surface = createMemorySurface({ platform: 'gchat', now: () => clock.now() });
    const { first, events } = await firstHalf(path, clock, surface);
    const end = { type: 'turn_ended', space: SPACE, turnId: 'T1', outcome: 'ok', eventId: 'e-end' };
    expect(first.runtime.ingest(end)).toMatchObject({ ok: true });
    await first.advance(3000);
    await first.runtime.sync();
    await first.runtime.stop();
    const posts = surface.calls.length;

    const second = await startRuntime({ clock, surface, store: openStore(path) });
    for (const event of [...events, end]) {
      expect(second.runtime.ingest(event)).toMatchObject({ ok: true, duplicate: true });
    }
    // A new event of the ended turn is refused as a late one, not opening the turn again.
    expect(second.runtime.ingest({ ...call(9) })).toEqual({
      ok: false,
      error: 'turn T1 has ended (outcome ok); event tool_call refused',
    });
    await second.advance(3000);
    expect(surface.calls.length).toBe(posts);
    expect(second.runtime.turn('T1')).toBeUndefined();
    await second.runtime.stop();
  });

  it('an inbound anchor resent after the restart is a duplicate', async () => {
    const path = dbPath();
    const clock = new SimulatedClock();
    const surface = createMemorySurface({ platform: 'gchat', now: () => clock.now() });
    const first = await startRuntime({ clock, surface, store: openStore(path) });
    const inbound = {
      type: 'inbound',
      space: SPACE,
      messageId: 'spaces/AAAA/messages/m1',
      ref: 'u1',
      eventId: 'i1',
    };
    expect(first.runtime.ingest(inbound)).toMatchObject({ ok: true });
    await first.runtime.sync();
    await first.runtime.stop();

    const second = await startRuntime({ clock, surface, store: openStore(path) });
    expect(second.runtime.ingest(inbound)).toMatchObject({ ok: true, duplicate: true });
    expect(second.runtime.ingest({ ...inbound, eventId: 'i2' })).not.toHaveProperty('duplicate');
    await second.runtime.stop();
  });
});

describe('runtime: ids resumed after a restart', () => {
  const SPACE_B = 'gchat:spaces/BBBB';

  it("a busy space's run record read after the restart does not make another space's retry apply twice", async () => {
    const store = createMemoryStore();
    // The previous process accepted 10,000 inbound events with ids in space B.
    for (let i = 0; i < 10_000; i++) {
      store.appendEvent({ type: 'inbound', space: SPACE_B, messageId: `m${i}`, eventId: `b${i}`, at: i });
    }
    const h = await startRuntime({ store });
    const a1 = { type: 'note', space: SPACE, text: 'outside a turn', eventId: 'a1' };
    expect(h.runtime.ingest(a1)).toMatchObject({ ok: true });
    expect(
      h.runtime.ingest({ type: 'inbound', space: SPACE_B, messageId: 'new', eventId: 'b-new' }),
    ).toMatchObject({
      ok: true,
    });
    expect(h.runtime.ingest(a1)).toMatchObject({ ok: true, duplicate: true });
    // B's recent ids from before the restart are known too.
    const b9999 = { type: 'inbound', space: SPACE_B, messageId: 'm9999', eventId: 'b9999' };
    expect(h.runtime.ingest(b9999)).toMatchObject({ ok: true, duplicate: true });
    expect((await store.events(`space:${SPACE}`)).map((e) => e.eventId)).toEqual(['a1']);
    await h.runtime.stop();
  });

  /** A first runtime that got an inbound anchor with a turnId (kept in the turn's record) and the turn's start. */
  async function anchoredTurn(path: string, clock: SimulatedClock, surface: MemorySurface, end: boolean) {
    const first = await startRuntime({ clock, surface, store: openStore(path) });
    const posted = surface.inbound({ space: SPACE, text: 'user message u1' });
    const inbound = {
      type: 'inbound',
      space: SPACE,
      turnId: 'T1',
      messageId: posted.messageId,
      threadId: posted.threadId,
      ref: 'u1',
      eventId: 'i1',
    };
    expect(first.runtime.ingest(inbound)).toMatchObject({ ok: true });
    first.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1', eventId: 'e-start' });
    if (end) first.send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok', eventId: 'e-end' });
    await first.advance(3000);
    await first.runtime.sync();
    await first.runtime.stop();
    expect((await openStore(path).events('T1')).map((e) => e.eventId)[0]).toBe('i1');
    return inbound;
  }

  it('an inbound with a turnId, its turn live at the restart: the retry is a duplicate', async () => {
    const path = dbPath();
    const clock = new SimulatedClock();
    const surface = createMemorySurface({ platform: 'gchat', now: () => clock.now() });
    const inbound = await anchoredTurn(path, clock, surface, false);
    const second = await startRuntime({ clock, surface, store: openStore(path) });
    expect(second.runtime.ingest(inbound)).toMatchObject({ ok: true, duplicate: true });
    await second.runtime.sync();
    expect((await second.store.events('T1')).filter((e) => e.type === 'inbound')).toHaveLength(1);
    expect(await second.store.anchors(SPACE, 10)).toHaveLength(1);
    await second.runtime.stop();
  });

  it('an inbound with a turnId, its turn ended before the restart: the retry is a duplicate', async () => {
    const path = dbPath();
    const clock = new SimulatedClock();
    const surface = createMemorySurface({ platform: 'gchat', now: () => clock.now() });
    const inbound = await anchoredTurn(path, clock, surface, true);
    const second = await startRuntime({ clock, surface, store: openStore(path) });
    expect(second.runtime.ingest(inbound)).toMatchObject({ ok: true, duplicate: true });
    await second.runtime.sync();
    expect(await second.store.anchors(SPACE, 10)).toHaveLength(1);
    await second.runtime.stop();
  });

  it("the same when the space's record was read first (a turnless inbound came before the retry)", async () => {
    const path = dbPath();
    const clock = new SimulatedClock();
    const surface = createMemorySurface({ platform: 'gchat', now: () => clock.now() });
    const inbound = await anchoredTurn(path, clock, surface, true);
    const second = await startRuntime({ clock, surface, store: openStore(path) });
    second.send({ type: 'inbound', messageId: 'other', eventId: 'i2' });
    expect(second.runtime.ingest(inbound)).toMatchObject({ ok: true, duplicate: true });
    await second.runtime.stop();
  });
});

describe('runtime: looking up the run record of an unknown turn', () => {
  it('happens once per turn in the first 10 minutes after the start, then no more (an unknown turn is new)', async () => {
    const memory = createMemoryStore();
    const asked: string[] = [];
    const events = (turnId: string) => {
      asked.push(turnId);
      return memory.events(turnId);
    };
    const store = { ...memory, events };
    const h = await startRuntime({ store });
    h.send({ type: 'turn_started', turnId: 'T1', eventId: 'a' });
    h.send({ type: 'note', turnId: 'T1', text: 'n', eventId: 'b' });
    h.send({ type: 'turn_started', turnId: 'T2' }); // no eventId: nothing to look up
    expect(asked).toEqual(['T1']);
    h.clock.increment(10 * 60_000 + 1);
    h.send({ type: 'turn_started', turnId: 'T3', eventId: 'c' });
    expect(asked).toEqual(['T1']);
    // Ids of events outside a turn are looked up once per space, whenever.
    h.send({ type: 'inbound', messageId: 'm1', eventId: 'i1' });
    h.send({ type: 'inbound', messageId: 'm2', eventId: 'i2' });
    expect(asked).toEqual(['T1', `space:${SPACE}`]);
    await h.runtime.stop();
  });
});
