/**
 * Versioned schema of the Postgres store (issue 23.1), like the SQLite one
 * (../migrations.ts): `schema_migrations` lists the versions applied;
 * opening the store runs the ones it has not seen yet, in order, in one
 * transaction under an advisory lock, so processes starting together migrate
 * once and a failed migration leaves the schema at the version it had. A
 * schema written by a newer turnlog is refused rather than guessed at.
 *
 * The tables mirror SQLite's. `ord` columns (one shared sequence) keep the
 * insertion order SQLite's rowid keeps; JSON values are TEXT, as written.
 */
import type { Pool } from 'pg';

export interface PostgresMigration {
  /** 1, 2, 3…: the newest row of `schema_migrations` once this ran. */
  version: number;
  description: string;
  sql: string;
}

export const POSTGRES_MIGRATIONS: readonly PostgresMigration[] = [
  {
    version: 1,
    description:
      'the store: live turns, summaries, anchors, run record, dead letters, posts, settings, outbox, cards, stray logs, answer parts, run tokens',
    sql: `
      -- Insertion order, where SQLite keeps it in the rowid.
      CREATE SEQUENCE turnlog_ord;
      CREATE TABLE store_meta (
        key   text PRIMARY KEY,
        value text NOT NULL
      );
      -- Made once, with the store: actions cursors carry it, so a cursor of a replaced store is refused.
      INSERT INTO store_meta (key, value)
        VALUES ('store_id', substr(replace(gen_random_uuid()::text, '-', ''), 1, 12));
      -- One row per live turn, overwritten on every transition; ord keeps first-save order.
      CREATE TABLE live_turns (
        turn_id    text PRIMARY KEY,
        space      text NOT NULL,
        snapshot   text NOT NULL,
        updated_at bigint NOT NULL,
        ord        bigint NOT NULL DEFAULT nextval('turnlog_ord')
      );
      CREATE INDEX live_turns_by_ord ON live_turns (ord);
      CREATE TABLE turn_summaries (
        turn_id      text PRIMARY KEY,
        space        text NOT NULL,
        state        text NOT NULL,
        outcome      text,
        degraded     boolean NOT NULL,
        log_messages text NOT NULL,
        entries      integer NOT NULL,
        dead_letters integer NOT NULL,
        ended_at     bigint NOT NULL,
        ord          bigint NOT NULL DEFAULT nextval('turnlog_ord')
      );
      CREATE INDEX turn_summaries_by_ord ON turn_summaries (ord);
      CREATE INDEX turn_summaries_by_end ON turn_summaries (ended_at);
      CREATE TABLE anchors (
        id         bigserial PRIMARY KEY,
        space      text NOT NULL,
        message_id text NOT NULL,
        thread_id  text,
        ref        text
      );
      CREATE INDEX anchors_by_space ON anchors (space, id);
      -- The run record. turn_id is the event's turnId, or 'space:<space>' for events outside a turn.
      CREATE TABLE events (
        id      bigserial PRIMARY KEY,
        turn_id text NOT NULL,
        seq     bigint,
        type    text NOT NULL,
        space   text NOT NULL,
        at      bigint,
        event   text NOT NULL
      );
      CREATE INDEX events_by_turn ON events (turn_id, seq, id);
      -- How many events each run record holds, and its newest event (for pruning the oldest records).
      CREATE TABLE event_streams (
        turn_id    text PRIMARY KEY,
        events     integer NOT NULL,
        last_event bigint NOT NULL
      );
      CREATE INDEX event_streams_by_age ON event_streams (last_event);
      CREATE TABLE dead_letters (
        id      bigserial PRIMARY KEY,
        at      bigint NOT NULL,
        source  text NOT NULL,
        reason  text NOT NULL,
        payload text NOT NULL
      );
      CREATE TABLE posts (
        client_id  text PRIMARY KEY,
        message_id text NOT NULL,
        thread_id  text,
        ord        bigint NOT NULL DEFAULT nextval('turnlog_ord')
      );
      CREATE INDEX posts_by_ord ON posts (ord);
      CREATE TABLE space_settings (
        space    text PRIMARY KEY,
        settings text NOT NULL
      );
      -- The actions outbox: a seq is never reused, also once every older row is pruned.
      CREATE SEQUENCE action_seq;
      CREATE TABLE actions (
        seq     bigint PRIMARY KEY,
        id      text NOT NULL UNIQUE,
        kept_at bigint NOT NULL,
        action  text NOT NULL
      );
      CREATE INDEX actions_by_age ON actions (kept_at);
      CREATE TABLE action_cursors (
        consumer text PRIMARY KEY,
        cursor   text NOT NULL
      );
      -- Messages with buttons; claim (the first click) is set once: UPDATE … WHERE claim IS NULL.
      CREATE TABLE cards (
        space      text NOT NULL,
        message_id text NOT NULL,
        turn_id    text NOT NULL,
        record     text NOT NULL,
        claim      text,
        ord        bigint NOT NULL DEFAULT nextval('turnlog_ord'),
        PRIMARY KEY (space, message_id)
      );
      CREATE INDEX cards_by_ord ON cards (ord);
      CREATE INDEX cards_by_turn ON cards (turn_id) WHERE claim IS NULL;
      CREATE TABLE stray_logs (
        space      text PRIMARY KEY,
        snapshot   text NOT NULL,
        updated_at bigint NOT NULL,
        ord        bigint NOT NULL DEFAULT nextval('turnlog_ord')
      );
      CREATE TABLE answer_parts (
        space      text NOT NULL,
        answer_key text NOT NULL,
        part       integer NOT NULL,
        parts      integer NOT NULL,
        turn_id    text,
        thread     text,
        text       text NOT NULL,
        saved_at   bigint NOT NULL,
        ord        bigint NOT NULL DEFAULT nextval('turnlog_ord'),
        PRIMARY KEY (space, answer_key, part)
      );
      -- The run page's tokens: only their sha256 (hex).
      CREATE TABLE run_tokens (
        turn_id    text NOT NULL,
        token_hash text NOT NULL,
        created_at bigint NOT NULL,
        PRIMARY KEY (turn_id, token_hash)
      );
    `,
  },
];

export interface PostgresMigrationResult {
  from: number;
  to: number;
}

/** Brings `schema` (created when missing) to the latest version; `label` names the store in errors. */
export async function migratePostgres(
  pool: Pool,
  schema: string,
  label: string,
  migrations: readonly PostgresMigration[] = POSTGRES_MIGRATIONS,
): Promise<PostgresMigrationResult> {
  migrations.forEach((migration, index) => {
    if (migration.version !== index + 1) {
      throw new Error(
        `postgres store migrations must be numbered 1, 2, 3… in order; position ${index + 1} has version ${migration.version}`,
      );
    }
  });
  const latest = migrations.at(-1)?.version ?? 0;
  const client = await pool.connect();
  let failed: unknown;
  try {
    await client.query('BEGIN');
    // One process migrates a schema at a time; the others wait here, then find it done.
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`turnlog-migrations:${schema}`]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${schema}.schema_migrations (
         version     integer PRIMARY KEY,
         description text NOT NULL,
         applied_at  timestamptz NOT NULL DEFAULT now()
       )`,
    );
    const { rows } = await client.query<{ v: number | null }>(
      `SELECT max(version) AS v FROM ${schema}.schema_migrations`,
    );
    const from = rows[0]?.v ?? 0;
    if (from > latest) {
      throw new Error(
        `${label}: schema "${schema}" is at version ${from}, newer than version ${latest} that this turnlog knows; ` +
          'run a newer turnlog or point store.url at another database',
      );
    }
    for (const migration of migrations) {
      if (migration.version <= from) continue;
      try {
        await client.query(`SET LOCAL search_path = ${schema}`);
        await client.query(migration.sql);
        await client.query(`INSERT INTO ${schema}.schema_migrations (version, description) VALUES ($1, $2)`, [
          migration.version,
          migration.description,
        ]);
      } catch (error) {
        throw new Error(
          `${label}: migration ${migration.version} (${migration.description}) failed, ` +
            `schema "${schema}" stays at version ${from}: ${(error as Error).message}`,
          { cause: error },
        );
      }
    }
    await client.query('COMMIT');
    return { from, to: Math.max(from, latest) };
  } catch (error) {
    failed = error;
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release(failed instanceof Error && !failed.message.startsWith(label) ? failed : undefined);
  }
}

/** The version a schema is at (0: none yet). */
export async function postgresSchemaVersion(pool: Pool, schema: string): Promise<number> {
  const { rows } = await pool.query<{ v: number | null }>(
    `SELECT CASE WHEN to_regclass($1) IS NULL THEN NULL ELSE 0 END AS v`,
    [`${schema}.schema_migrations`],
  );
  if (rows[0]?.v === null) return 0;
  const max = await pool.query<{ v: number | null }>(
    `SELECT max(version) AS v FROM ${schema}.schema_migrations`,
  );
  return max.rows[0]?.v ?? 0;
}
