/**
 * What only the SQLite store does: data survives close and reopen of the
 * file, snapshots and the run record are committed once per tick (the crash
 * window) in call order, the database runs in WAL mode, and every failure
 * names the database path.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/events/schema.js';
import { createSqliteStore, type SqliteStore, type SqliteStoreOptions } from '../../src/store/sqlite.js';

const SPACE = 'gchat:spaces/AAAA';
const dir = mkdtempSync(join(tmpdir(), 'turnlog-sqlite-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const nextFile = () => join(dir, `store-${++files}.db`);

const opened: { close(): void }[] = [];
afterEach(() => {
  for (const handle of opened.splice(0).reverse()) handle.close();
});
const open = (options: SqliteStoreOptions): SqliteStore => {
  const store = createSqliteStore(options);
  opened.push(store);
  return store;
};
/** A second, plain connection to the file: what another process (or the next one) would read. */
const peek = (path: string) => {
  const db = new Database(path, { readonly: true });
  opened.push(db);
  return db;
};
const liveSnapshots = (db: Database.Database) =>
  (
    db.prepare('SELECT turn_id, snapshot FROM live_turns ORDER BY rowid').all() as {
      turn_id: string;
      snapshot: string;
    }[]
  ).map((row) => [row.turn_id, JSON.parse(row.snapshot)]);
const fileEvents = (db: Database.Database) =>
  (db.prepare('SELECT seq FROM events ORDER BY id').all() as { seq: number }[]).map((row) => row.seq);
const inputEvent = (seq: number) =>
  ({ type: 'input', space: SPACE, turnId: 'T1', text: `line ${seq}`, at: seq, seq }) as RunEvent;
const nextTick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('sqlite store: persistence', () => {
  it('keeps everything across close and reopen of the same file', () => {
    const path = nextFile();
    const first = createSqliteStore({ path });
    first.saveTurn({
      turnId: 'T1',
      space: SPACE,
      snapshot: { value: { debouncing: 'waiting' } },
      updatedAt: 7,
    });
    first.saveTurn({ turnId: 'T2', space: SPACE, snapshot: { value: 'idle' }, updatedAt: 8 });
    first.finishTurn({
      turnId: 'T2',
      space: SPACE,
      state: 'ended',
      outcome: 'ok',
      degraded: false,
      logMessages: [{ messageId: 'm2', final: true }],
      entries: 1,
      deadLetters: 0,
      endedAt: 9,
    });
    first.saveAnchor(SPACE, { messageId: 'm0', threadId: 't0', ref: 'u1' });
    const event = { type: 'input', space: SPACE, turnId: 'T1', text: 'hi', at: 1, seq: 1 } as RunEvent;
    first.appendEvent(event);
    first.deadLetter({ at: 3, source: 'ingest', reason: 'bad json', payload: '{' });
    first.recordPost('T1:0', { messageId: 'm1', threadId: 't0' });
    first.saveSpaceSettings(SPACE, { threadsDisabled: true });
    first.saveStrayLog({
      space: SPACE,
      snapshot: { value: { window: 'open', writer: 'idle' } },
      updatedAt: 10,
    });
    const answerPart = {
      space: SPACE,
      key: 'T1:answer:4',
      part: 1,
      parts: 2,
      turnId: 'T1',
      thread: { rootMessageId: 'm0', threadId: 't0' },
      text: 'the second half',
      savedAt: 11,
    };
    first.saveAnswerParts([answerPart]);
    first.close();

    const second = open({ path });
    expect(second.liveTurns()).toEqual([
      { turnId: 'T1', space: SPACE, snapshot: { value: { debouncing: 'waiting' } }, updatedAt: 7 },
    ]);
    expect(second.turnSummary('T2')?.logMessages).toEqual([{ messageId: 'm2', final: true }]);
    expect(second.anchors(SPACE, 5)).toEqual([{ messageId: 'm0', threadId: 't0', ref: 'u1' }]);
    expect(second.events('T1')).toEqual([event]);
    expect(second.deadLetters()).toEqual([{ at: 3, source: 'ingest', reason: 'bad json', payload: '{' }]);
    expect(second.lookupPost('T1:0')).toEqual({ messageId: 'm1', threadId: 't0' });
    expect(second.spaceSettings()).toEqual({ [SPACE]: { threadsDisabled: true } });
    expect(second.strayLogs()).toEqual([
      { space: SPACE, snapshot: { value: { window: 'open', writer: 'idle' } }, updatedAt: 10 },
    ]);
    expect(second.pendingAnswerParts()).toEqual([answerPart]);
  });

  it('keeps its bounds across reopen: pruning counts the rows already in the file', () => {
    const path = nextFile();
    const first = createSqliteStore({ path, limits: { deadLetters: 3 } });
    for (let at = 1; at <= 3; at++) first.deadLetter({ at, source: 'ingest', reason: 'r', payload: 'p' });
    first.close();
    const second = open({ path, limits: { deadLetters: 3 } });
    second.deadLetter({ at: 4, source: 'ingest', reason: 'r', payload: 'p' });
    expect(second.deadLetters().map((d) => d.at)).toEqual([2, 3, 4]);
  });

  it('runs in WAL mode', () => {
    const path = nextFile();
    open({ path });
    expect(peek(path).pragma('journal_mode', { simple: true })).toBe('wal');
  });
});

describe('sqlite store: snapshots and run record committed once per tick', () => {
  it('defers the saves of a tick and commits the latest snapshot per turn when the tick is over', async () => {
    const path = nextFile();
    const store = open({ path });
    const reader = peek(path);
    for (let n = 1; n <= 50; n++) {
      store.saveTurn({ turnId: 'T1', space: SPACE, snapshot: { n }, updatedAt: n });
      store.saveTurn({ turnId: 'T2', space: SPACE, snapshot: { n: -n }, updatedAt: n });
    }
    // The crash window: nothing of this tick is in the file yet.
    expect(liveSnapshots(reader)).toEqual([]);
    await nextTick();
    expect(liveSnapshots(reader)).toEqual([
      ['T1', { n: 50 }],
      ['T2', { n: -50 }],
    ]);
  });

  it('commits the run record with the snapshots, in order', async () => {
    const path = nextFile();
    const store = open({ path });
    const reader = peek(path);
    for (let seq = 1; seq <= 3; seq++) store.appendEvent(inputEvent(seq));
    store.saveTurn({ turnId: 'T1', space: SPACE, snapshot: { n: 3 }, updatedAt: 3 });
    expect(fileEvents(reader)).toEqual([]);
    await nextTick();
    expect(fileEvents(reader)).toEqual([1, 2, 3]);
    expect(liveSnapshots(reader)).toEqual([['T1', { n: 3 }]]);
  });

  it('commits a stray log with the events of its tick, the latest per space; a forget in the same tick wins (issue 9 · stray log survives a restart)', async () => {
    const path = nextFile();
    const store = open({ path });
    const reader = peek(path);
    const strayRows = () =>
      (
        reader.prepare('SELECT space, snapshot FROM stray_logs ORDER BY space').all() as {
          space: string;
          snapshot: string;
        }[]
      ).map((row) => [row.space, JSON.parse(row.snapshot)]);
    store.appendEvent(inputEvent(1));
    store.saveStrayLog({ space: SPACE, snapshot: { n: 1 }, updatedAt: 1 });
    store.saveStrayLog({ space: SPACE, snapshot: { n: 2 }, updatedAt: 2 });
    store.saveStrayLog({ space: 'slack:C1', snapshot: { n: 3 }, updatedAt: 3 });
    // The crash window: nothing of this tick is in the file yet, neither the event nor the stray log.
    expect(strayRows()).toEqual([]);
    expect(fileEvents(reader)).toEqual([]);
    await nextTick();
    expect(fileEvents(reader)).toEqual([1]);
    expect(strayRows()).toEqual([
      [SPACE, { n: 2 }],
      ['slack:C1', { n: 3 }],
    ]);
    store.saveStrayLog({ space: 'slack:C1', snapshot: { n: 4 }, updatedAt: 4 });
    store.forgetStrayLog('slack:C1');
    await nextTick();
    expect(strayRows()).toEqual([[SPACE, { n: 2 }]]);
  });

  it("commits an answer's parts with the event that carried it; a part's forget in a later tick deletes its row (issue 9 · answers are never lost)", async () => {
    const path = nextFile();
    const store = open({ path });
    const reader = peek(path);
    const partRows = () =>
      reader.prepare('SELECT answer_key, part, text FROM answer_parts ORDER BY rowid').all() as {
        answer_key: string;
        part: number;
        text: string;
      }[];
    const part = (n: number) => ({
      space: SPACE,
      key: 'T1:answer:1',
      part: n,
      parts: 3,
      text: `p${n}`,
      savedAt: 1,
    });
    store.appendEvent(inputEvent(1));
    store.saveAnswerParts([part(0), part(1), part(2)]);
    // The crash window: neither the event nor the parts are in the file yet.
    expect(partRows()).toEqual([]);
    expect(fileEvents(reader)).toEqual([]);
    await nextTick();
    expect(fileEvents(reader)).toEqual([1]);
    expect(partRows().map((r) => r.part)).toEqual([0, 1, 2]);
    store.forgetAnswerPart(SPACE, 'T1:answer:1', 0);
    expect(partRows().map((r) => r.part)).toEqual([0, 1, 2]);
    await nextTick();
    expect(partRows()).toEqual([
      { answer_key: 'T1:answer:1', part: 1, text: 'p1' },
      { answer_key: 'T1:answer:1', part: 2, text: 'p2' },
    ]);
    // Saved and forgotten in one tick: nothing is written.
    store.saveAnswerParts([{ ...part(0), key: 'T1:answer:2' }]);
    store.forgetAnswerPart(SPACE, 'T1:answer:2', 0);
    await nextTick();
    expect(partRows().map((r) => r.answer_key)).toEqual(['T1:answer:1', 'T1:answer:1']);
  });

  it('a read commits what is pending first, so it sees every write', () => {
    const path = nextFile();
    const store = open({ path });
    const reader = peek(path);
    store.saveTurn({ turnId: 'T1', space: SPACE, snapshot: { n: 1 }, updatedAt: 1 });
    store.appendEvent(inputEvent(1));
    expect(store.loadTurn('T1')?.snapshot).toEqual({ n: 1 });
    expect(liveSnapshots(reader)).toEqual([['T1', { n: 1 }]]);
    store.appendEvent(inputEvent(2));
    expect(store.events('T1').map((e) => e.seq)).toEqual([1, 2]);
    expect(fileEvents(reader)).toEqual([1, 2]);
  });

  it('a write-through call commits the pending writes before its own (the file holds a prefix of the calls)', () => {
    const path = nextFile();
    const store = open({ path });
    const reader = peek(path);
    store.appendEvent(inputEvent(1));
    store.saveTurn({ turnId: 'T1', space: SPACE, snapshot: { posting: true }, updatedAt: 1 });
    store.recordPost('T1:0', { messageId: 'm1' });
    expect(fileEvents(reader)).toEqual([1]);
    expect(liveSnapshots(reader)).toEqual([['T1', { posting: true }]]);
    expect(reader.prepare('SELECT message_id FROM posts').all()).toEqual([{ message_id: 'm1' }]);
  });

  it('flush() and close() commit the pending writes at once', () => {
    const path = nextFile();
    const store = createSqliteStore({ path });
    const reader = peek(path);
    store.saveTurn({ turnId: 'T1', space: SPACE, snapshot: { n: 1 }, updatedAt: 1 });
    store.flush();
    expect(liveSnapshots(reader)).toEqual([['T1', { n: 1 }]]);
    store.saveTurn({ turnId: 'T1', space: SPACE, snapshot: { n: 2 }, updatedAt: 2 });
    store.appendEvent(inputEvent(1));
    store.close();
    expect(liveSnapshots(reader)).toEqual([['T1', { n: 2 }]]);
    expect(fileEvents(reader)).toEqual([1]);
  });

  it('a turn finished in the same tick as its last save is not written back', async () => {
    const path = nextFile();
    const store = open({ path });
    store.saveTurn({ turnId: 'T1', space: SPACE, snapshot: { n: 1 }, updatedAt: 1 });
    store.finishTurn({
      turnId: 'T1',
      space: SPACE,
      state: 'ended',
      outcome: 'ok',
      degraded: false,
      logMessages: [],
      entries: 0,
      deadLetters: 0,
      endedAt: 2,
    });
    await nextTick();
    expect(liveSnapshots(peek(path))).toEqual([]);
    expect(store.liveTurns()).toEqual([]);
  });

  it('with writes "immediate", each save and event is in the file when the call returns', () => {
    const path = nextFile();
    const store = open({ path, writes: 'immediate' });
    const reader = peek(path);
    store.saveTurn({ turnId: 'T1', space: SPACE, snapshot: { n: 1 }, updatedAt: 1 });
    expect(liveSnapshots(reader)).toEqual([['T1', { n: 1 }]]);
    store.appendEvent(inputEvent(1));
    expect(fileEvents(reader)).toEqual([1]);
  });

  it('a snapshot that is not JSON is reported naming its turn, and the others of the tick are written', async () => {
    const path = nextFile();
    const errors: Error[] = [];
    const store = open({ path, onWriteError: (error) => errors.push(error) });
    store.saveTurn({ turnId: 'bad', space: SPACE, snapshot: { n: 1n }, updatedAt: 1 });
    store.saveTurn({ turnId: 'good', space: SPACE, snapshot: { n: 1 }, updatedAt: 1 });
    await nextTick();
    expect(errors.map((e) => e.message)).toEqual([
      expect.stringMatching(new RegExp(`^sqlite store "${path}": the snapshot of turn bad is not JSON`)),
    ]);
    expect(liveSnapshots(peek(path))).toEqual([['good', { n: 1 }]]);
  });

  it('written through, a snapshot that is not JSON throws naming the path and the turn', () => {
    const path = nextFile();
    const store = open({ path, writes: 'immediate' });
    expect(() => store.saveTurn({ turnId: 'bad', space: SPACE, snapshot: { n: 1n }, updatedAt: 1 })).toThrow(
      `sqlite store "${path}": saveTurn failed: the snapshot of turn bad is not JSON`,
    );
  });

  it('a background write that fails is reported and retried with the next one', async () => {
    const path = nextFile();
    const errors: string[] = [];
    const store = open({ path, busyTimeoutMs: 0, onWriteError: (error) => errors.push(error.message) });
    const other = new Database(path);
    opened.push(other);
    other.exec('BEGIN IMMEDIATE'); // another connection holds the write lock
    store.saveTurn({ turnId: 'T1', space: SPACE, snapshot: { n: 1 }, updatedAt: 1 });
    await nextTick();
    expect(errors).toEqual([
      expect.stringContaining(
        `sqlite store "${path}": writing 1 turn snapshot(s) and 0 event(s) failed: database is locked`,
      ),
    ]);
    other.exec('COMMIT');
    store.saveTurn({ turnId: 'T2', space: SPACE, snapshot: { n: 2 }, updatedAt: 2 });
    await nextTick();
    expect(liveSnapshots(peek(path))).toEqual([
      ['T1', { n: 1 }],
      ['T2', { n: 2 }],
    ]);
  });
});

describe('sqlite store: errors name the database', () => {
  it('a file in a missing directory', () => {
    const path = join(dir, 'missing', 'store.db');
    expect(() => createSqliteStore({ path })).toThrow(`sqlite store "${path}": cannot open the database`);
  });

  it('a file that is not a database', () => {
    const path = nextFile();
    writeFileSync(path, 'this is not a database, just text that is long enough to have a header……');
    expect(() => createSqliteStore({ path })).toThrow(
      new RegExp(`^sqlite store "${path}": cannot open the database: file is not a database`),
    );
  });

  it('a write while another connection holds the lock past the busy timeout', () => {
    const path = nextFile();
    const store = open({ path, busyTimeoutMs: 0 });
    const other = new Database(path);
    opened.push(other);
    other.exec('BEGIN IMMEDIATE');
    expect(() => store.recordPost('c1', { messageId: 'm1' })).toThrow(
      `sqlite store "${path}": recordPost failed: database is locked`,
    );
    other.exec('ROLLBACK');
  });

  it('a call after close()', () => {
    const path = nextFile();
    const store = createSqliteStore({ path });
    store.close();
    expect(() => store.liveTurns()).toThrow(`sqlite store "${path}": liveTurns after close()`);
    expect(() => store.close()).not.toThrow();
  });

  it('bad options and arguments', () => {
    expect(() => createSqliteStore({ path: '' })).toThrow('path must be a database file path or ":memory:"');
    expect(() => createSqliteStore({ path: ':memory:', limits: { posts: 0 } })).toThrow(
      'limits.posts must be a positive integer, got 0',
    );
    const store = open({ path: ':memory:' });
    expect(() => store.anchors(SPACE, -1)).toThrow(
      'sqlite store ":memory:": anchors failed: anchors: limit must be a non-negative integer, got -1',
    );
    expect(() => store.deadLetters(1.5)).toThrow('limit must be a non-negative integer, got 1.5');
  });
});
