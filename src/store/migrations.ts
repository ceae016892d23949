/**
 * Versioned schema of the SQLite store. The version lives in the database
 * header (`PRAGMA user_version`); opening a database runs the migrations it
 * has not seen yet, in order, in one transaction, so a failed migration leaves
 * the database at the version it had. A database written by a newer turnlog
 * is refused rather than guessed at.
 */
import type { Database } from 'better-sqlite3';

export interface Migration {
  /** 1, 2, 3…: the `user_version` the database has once this migration ran. */
  version: number;
  description: string;
  sql: string;
}

export const SQLITE_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'live turn snapshots, finished turn summaries, anchors, run record, dead letters, post refs',
    sql: `
      -- One row per live turn, overwritten on every transition; the rowid keeps first-save order.
      CREATE TABLE live_turns (
        turn_id    TEXT PRIMARY KEY,
        space      TEXT NOT NULL,
        snapshot   TEXT NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE TABLE turn_summaries (
        turn_id      TEXT PRIMARY KEY,
        space        TEXT NOT NULL,
        state        TEXT NOT NULL,
        outcome      TEXT,
        degraded     INTEGER NOT NULL,
        log_messages TEXT NOT NULL,
        entries      INTEGER NOT NULL,
        dead_letters INTEGER NOT NULL,
        ended_at     INTEGER NOT NULL
      );
      CREATE TABLE anchors (
        id         INTEGER PRIMARY KEY,
        space      TEXT NOT NULL,
        message_id TEXT NOT NULL,
        thread_id  TEXT,
        ref        TEXT
      );
      CREATE INDEX anchors_by_space ON anchors (space, id);
      -- The run record. turn_id is the event's turnId, or 'space:<space>' for events outside a turn.
      CREATE TABLE events (
        id      INTEGER PRIMARY KEY,
        turn_id TEXT NOT NULL,
        seq     INTEGER,
        type    TEXT NOT NULL,
        space   TEXT NOT NULL,
        at      INTEGER,
        event   TEXT NOT NULL
      );
      CREATE INDEX events_by_turn ON events (turn_id, seq);
      -- How many events each run record holds, and when it last grew (for pruning the oldest).
      CREATE TABLE event_streams (
        turn_id    TEXT PRIMARY KEY,
        events     INTEGER NOT NULL,
        last_event INTEGER NOT NULL
      );
      CREATE INDEX event_streams_by_age ON event_streams (last_event);
      CREATE TABLE dead_letters (
        id      INTEGER PRIMARY KEY,
        at      INTEGER NOT NULL,
        source  TEXT NOT NULL,
        reason  TEXT NOT NULL,
        payload TEXT NOT NULL
      );
      CREATE TABLE posts (
        id         INTEGER PRIMARY KEY,
        client_id  TEXT NOT NULL UNIQUE,
        message_id TEXT NOT NULL,
        thread_id  TEXT
      );
    `,
  },
  {
    version: 2,
    description: 'space settings changed at run time',
    sql: `
      -- PUT /v1/spaces/:space: the settings as JSON ({threadsDisabled?, dm?}), one row per space.
      CREATE TABLE space_settings (
        space      TEXT PRIMARY KEY,
        settings   TEXT NOT NULL
      );
    `,
  },
  {
    version: 3,
    description: 'the actions outbox and its delivery cursors',
    sql: `
      -- What people did, for the host (GET /v1/actions, the webhook). AUTOINCREMENT: a pruned seq is never reused.
      CREATE TABLE actions (
        seq     INTEGER PRIMARY KEY AUTOINCREMENT,
        id      TEXT NOT NULL UNIQUE,
        kept_at INTEGER NOT NULL,
        action  TEXT NOT NULL
      );
      CREATE INDEX actions_by_age ON actions (kept_at);
      -- How far each consumer (the webhook) has delivered.
      CREATE TABLE action_cursors (
        consumer TEXT PRIMARY KEY,
        cursor   TEXT NOT NULL
      );
    `,
  },
  {
    version: 4,
    description: 'the card registry: messages with buttons and the click that won each',
    sql: `
      -- One row per message turnlog posted with buttons; record is the CardRecord as JSON.
      -- claim (the first click, JSON) is set once: UPDATE … WHERE claim IS NULL is the atomic first-wins.
      CREATE TABLE cards (
        id         INTEGER PRIMARY KEY,
        space      TEXT NOT NULL,
        message_id TEXT NOT NULL,
        record     TEXT NOT NULL,
        claim      TEXT,
        UNIQUE (space, message_id)
      );
    `,
  },
  {
    version: 5,
    description: 'stray logs: the one edited message per space of top-level notes and warnings',
    sql: `
      -- One row per space whose stray log is live (a message to keep editing, lines to show);
      -- snapshot is the stray log actor's persisted snapshot as JSON. Deleted once the log is quiet.
      CREATE TABLE stray_logs (
        space      TEXT PRIMARY KEY,
        snapshot   TEXT NOT NULL,
        updated_at INTEGER NOT NULL
      );
    `,
  },
  {
    version: 6,
    description: 'answer parts not delivered yet',
    sql: `
      -- One row per part of an answer the platform has not accepted yet, saved with the event that
      -- carried it and deleted once the part is accepted (or refused for good). answer_key is the
      -- answer's client id (part N posts as <answer_key>-N); text is the part as cut from the redacted
      -- answer; thread is the ThreadAnchor as JSON, NULL for top-level. rowid order is the order saved.
      CREATE TABLE answer_parts (
        space      TEXT NOT NULL,
        answer_key TEXT NOT NULL,
        part       INTEGER NOT NULL,
        parts      INTEGER NOT NULL,
        turn_id    TEXT,
        thread     TEXT,
        text       TEXT NOT NULL,
        saved_at   INTEGER NOT NULL,
        UNIQUE (space, answer_key, part)
      );
    `,
  },
  {
    version: 7,
    description: "the store's identity (in actions cursors) and the cards of a turn",
    sql: `
      -- store_id is made once, with the store: a cursor carries it, so a cursor from another (replaced)
      -- store is refused instead of waited on. The index finds a turn's cards when the turn ends.
      CREATE TABLE store_meta (
        key   TEXT PRIMARY KEY,
        value TEXT NOT NULL
      );
      INSERT INTO store_meta (key, value) VALUES ('store_id', lower(hex(randomblob(6))));
      CREATE INDEX cards_by_turn ON cards (json_extract(record, '$.turnId'));
    `,
  },
  {
    version: 8,
    description: 'run page tokens (their sha256 only)',
    sql: `
      -- The capability tokens of the run page: only their sha256 (hex) is kept, never the token.
      -- A turn may hold several (each process that links it issues one); any opens its page.
      CREATE TABLE run_tokens (
        turn_id    TEXT NOT NULL,
        token_hash TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (turn_id, token_hash)
      );
    `,
  },
];

/** How errors name the database, e.g. `sqlite store "/var/lib/turnlog.db"`. */
export const storeLabel = (path: string): string => `sqlite store "${path}"`;

export interface MigrationResult {
  from: number;
  to: number;
}

export function schemaVersion(db: Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}

/** Refuses a database from a newer turnlog before anything touches it. */
export function assertKnownVersion(db: Database, path: string, migrations: readonly Migration[]): void {
  const current = schemaVersion(db);
  const latest = latestVersion(migrations);
  if (current > latest) {
    throw new Error(
      `${storeLabel(path)}: the database is at schema version ${current}, newer than version ${latest} ` +
        'that this turnlog knows; run a newer turnlog or point store.path at another file',
    );
  }
}

/**
 * Brings the database to the latest version. The transaction is IMMEDIATE so
 * two processes opening the same new file do not both migrate it.
 */
export function migrate(
  db: Database,
  path: string,
  migrations: readonly Migration[] = SQLITE_MIGRATIONS,
): MigrationResult {
  assertOrdered(migrations);
  const run = db.transaction((): MigrationResult => {
    assertKnownVersion(db, path, migrations);
    const from = schemaVersion(db);
    for (const migration of migrations) {
      if (migration.version <= from) continue;
      try {
        db.exec(migration.sql);
      } catch (error) {
        throw new Error(
          `${storeLabel(path)}: migration ${migration.version} (${migration.description}) failed, ` +
            `the database stays at version ${from}: ${(error as Error).message}`,
          { cause: error },
        );
      }
      db.pragma(`user_version = ${migration.version}`);
    }
    return { from, to: schemaVersion(db) };
  });
  return run.immediate();
}

function latestVersion(migrations: readonly Migration[]): number {
  return migrations.at(-1)?.version ?? 0;
}

/** A programming error, caught before any database is touched. */
function assertOrdered(migrations: readonly Migration[]): void {
  migrations.forEach((migration, index) => {
    if (migration.version !== index + 1) {
      throw new Error(
        `sqlite store migrations must be numbered 1, 2, 3… in order; position ${index + 1} has version ${migration.version}`,
      );
    }
  });
}
