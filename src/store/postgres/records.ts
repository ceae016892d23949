/**
 * The Postgres store's colder tables (issue 23.1): the actions outbox (a
 * sequence that never gives a seq twice, appends serialized across processes
 * by an advisory lock so cursors commit in their order), the cards and their
 * first-wins claims, and the run page's tokens with the retention sweep.
 * Each write runs inside the store's write transaction (`client`).
 */
import type { Pool, PoolClient } from 'pg';
import type { Action, NewAction } from '../../actions/types.js';
import type { CardClaim, CardRecord, StoredCard } from '../store.js';

/** Any constant: the lock appends to the outbox take, so a reader never sees seq 5 commit before seq 4. */
const OUTBOX_LOCK = 230_106;

type Queryable = Pool | PoolClient;

const fromActionRow = (row: { seq: number; action: string }): Action =>
  ({ ...(JSON.parse(row.action) as object), cursor: String(row.seq) }) as Action;

export async function appendAction(
  client: PoolClient,
  action: NewAction & { id: string },
  keptAt: number,
): Promise<{ action: Action; duplicate: boolean }> {
  await client.query('SELECT pg_advisory_xact_lock($1)', [OUTBOX_LOCK]);
  const known = await client.query<{ seq: number; action: string }>(
    'SELECT seq, action FROM actions WHERE id = $1',
    [action.id],
  );
  if (known.rows[0]) return { action: fromActionRow(known.rows[0]), duplicate: true };
  const json = JSON.stringify(action);
  const { rows } = await client.query<{ seq: number }>(
    "INSERT INTO actions (seq, id, kept_at, action) VALUES (nextval('action_seq'), $1, $2, $3) RETURNING seq",
    [action.id, keptAt, json],
  );
  return { action: fromActionRow({ seq: rows[0]!.seq, action: json }), duplicate: false };
}

export async function actionsAfter(db: Queryable, after: number, limit: number): Promise<Action[]> {
  const { rows } = await db.query<{ seq: number; action: string }>(
    'SELECT seq, action FROM actions WHERE seq > $1 ORDER BY seq LIMIT $2',
    [after, limit],
  );
  return rows.map(fromActionRow);
}

export async function pruneActions(client: PoolClient, keptBefore: number, max: number): Promise<number> {
  const { rowCount } = await client.query(
    'DELETE FROM actions WHERE seq IN (SELECT seq FROM actions WHERE kept_at < $1 ORDER BY seq LIMIT $2)',
    [keptBefore, max],
  );
  return rowCount ?? 0;
}

export async function lastActionSeq(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ seq: number }>(
    'SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS seq FROM action_seq',
  );
  return rows[0]?.seq ?? 0;
}

export async function actionCursor(db: Queryable, consumer: string): Promise<string | undefined> {
  const { rows } = await db.query<{ cursor: string }>(
    'SELECT cursor FROM action_cursors WHERE consumer = $1',
    [consumer],
  );
  return rows[0]?.cursor;
}

export async function saveActionCursor(client: PoolClient, consumer: string, cursor: string): Promise<void> {
  await client.query(
    `INSERT INTO action_cursors (consumer, cursor) VALUES ($1, $2)
     ON CONFLICT (consumer) DO UPDATE SET cursor = excluded.cursor`,
    [consumer, cursor],
  );
}

export async function storeId(db: Queryable): Promise<string> {
  const { rows } = await db.query<{ value: string }>("SELECT value FROM store_meta WHERE key = 'store_id'");
  if (!rows[0]) throw new Error('store_meta has no store_id');
  return rows[0].value;
}

/** Records a card (again: replaced in place, an existing claim kept); the oldest past `max` go. */
export async function registerCard(client: PoolClient, record: CardRecord, max: number): Promise<void> {
  await client.query(
    `INSERT INTO cards (space, message_id, turn_id, record) VALUES ($1, $2, $3, $4)
     ON CONFLICT (space, message_id) DO UPDATE SET turn_id = excluded.turn_id, record = excluded.record`,
    [record.space, record.messageId, record.turnId, JSON.stringify(record)],
  );
  await pruneOldest(client, 'cards', max);
}

export async function card(db: Queryable, space: string, messageId: string): Promise<StoredCard | undefined> {
  const { rows } = await db.query<{ record: string; claim: string | null }>(
    'SELECT record, claim FROM cards WHERE space = $1 AND message_id = $2',
    [space, messageId],
  );
  const row = rows[0];
  if (!row) return undefined;
  const record = JSON.parse(row.record) as CardRecord;
  return row.claim === null ? record : { ...record, claim: JSON.parse(row.claim) as CardClaim };
}

/** The first claim wins: an UPDATE … WHERE claim IS NULL waits for a concurrent one and then finds it set. */
export async function claimCard(
  client: PoolClient,
  space: string,
  messageId: string,
  claim: CardClaim,
): Promise<{ first: boolean; claim: CardClaim } | undefined> {
  const won = await client.query(
    'UPDATE cards SET claim = $1 WHERE space = $2 AND message_id = $3 AND claim IS NULL',
    [JSON.stringify(claim), space, messageId],
  );
  if (won.rowCount === 1) return { first: true, claim };
  const { rows } = await client.query<{ claim: string | null }>(
    'SELECT claim FROM cards WHERE space = $1 AND message_id = $2',
    [space, messageId],
  );
  const earlier = rows[0]?.claim;
  return earlier == null ? undefined : { first: false, claim: JSON.parse(earlier) as CardClaim };
}

export async function openCards(db: Queryable, turnId: string): Promise<StoredCard[]> {
  const { rows } = await db.query<{ record: string }>(
    'SELECT record FROM cards WHERE turn_id = $1 AND claim IS NULL ORDER BY ord',
    [turnId],
  );
  return rows.map((row) => JSON.parse(row.record) as CardRecord);
}

export async function saveRunToken(
  client: PoolClient,
  turnId: string,
  tokenHash: string,
  createdAt: number,
): Promise<void> {
  await client.query(
    'INSERT INTO run_tokens (turn_id, token_hash, created_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING',
    [turnId, tokenHash, createdAt],
  );
}

export async function runTokenHashes(db: Queryable, turnId: string): Promise<string[]> {
  const { rows } = await db.query<{ token_hash: string }>(
    'SELECT token_hash FROM run_tokens WHERE turn_id = $1',
    [turnId],
  );
  return rows.map((row) => row.token_hash);
}

/** Deletes at most `max` finished runs that ended before `endedBefore`: record, summary and tokens. */
export async function forgetRunsEndedBefore(
  client: PoolClient,
  endedBefore: number,
  max: number,
): Promise<number> {
  const { rows } = await client.query<{ turn_id: string }>(
    'SELECT turn_id FROM turn_summaries WHERE ended_at < $1 ORDER BY ended_at LIMIT $2',
    [endedBefore, max],
  );
  const ids = rows.map((row) => row.turn_id);
  if (ids.length === 0) return 0;
  for (const table of ['events', 'event_streams', 'turn_summaries', 'run_tokens']) {
    await client.query(`DELETE FROM ${table} WHERE turn_id = ANY($1::text[])`, [ids]);
  }
  return ids.length;
}

/** Deletes the oldest rows of a table (by `ord`, insertion order) past `limit`. */
export async function pruneOldest(
  client: PoolClient,
  table: 'turn_summaries' | 'posts' | 'cards',
  limit: number,
): Promise<void> {
  await client.query(
    `DELETE FROM ${table} WHERE ord IN (
       SELECT ord FROM ${table} ORDER BY ord
       LIMIT greatest(0, (SELECT count(*) FROM ${table}) - $1))`,
    [limit],
  );
}
