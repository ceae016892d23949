/**
 * Any process takes any request (issue 23.3): what it accepts for a space is
 * appended to the inbox table, in one statement per batch (rows in the order
 * received), with a NOTIFY on commit to wake the space's owner, which also
 * polls as a fallback. The host is answered only once the row is committed.
 * An event with an `eventId` is kept once per (space, turn, eventId): a retry
 * sent to another process is a duplicate there too.
 *
 * The owner reads a space's pending rows in id order, applies them, and marks
 * them applied only after its runtime made them durable, and only while it
 * still holds the lease's term: delivered at least once, applied once (a row
 * applied again after a crash carries its eventId, which the restored turn
 * knows).
 */
import type { Client, Pool } from 'pg';
import { TABLES } from './schema.js';

export const INBOX_CHANNEL = 'turnlog_cluster_inbox';

export type InboxKind = 'event' | 'click' | 'settings';

export interface InboxItem {
  space: string;
  kind: InboxKind;
  body: unknown;
  turnId?: string;
  eventId?: string;
}

export interface InboxRow {
  id: number;
  kind: InboxKind;
  body: unknown;
}

/** Appends items in order; resolves with the ids of the rows kept, in order (a duplicate eventId is not kept). */
export async function appendToInbox(
  pool: Pool,
  receivedBy: string,
  items: readonly InboxItem[],
): Promise<number[]> {
  if (items.length === 0) return [];
  const { rows } = await pool.query<{ ids: string[]; notified: string }>(
    `WITH input AS (
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::jsonb[])
         WITH ORDINALITY AS t(space, kind, turn_id, event_id, body, ord)
     ),
     seen AS (
       INSERT INTO ${TABLES.spaces} (space) SELECT DISTINCT space FROM input ON CONFLICT DO NOTHING
     ),
     kept AS (
       INSERT INTO ${TABLES.inbox} (space, kind, turn_id, event_id, body, received_by)
       SELECT space, kind, turn_id, event_id, body, $6 FROM input ORDER BY ord
       ON CONFLICT DO NOTHING
       RETURNING id, space
     ),
     woken AS (
       SELECT pg_notify('${INBOX_CHANNEL}', space) FROM (SELECT DISTINCT space FROM kept) AS s
     )
     SELECT array(SELECT id FROM kept ORDER BY id) AS ids, (SELECT count(*) FROM woken) AS notified`,
    [
      items.map((i) => i.space),
      items.map((i) => i.kind),
      items.map((i) => i.turnId ?? null),
      items.map((i) => i.eventId ?? null),
      items.map((i) => JSON.stringify(i.body)),
      receivedBy,
    ],
  );
  return (rows[0]?.ids ?? []).map(Number);
}

/** A space's pending rows, oldest first. */
export async function pendingRows(pool: Pool, space: string, limit: number): Promise<InboxRow[]> {
  const { rows } = await pool.query<{ id: string; kind: InboxKind; body: unknown }>(
    `SELECT id, kind, body FROM ${TABLES.inbox} WHERE space = $1 AND applied_at IS NULL ORDER BY id LIMIT $2`,
    [space, limit],
  );
  return rows.map((row) => ({ id: Number(row.id), kind: row.kind, body: row.body }));
}

/** Spaces among `spaces` with pending rows. */
export async function spacesWithPending(pool: Pool, spaces: readonly string[]): Promise<string[]> {
  if (spaces.length === 0) return [];
  const { rows } = await pool.query<{ space: string }>(
    `SELECT DISTINCT space FROM ${TABLES.inbox} WHERE applied_at IS NULL AND space = ANY($1::text[])`,
    [spaces],
  );
  return rows.map((row) => row.space);
}

/**
 * Marks rows applied (with their results, for clicks), only while `owner`
 * holds `space` with `term`; answers whether it did.
 */
export async function markApplied(
  pool: Pool,
  fence: { space: string; owner: string; term: number },
  applied: readonly { id: number; result?: unknown }[],
): Promise<boolean> {
  if (applied.length === 0) return true;
  const { rowCount } = await pool.query(
    `UPDATE ${TABLES.inbox} i SET applied_at = now(), result = r.result
       FROM unnest($1::bigint[], $2::jsonb[]) AS r(id, result)
      WHERE i.id = r.id AND i.space = $3
        AND EXISTS (SELECT 1 FROM ${TABLES.leases} l WHERE l.space = $3 AND l.owner = $4 AND l.term = $5)`,
    [
      applied.map((a) => a.id),
      applied.map((a) => (a.result === undefined ? null : JSON.stringify(a.result))),
      fence.space,
      fence.owner,
      fence.term,
    ],
  );
  return (rowCount ?? 0) > 0;
}

/** The result the owner wrote for a row once applied (a click's answer); undefined while pending. */
export async function resultOf(pool: Pool, id: number): Promise<{ applied: boolean; result: unknown }> {
  const { rows } = await pool.query<{ applied: boolean; result: unknown }>(
    `SELECT applied_at IS NOT NULL AS applied, result FROM ${TABLES.inbox} WHERE id = $1`,
    [id],
  );
  return rows[0] ?? { applied: false, result: null };
}

/** Forgets applied rows older than `keepMs` (a retry after that is applied again only if its turn forgot it). */
export async function pruneInbox(pool: Pool, keepMs: number): Promise<void> {
  await pool.query(
    `DELETE FROM ${TABLES.inbox} WHERE applied_at IS NOT NULL AND applied_at < now() - $1::interval`,
    [`${keepMs} milliseconds`],
  );
}

/** LISTENs for appended rows; calls `onSpace` with each space woken. Resolves once listening. */
export async function listenInbox(client: Client, onSpace: (space: string) => void): Promise<void> {
  client.on('notification', (message) => {
    if (message.channel === INBOX_CHANNEL && message.payload) onSpace(message.payload);
  });
  await client.query(`LISTEN ${INBOX_CHANNEL}`);
}
