/**
 * Opening the SQLite file (WAL, `synchronous=NORMAL`, migrations applied,
 * a newer schema refused) and the store's prepared statements.
 */
import Database from 'better-sqlite3';
import { assertKnownVersion, migrate, SQLITE_MIGRATIONS, storeLabel } from './migrations.js';

export function openDatabase(path: string, busyTimeoutMs: number): Database.Database {
  let db: Database.Database | undefined;
  try {
    db = new Database(path, { timeout: busyTimeoutMs });
    // Refuse a newer schema before the journal mode (persistent in the file) is changed.
    assertKnownVersion(db, path, SQLITE_MIGRATIONS);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    migrate(db, path, SQLITE_MIGRATIONS);
    return db;
  } catch (error) {
    db?.close();
    const message = (error as Error).message;
    // Errors of our own already name the path.
    if (message.startsWith(`${storeLabel(path)}:`)) throw error;
    throw new Error(`${storeLabel(path)}: cannot open the database: ${message}`, { cause: error });
  }
}

/** What the store asks of a prepared statement, under a name the declaration output can write (the library's is not exported). */
export interface Statement {
  run(...params: unknown[]): Database.RunResult;
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
}

/** The store's statements, prepared once per connection. */
export function prepareStatements(db: Database.Database) {
  const prepare = (sql: string): Statement => db.prepare(sql);
  const oldestFirst = (table: string) =>
    prepare(`DELETE FROM ${table} WHERE id IN (SELECT id FROM ${table} ORDER BY id LIMIT ?)`);
  return {
    upsertTurn: prepare(
      `INSERT INTO live_turns (turn_id, space, snapshot, updated_at)
       VALUES (@turnId, @space, @snapshot, @updatedAt)
       ON CONFLICT (turn_id) DO UPDATE SET
         space = excluded.space, snapshot = excluded.snapshot, updated_at = excluded.updated_at`,
    ),
    selectTurn: prepare('SELECT * FROM live_turns WHERE turn_id = ?'),
    selectLiveTurns: prepare('SELECT * FROM live_turns ORDER BY rowid'),
    deleteTurn: prepare('DELETE FROM live_turns WHERE turn_id = ?'),
    upsertStrayLog: prepare(
      `INSERT INTO stray_logs (space, snapshot, updated_at) VALUES (@space, @snapshot, @updatedAt)
       ON CONFLICT (space) DO UPDATE SET snapshot = excluded.snapshot, updated_at = excluded.updated_at`,
    ),
    deleteStrayLog: prepare('DELETE FROM stray_logs WHERE space = ?'),
    selectStrayLogs: prepare('SELECT space, snapshot, updated_at FROM stray_logs ORDER BY rowid'),
    upsertAnswerPart: prepare(
      `INSERT INTO answer_parts (space, answer_key, part, parts, turn_id, thread, text, saved_at)
       VALUES (@space, @key, @part, @parts, @turnId, @thread, @text, @savedAt)
       ON CONFLICT (space, answer_key, part) DO UPDATE SET
         parts = excluded.parts, turn_id = excluded.turn_id, thread = excluded.thread,
         text = excluded.text, saved_at = excluded.saved_at`,
    ),
    deleteAnswerPart: prepare('DELETE FROM answer_parts WHERE space = ? AND answer_key = ? AND part = ?'),
    selectAnswerParts: prepare('SELECT * FROM answer_parts ORDER BY rowid'),
    upsertSummary: prepare(
      `INSERT OR REPLACE INTO turn_summaries
         (turn_id, space, state, outcome, degraded, log_messages, entries, dead_letters, ended_at)
       VALUES (@turnId, @space, @state, @outcome, @degraded, @logMessages, @entries, @deadLetters, @endedAt)`,
    ),
    selectSummary: prepare('SELECT * FROM turn_summaries WHERE turn_id = ?'),
    insertAnchor: prepare('INSERT INTO anchors (space, message_id, thread_id, ref) VALUES (?, ?, ?, ?)'),
    pruneAnchors: prepare(
      `DELETE FROM anchors WHERE space = ? AND id < (
         SELECT min(id) FROM (SELECT id FROM anchors WHERE space = ? ORDER BY id DESC LIMIT ?))`,
    ),
    selectAnchors: prepare(
      'SELECT message_id, thread_id, ref FROM anchors WHERE space = ? ORDER BY id DESC LIMIT ?',
    ),
    insertEvent: prepare(
      'INSERT INTO events (turn_id, seq, type, space, at, event) VALUES (?, ?, ?, ?, ?, ?)',
    ),
    selectEvents: prepare('SELECT event FROM events WHERE turn_id = ? ORDER BY seq, id'),
    deleteOldestEvents: prepare(
      `DELETE FROM events WHERE id IN (SELECT id FROM events WHERE turn_id = ? ORDER BY seq, id LIMIT ?)`,
    ),
    deleteStreamEvents: prepare('DELETE FROM events WHERE turn_id = ?'),
    growStream: prepare(
      'UPDATE event_streams SET events = events + 1, last_event = ? WHERE turn_id = ? RETURNING events',
    ),
    insertStream: prepare('INSERT INTO event_streams (turn_id, events, last_event) VALUES (?, 1, ?)'),
    setStreamSize: prepare('UPDATE event_streams SET events = ? WHERE turn_id = ?'),
    countStreams: prepare('SELECT count(*) AS n FROM event_streams'),
    // A live turn's record is never pruned: its seq and eventIds resume from it after a restart.
    oldestStreams: prepare(
      'SELECT turn_id FROM event_streams WHERE turn_id NOT IN (SELECT turn_id FROM live_turns) ORDER BY last_event LIMIT ?',
    ),
    deleteStream: prepare('DELETE FROM event_streams WHERE turn_id = ?'),
    insertDeadLetter: prepare('INSERT INTO dead_letters (at, source, reason, payload) VALUES (?, ?, ?, ?)'),
    selectDeadLetters: prepare(
      'SELECT at, source, reason, payload FROM dead_letters ORDER BY id DESC LIMIT ?',
    ),
    replacePost: prepare('INSERT OR REPLACE INTO posts (client_id, message_id, thread_id) VALUES (?, ?, ?)'),
    selectPost: prepare('SELECT message_id, thread_id FROM posts WHERE client_id = ?'),
    upsertSpaceSettings: prepare(
      'INSERT INTO space_settings (space, settings) VALUES (?, ?) ON CONFLICT (space) DO UPDATE SET settings = excluded.settings',
    ),
    deleteSpaceSettings: prepare('DELETE FROM space_settings WHERE space = ?'),
    selectSpaceSettings: prepare('SELECT space, settings FROM space_settings ORDER BY space'),
    upsertCard: prepare(
      'INSERT INTO cards (space, message_id, record) VALUES (?, ?, ?) ON CONFLICT (space, message_id) DO UPDATE SET record = excluded.record',
    ),
    selectCard: prepare('SELECT record, claim FROM cards WHERE space = ? AND message_id = ?'),
    claimCard: prepare('UPDATE cards SET claim = ? WHERE space = ? AND message_id = ? AND claim IS NULL'),
    count: {
      cards: prepare('SELECT count(*) AS n FROM cards'),
      turn_summaries: prepare('SELECT count(*) AS n FROM turn_summaries'),
      dead_letters: prepare('SELECT count(*) AS n FROM dead_letters'),
      posts: prepare('SELECT count(*) AS n FROM posts'),
    },
    deleteOldest: {
      cards: oldestFirst('cards'),
      turn_summaries: prepare(
        'DELETE FROM turn_summaries WHERE rowid IN (SELECT rowid FROM turn_summaries ORDER BY rowid LIMIT ?)',
      ),
      dead_letters: oldestFirst('dead_letters'),
      posts: oldestFirst('posts'),
    },
  };
}
