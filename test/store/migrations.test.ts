/**
 * The schema migration runner: a new file gets the whole schema, a database
 * at an older version is brought forward with its data, a newer one is
 * refused untouched, and a failing migration leaves the version as it was.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type Migration, migrate, SQLITE_MIGRATIONS, schemaVersion } from '../../src/store/migrations.js';
import { createSqliteStore } from '../../src/store/sqlite.js';

const dir = mkdtempSync(join(tmpdir(), 'turnlog-migrations-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const nextFile = () => join(dir, `db-${++files}.db`);

const handles: { close(): void }[] = [];
afterEach(() => {
  for (const handle of handles.splice(0)) handle.close();
});
const connect = (path: string) => {
  const db = new Database(path);
  handles.push(db);
  return db;
};
const tables = (db: Database.Database) =>
  (
    db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as {
      name: string;
    }[]
  ).map((row) => row.name);

const LATEST = SQLITE_MIGRATIONS.at(-1)?.version ?? 0;

const v1: Migration = {
  version: 1,
  description: 'notes',
  sql: 'CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL);',
};
const v2: Migration = {
  version: 2,
  description: 'notes get an author',
  sql: "ALTER TABLE notes ADD COLUMN author TEXT NOT NULL DEFAULT 'unknown';",
};

describe('schema migrations', () => {
  it('a new database file gets every migration and the latest version', () => {
    const path = nextFile();
    handles.push(createSqliteStore({ path }));
    const db = connect(path);
    expect(schemaVersion(db)).toBe(LATEST);
    expect(tables(db)).toEqual(
      expect.arrayContaining(['live_turns', 'turn_summaries', 'anchors', 'events', 'dead_letters', 'posts']),
    );
  });

  it('reopening a database at the latest version runs nothing', () => {
    const path = nextFile();
    createSqliteStore({ path }).close();
    expect(migrate(connect(path), path)).toEqual({ from: LATEST, to: LATEST });
  });

  it('a database at an older version is migrated in order and keeps its data', () => {
    const path = nextFile();
    const db = connect(path);
    expect(migrate(db, path, [v1])).toEqual({ from: 0, to: 1 });
    db.prepare('INSERT INTO notes (text) VALUES (?)').run('kept');
    expect(migrate(db, path, [v1, v2])).toEqual({ from: 1, to: 2 });
    expect(schemaVersion(db)).toBe(2);
    expect(db.prepare('SELECT text, author FROM notes').all()).toEqual([{ text: 'kept', author: 'unknown' }]);
  });

  it('refuses a database from a newer turnlog, naming both versions and the path, and leaves it untouched', () => {
    const path = nextFile();
    const db = connect(path);
    db.pragma(`user_version = ${LATEST + 5}`);
    expect(() => createSqliteStore({ path })).toThrow(
      `sqlite store "${path}": the database is at schema version ${LATEST + 5}, newer than version ${LATEST} ` +
        'that this turnlog knows',
    );
    expect(db.pragma('journal_mode', { simple: true })).toBe('delete');
    expect(tables(db)).toEqual([]);
    expect(() => migrate(db, path, [v1])).toThrow(`schema version ${LATEST + 5}, newer than version 1`);
  });

  it('a failing migration rolls back every migration of the run and names the path and the version', () => {
    const path = nextFile();
    const db = connect(path);
    const broken: Migration = {
      version: 2,
      description: 'broken',
      sql: 'ALTER TABLE missing ADD COLUMN x TEXT;',
    };
    expect(() => migrate(db, path, [v1, broken])).toThrow(
      `sqlite store "${path}": migration 2 (broken) failed, the database stays at version 0: no such table: missing`,
    );
    expect(schemaVersion(db)).toBe(0);
    expect(tables(db)).toEqual([]);
  });

  it('a version 5 database (before pending answer parts) gets migration 6 and keeps its stray logs (issue 9 · answers are never lost)', () => {
    const path = nextFile();
    const db = connect(path);
    expect(migrate(db, path, SQLITE_MIGRATIONS.slice(0, 5))).toEqual({ from: 0, to: 5 });
    db.prepare('INSERT INTO stray_logs (space, snapshot, updated_at) VALUES (?, ?, ?)').run(
      'gchat:spaces/A',
      '{}',
      1,
    );
    db.close();
    const store = createSqliteStore({ path });
    handles.push(store);
    expect(store.strayLogs()).toEqual([{ space: 'gchat:spaces/A', snapshot: {}, updatedAt: 1 }]);
    expect(store.pendingAnswerParts()).toEqual([]);
    expect(schemaVersion(connect(path))).toBe(LATEST);
  });

  it('a version 7 database gets migration 8 (issue 25 · run page tokens, their sha256 only) and keeps its record', () => {
    const path = nextFile();
    const db = connect(path);
    expect(migrate(db, path, SQLITE_MIGRATIONS.slice(0, 7))).toEqual({ from: 0, to: 7 });
    db.prepare('INSERT INTO events (turn_id, seq, type, space, at, event) VALUES (?, ?, ?, ?, ?, ?)').run(
      'T1',
      1,
      'note',
      'gchat:spaces/A',
      1,
      JSON.stringify({ type: 'note', space: 'gchat:spaces/A', turnId: 'T1', seq: 1, text: 'kept' }),
    );
    db.close();
    const store = createSqliteStore({ path });
    handles.push(store);
    expect(store.runTokenHashes?.('T1')).toEqual([]);
    store.saveRunToken?.('T1', 'ab'.repeat(32), 5);
    expect(store.runTokenHashes?.('T1')).toEqual(['ab'.repeat(32)]);
    expect(store.events('T1')).toHaveLength(1);
    expect(schemaVersion(connect(path))).toBe(8);
  });

  it('refuses a migration list that is not numbered 1, 2, 3…', () => {
    const path = nextFile();
    const db = connect(path);
    expect(() => migrate(db, path, [v2])).toThrow('position 1 has version 2');
    expect(() => migrate(db, path, [v1, v1])).toThrow('position 2 has version 1');
    expect(schemaVersion(db)).toBe(0);
  });
});
