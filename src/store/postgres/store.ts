/**
 * The Postgres store (issue 23.1): `store.url: "postgres://…"` selects it. It
 * holds what the SQLite store holds (../sqlite.ts), in the same shapes and
 * bounds, so the store contract suite passes on both; several processes may
 * open the same database. Its methods answer with promises.
 *
 * Writes keep the order of the calls (writes.ts): each runs in its own
 * transaction after the ones called before it, and a read waits for them.
 * The hot writes (snapshots, run record, stray logs, answer parts) are
 * committed together once per event-loop tick (batch.ts), as in SQLite;
 * `flush()` commits them now (the ingest API awaits it before answering).
 *
 * Created synchronously: the schema is migrated in the background (`ready`),
 * and every call waits for it. Connections come from `openPostgresPool`
 * (pool.ts), or from a pool the caller shares (then `close()` leaves it open).
 */
import type { Pool } from 'pg';
import type { NewAction } from '../../actions/types.js';
import type { RunEvent } from '../../events/schema.js';
import type { PostedMessage } from '../../surfaces/surface.js';
import { MEMORY_STORE_LIMITS, type MemoryStoreLimits } from '../memory.js';
import {
  type AnswerPartRow,
  answerPartOf,
  type EventRow,
  fromLiveRow,
  fromSummaryRow,
  type LiveTurnRow,
  nonNegative,
  type RefRow,
  refOf,
  type StrayLogRow,
  type SummaryRow,
  serializeEvent,
} from '../sqlite-rows.js';
import type {
  CardClaim,
  CardRecord,
  DeadLetterRecord,
  PendingAnswerPart,
  PersistedStrayLog,
  PersistedTurn,
  StoredAnchor,
  StoredSpaceSettings,
  TurnlogStore,
  TurnSummary,
} from '../store.js';
import { describeBatch, writeBatch } from './batch.js';
import { migratePostgres } from './migrations.js';
import { assertSchemaName, DEFAULT_POSTGRES_SCHEMA, openPostgresPool, postgresLabel } from './pool.js';
import * as records from './records.js';
import { type BeforeWrite, createBatchBuffer, createWriteQueue } from './writes.js';

export interface PostgresStoreOptions {
  /** `postgres://user@host:port/db` (`store.url`). */
  url: string;
  /** The schema the tables live in (created when missing). Default `turnlog`. */
  schema?: string;
  /** A pool to share (opened with `openPostgresPool` on the same schema); left open by `close()`. */
  pool?: Pool;
  /** Most connections of the store's own pool. Default 10. */
  poolMax?: number;
  limits?: Partial<MemoryStoreLimits>;
  /** A per-tick write that failed in the background (it is tried again). Default: logged to stderr. */
  onWriteError?: (error: Error) => void;
  /** Runs first in every write transaction; throwing aborts the write (e.g. a fencing check). */
  beforeWrite?: BeforeWrite;
}

export interface PostgresStore extends TurnlogStore {
  /** The URL without its password. */
  readonly url: string;
  readonly schema: string;
  readonly pool: Pool;
  /** Resolves once the schema is migrated; rejects naming why the store cannot open. */
  readonly ready: Promise<void>;
  flush(): Promise<void>;
  close(): Promise<void>;
}

/** Opens the store and waits until its schema is migrated (a clear error otherwise). */
export async function openPostgresStore(options: PostgresStoreOptions): Promise<PostgresStore> {
  const store = createPostgresStore(options);
  try {
    await store.ready;
  } catch (error) {
    await store.close().catch(() => {});
    throw error;
  }
  return store;
}

export function createPostgresStore(options: PostgresStoreOptions): PostgresStore {
  const schema = options.schema ?? DEFAULT_POSTGRES_SCHEMA;
  assertSchemaName(schema);
  const max = { ...MEMORY_STORE_LIMITS, ...options.limits };
  for (const [name, value] of Object.entries(max)) {
    if (!Number.isInteger(value) || value < 1) {
      throw new RangeError(
        `createPostgresStore: limits.${name} must be a positive integer, got ${String(value)}`,
      );
    }
  }
  const label = postgresLabel(options.url);
  const prefix = `${label}:`;
  const pool = options.pool ?? openPostgresPool(options.url, { schema, max: options.poolMax ?? 10 });
  const ownPool = options.pool === undefined;
  const failure = (what: string, error: unknown) => {
    const message = (error as Error).message;
    if (message.startsWith(prefix)) return error as Error;
    return new Error(`${prefix} ${what} failed: ${message}`, { cause: error });
  };

  const ready = migratePostgres(pool, schema, label).then(
    () => undefined,
    (error: unknown) => {
      throw failure('opening the database', error);
    },
  );
  // Every call awaits `ready` and fails with it; this keeps an unawaited failure from being unhandled.
  ready.catch(() => {});
  const queue = createWriteQueue(pool, ready, failure, options.beforeWrite);
  const reportWriteError =
    options.onWriteError ?? ((error: Error) => console.error(`turnlog: ${error.message}`));
  const batch = createBatchBuffer<EventRow>(
    queue,
    (client, pending) => writeBatch(client, pending, { prefix, max, report: reportWriteError }),
    describeBatch,
    reportWriteError,
  );
  let closed = false;
  let storeId: Promise<string> | undefined;

  const open = (what: string) => {
    if (closed) throw new Error(`${prefix} ${what} after close()`);
  };
  /** A read: after every write called before it. */
  const read =
    <A extends unknown[], R>(what: string, run: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      open(what);
      await batch.flush();
      await ready;
      try {
        return await run(...args);
      } catch (error) {
        throw failure(what, error);
      }
    };
  /** A write in its own transaction, after the buffered ones. */
  const write =
    <A extends unknown[], R>(
      what: string,
      run: (client: import('pg').PoolClient, ...args: A) => Promise<R>,
    ) =>
    (...args: A): Promise<R> => {
      open(what);
      batch.flush().catch(reportWriteError);
      return queue.write(what, (client) => run(client, ...args));
    };
  /** A buffered write: committed with the tick's batch. */
  const buffered =
    <A extends unknown[]>(what: string, run: (...args: A) => void) =>
    (...args: A): void => {
      open(what);
      run(...args);
    };

  return {
    url: label.slice('postgres store "'.length, -1),
    schema,
    pool,
    ready,
    saveTurn: buffered('saveTurn', (turn: PersistedTurn) => batch.putTurn(turn)),
    loadTurn: read('loadTurn', async (turnId: string) => {
      const { rows } = await pool.query<LiveTurnRow>('SELECT * FROM live_turns WHERE turn_id = $1', [turnId]);
      return rows[0] ? fromLiveRow(rows[0]) : undefined;
    }),
    liveTurns: read('liveTurns', async () => {
      const { rows } = await pool.query<LiveTurnRow>('SELECT * FROM live_turns ORDER BY ord');
      return rows.map(fromLiveRow);
    }),
    finishTurn: write('finishTurn', async (client, summary: TurnSummary) => {
      await client.query('DELETE FROM live_turns WHERE turn_id = $1', [summary.turnId]);
      // Written again, a summary moves to the newest place (as SQLite's INSERT OR REPLACE does).
      await client.query(
        `INSERT INTO turn_summaries
           (turn_id, space, state, outcome, degraded, log_messages, entries, dead_letters, ended_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
         ON CONFLICT (turn_id) DO UPDATE SET
           space = excluded.space, state = excluded.state, outcome = excluded.outcome,
           degraded = excluded.degraded, log_messages = excluded.log_messages, entries = excluded.entries,
           dead_letters = excluded.dead_letters, ended_at = excluded.ended_at, ord = nextval('turnlog_ord')`,
        [
          summary.turnId,
          summary.space,
          summary.state,
          summary.outcome,
          summary.degraded,
          JSON.stringify(summary.logMessages),
          summary.entries,
          summary.deadLetters,
          summary.endedAt,
        ],
      );
      await records.pruneOldest(client, 'turn_summaries', max.summaries);
    }),
    turnSummary: read('turnSummary', async (turnId: string) => {
      const { rows } = await pool.query<Omit<SummaryRow, 'degraded'> & { degraded: boolean }>(
        'SELECT * FROM turn_summaries WHERE turn_id = $1',
        [turnId],
      );
      const row = rows[0];
      return row ? fromSummaryRow({ ...row, degraded: row.degraded ? 1 : 0 }) : undefined;
    }),
    // Buffered like a turn's snapshot: a stray log commits with the events that changed it.
    saveStrayLog: buffered('saveStrayLog', (log: PersistedStrayLog) => batch.putStrayLog(log.space, log)),
    forgetStrayLog: buffered('forgetStrayLog', (space: string) => batch.putStrayLog(space, null)),
    strayLogs: read('strayLogs', async () => {
      const { rows } = await pool.query<StrayLogRow>(
        'SELECT space, snapshot, updated_at FROM stray_logs ORDER BY ord',
      );
      return rows.map((row) => ({
        space: row.space,
        snapshot: JSON.parse(row.snapshot),
        updatedAt: row.updated_at,
      }));
    }),
    saveAnswerParts: buffered('saveAnswerParts', (parts: PendingAnswerPart[]) => {
      for (const part of parts) {
        if (typeof part.text !== 'string')
          throw new TypeError(`part ${part.part} of answer ${part.key} has no text`);
      }
      for (const part of parts) batch.putAnswerPart(part, { ...part });
    }),
    forgetAnswerPart: buffered('forgetAnswerPart', (space: string, key: string, part: number) =>
      batch.putAnswerPart({ space, key, part }, null),
    ),
    pendingAnswerParts: read('pendingAnswerParts', async () => {
      const { rows } = await pool.query<AnswerPartRow>('SELECT * FROM answer_parts ORDER BY ord');
      return rows.map(answerPartOf);
    }),
    saveAnchor: write('saveAnchor', async (client, space: string, anchor: StoredAnchor) => {
      await client.query('INSERT INTO anchors (space, message_id, thread_id, ref) VALUES ($1, $2, $3, $4)', [
        space,
        anchor.messageId,
        anchor.threadId ?? null,
        anchor.ref ?? null,
      ]);
      await client.query(
        `DELETE FROM anchors WHERE space = $1 AND id < (
           SELECT min(id) FROM (SELECT id FROM anchors WHERE space = $1 ORDER BY id DESC LIMIT $2) newest)`,
        [space, max.anchorsPerSpace],
      );
    }),
    anchors: read('anchors', async (space: string, limit: number) => {
      const { rows } = await pool.query<RefRow & { ref: string | null }>(
        'SELECT message_id, thread_id, ref FROM anchors WHERE space = $1 ORDER BY id DESC LIMIT $2',
        [space, nonNegative('anchors', limit)],
      );
      return rows.reverse().map((row) => ({ ...refOf(row), ...(row.ref !== null ? { ref: row.ref } : {}) }));
    }),
    appendEvent: buffered('appendEvent', (event: RunEvent) =>
      batch.appendEvent(serializeEvent(prefix, event)),
    ),
    events: read('events', async (turnId: string) => {
      const { rows } = await pool.query<{ event: string }>(
        'SELECT event FROM events WHERE turn_id = $1 ORDER BY seq NULLS FIRST, id',
        [turnId],
      );
      return rows.map((row) => JSON.parse(row.event) as RunEvent);
    }),
    deadLetter: write('deadLetter', async (client, record: DeadLetterRecord) => {
      await client.query('INSERT INTO dead_letters (at, source, reason, payload) VALUES ($1, $2, $3, $4)', [
        record.at,
        record.source,
        record.reason,
        record.payload,
      ]);
      await client.query(
        `DELETE FROM dead_letters WHERE id IN (
           SELECT id FROM dead_letters ORDER BY id
           LIMIT greatest(0, (SELECT count(*) FROM dead_letters) - $1))`,
        [max.deadLetters],
      );
    }),
    deadLetters: read('deadLetters', async (limit: number = max.deadLetters) => {
      const { rows } = await pool.query<DeadLetterRecord>(
        'SELECT at, source, reason, payload FROM dead_letters ORDER BY id DESC LIMIT $1',
        [nonNegative('deadLetters', limit)],
      );
      return rows.reverse();
    }),
    recordPost: write('recordPost', async (client, clientId: string, message: PostedMessage) => {
      // Recorded again, a ref moves to the newest place, as the memory store does.
      await client.query(
        `INSERT INTO posts (client_id, message_id, thread_id) VALUES ($1, $2, $3)
         ON CONFLICT (client_id) DO UPDATE SET
           message_id = excluded.message_id, thread_id = excluded.thread_id, ord = nextval('turnlog_ord')`,
        [clientId, message.messageId, message.threadId ?? null],
      );
      await records.pruneOldest(client, 'posts', max.posts);
    }),
    lookupPost: read('lookupPost', async (clientId: string) => {
      const { rows } = await pool.query<RefRow>(
        'SELECT message_id, thread_id FROM posts WHERE client_id = $1',
        [clientId],
      );
      return rows[0] ? refOf(rows[0]) : undefined;
    }),
    saveSpaceSettings: write(
      'saveSpaceSettings',
      async (client, space: string, settings: StoredSpaceSettings) => {
        if (Object.keys(settings).length === 0) {
          await client.query('DELETE FROM space_settings WHERE space = $1', [space]);
          return;
        }
        await client.query(
          `INSERT INTO space_settings (space, settings) VALUES ($1, $2)
         ON CONFLICT (space) DO UPDATE SET settings = excluded.settings`,
          [space, JSON.stringify(settings)],
        );
      },
    ),
    spaceSettings: read('spaceSettings', async () => {
      const { rows } = await pool.query<{ space: string; settings: string }>(
        'SELECT space, settings FROM space_settings ORDER BY space',
      );
      return Object.fromEntries(
        rows.map((row) => [row.space, JSON.parse(row.settings) as StoredSpaceSettings]),
      );
    }),
    appendAction: write('appendAction', (client, action: NewAction & { id: string }, keptAt: number) =>
      records.appendAction(client, action, keptAt),
    ),
    actionsAfter: read('actionsAfter', (after: number, limit: number) =>
      records.actionsAfter(pool, after, nonNegative('actionsAfter', limit)),
    ),
    pruneActions: write('pruneActions', (client, keptBefore: number, limit: number) =>
      records.pruneActions(client, keptBefore, limit),
    ),
    actionCursor: read('actionCursor', (consumer: string) => records.actionCursor(pool, consumer)),
    saveActionCursor: write('saveActionCursor', (client, consumer: string, cursor: string) =>
      records.saveActionCursor(client, consumer, cursor),
    ),
    // Made with the store and never changed: read once.
    actionsStoreId: read('actionsStoreId', () => {
      storeId ??= records.storeId(pool);
      return storeId.catch((error: unknown) => {
        storeId = undefined;
        throw error;
      });
    }),
    lastActionSeq: read('lastActionSeq', () => records.lastActionSeq(pool)),
    openCards: read('openCards', (turnId: string) => records.openCards(pool, turnId)),
    saveRunToken: write('saveRunToken', (client, turnId: string, tokenHash: string, createdAt: number) =>
      records.saveRunToken(client, turnId, tokenHash, createdAt),
    ),
    runTokenHashes: read('runTokenHashes', (turnId: string) => records.runTokenHashes(pool, turnId)),
    forgetRunsEndedBefore: write('forgetRunsEndedBefore', (client, endedBefore: number, limit: number) =>
      records.forgetRunsEndedBefore(client, endedBefore, limit),
    ),
    registerCard: write('registerCard', (client, record: CardRecord) =>
      records.registerCard(client, record, max.cards),
    ),
    card: read('card', (space: string, messageId: string) => records.card(pool, space, messageId)),
    claimCard: write('claimCard', (client, space: string, messageId: string, claim: CardClaim) =>
      records.claimCard(client, space, messageId, claim),
    ),
    flush: async () => {
      open('flush');
      await batch.flush();
    },
    async close() {
      if (closed) return;
      closed = true;
      let failed: unknown;
      try {
        await batch.flush();
      } catch (error) {
        failed = failure('committing the pending writes on close', error);
      }
      await queue.settled();
      if (ownPool) await pool.end();
      if (failed) throw failed;
    },
  };
}
