/**
 * One tick's hot writes in one Postgres transaction (issue 23.1): the turn
 * snapshots, the run record's new events (each record pruned to its bound,
 * the least recently grown records past theirs, never a live turn's), the
 * stray logs and the answer parts, as the SQLite store writes them.
 */
import type { PoolClient } from 'pg';
import type { MemoryStoreLimits } from '../memory.js';
import {
  type EventRow,
  type SerializedStrayLog,
  type SerializedTurn,
  serializeStrayLog,
  serializeTurn,
} from '../sqlite-rows.js';
import type { PendingAnswerPart } from '../store.js';
import type { AnswerPartRef, PendingWrites } from '../write-behind.js';

export interface BatchContext {
  prefix: string;
  max: MemoryStoreLimits;
  /** A value that is not JSON: reported and dropped, so it does not hold back the others. */
  report: (error: Error) => void;
}

export function describeBatch(batch: PendingWrites<EventRow>): string {
  const strays = batch.strayLogs.length > 0 ? `, ${batch.strayLogs.length} stray log(s)` : '';
  const parts = batch.answerParts.length > 0 ? `, ${batch.answerParts.length} answer part(s)` : '';
  return `writing ${batch.turns.length} turn snapshot(s)${strays}${parts} and ${batch.events.length} event(s)`;
}

export async function writeTurns(client: PoolClient, rows: SerializedTurn[]): Promise<void> {
  if (rows.length === 0) return;
  // unnest keeps the array order, so new turns get their ord in the order first saved.
  await client.query(
    `INSERT INTO live_turns (turn_id, space, snapshot, updated_at)
     SELECT a, b, c, d FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[]) WITH ORDINALITY AS r(a, b, c, d, n)
     ORDER BY n
     ON CONFLICT (turn_id) DO UPDATE SET
       space = excluded.space, snapshot = excluded.snapshot, updated_at = excluded.updated_at`,
    [
      rows.map((r) => r.turnId),
      rows.map((r) => r.space),
      rows.map((r) => r.snapshot),
      rows.map((r) => r.updatedAt),
    ],
  );
}

/** Appends events to their run records and prunes the records to the bounds. */
export async function writeEvents(
  client: PoolClient,
  rows: EventRow[],
  max: MemoryStoreLimits,
): Promise<void> {
  if (rows.length === 0) return;
  const inserted = await client.query<{ id: number }>(
    `INSERT INTO events (turn_id, seq, type, space, at, event)
     SELECT a, b, c, d, e, f
     FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::bigint[], $6::text[])
       WITH ORDINALITY AS r(a, b, c, d, e, f, n)
     ORDER BY n
     RETURNING id`,
    [
      rows.map((r) => r.stream),
      rows.map((r) => r.seq),
      rows.map((r) => r.type),
      rows.map((r) => r.space),
      rows.map((r) => r.at),
      rows.map((r) => r.json),
    ],
  );
  const grown = await client.query<{ turn_id: string; events: number; created: boolean }>(
    `INSERT INTO event_streams (turn_id, events, last_event)
     SELECT turn_id, count(*), max(id) FROM events WHERE id = ANY($1::bigint[]) GROUP BY turn_id
     ORDER BY max(id)
     ON CONFLICT (turn_id) DO UPDATE SET
       events = event_streams.events + excluded.events, last_event = excluded.last_event
     RETURNING turn_id, events, (xmax = 0) AS created`,
    [inserted.rows.map((r) => r.id)],
  );
  for (const stream of grown.rows) {
    if (stream.events <= max.eventsPerTurn) continue;
    await client.query(
      `DELETE FROM events WHERE id IN (
         SELECT id FROM events WHERE turn_id = $1 ORDER BY seq NULLS FIRST, id LIMIT $2)`,
      [stream.turn_id, stream.events - max.eventsPerTurn],
    );
    await client.query('UPDATE event_streams SET events = $1 WHERE turn_id = $2', [
      max.eventsPerTurn,
      stream.turn_id,
    ]);
  }
  if (!grown.rows.some((stream) => stream.created)) return;
  const { rows: count } = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM event_streams');
  const over = (count[0]?.n ?? 0) - max.turnsWithEvents;
  if (over <= 0) return;
  // A live turn's record is never pruned: its seq and eventIds resume from it after a restart.
  await client.query(
    `WITH oldest AS (
       SELECT turn_id FROM event_streams s
       WHERE NOT EXISTS (SELECT 1 FROM live_turns l WHERE l.turn_id = s.turn_id)
       ORDER BY last_event LIMIT $1),
     gone AS (DELETE FROM event_streams WHERE turn_id IN (SELECT turn_id FROM oldest) RETURNING turn_id)
     DELETE FROM events WHERE turn_id IN (SELECT turn_id FROM gone)`,
    [over],
  );
}

export async function writeStrayLog(client: PoolClient, row: SerializedStrayLog): Promise<void> {
  if (row.snapshot === null) {
    await client.query('DELETE FROM stray_logs WHERE space = $1', [row.space]);
    return;
  }
  await client.query(
    `INSERT INTO stray_logs (space, snapshot, updated_at) VALUES ($1, $2, $3)
     ON CONFLICT (space) DO UPDATE SET snapshot = excluded.snapshot, updated_at = excluded.updated_at`,
    [row.space, row.snapshot, row.updatedAt],
  );
}

/** Keeps an answer part, or (null) forgets it. */
export async function writeAnswerPart(
  client: PoolClient,
  ref: AnswerPartRef,
  part: PendingAnswerPart | null,
): Promise<void> {
  if (part === null) {
    await client.query('DELETE FROM answer_parts WHERE space = $1 AND answer_key = $2 AND part = $3', [
      ref.space,
      ref.key,
      ref.part,
    ]);
    return;
  }
  await client.query(
    `INSERT INTO answer_parts (space, answer_key, part, parts, turn_id, thread, text, saved_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
     ON CONFLICT (space, answer_key, part) DO UPDATE SET
       parts = excluded.parts, turn_id = excluded.turn_id, thread = excluded.thread,
       text = excluded.text, saved_at = excluded.saved_at`,
    [
      part.space,
      part.key,
      part.part,
      part.parts,
      part.turnId ?? null,
      part.thread ? JSON.stringify(part.thread) : null,
      part.text,
      part.savedAt,
    ],
  );
}

/** Writes one tick's batch (inside the queue's transaction). */
export async function writeBatch(
  client: PoolClient,
  batch: PendingWrites<EventRow>,
  { prefix, max, report }: BatchContext,
): Promise<void> {
  const turns: SerializedTurn[] = [];
  for (const turn of batch.turns) {
    try {
      turns.push(serializeTurn(prefix, turn));
    } catch (error) {
      report(error as Error);
    }
  }
  const strays: SerializedStrayLog[] = [];
  for (const [space, log] of batch.strayLogs) {
    try {
      strays.push(serializeStrayLog(prefix, space, log));
    } catch (error) {
      report(error as Error);
    }
  }
  // Turns first: a turn that just went live has its row before its events are counted for pruning.
  await writeTurns(client, turns);
  await writeEvents(client, batch.events, max);
  for (const row of strays) await writeStrayLog(client, row);
  for (const [ref, part] of batch.answerParts) await writeAnswerPart(client, ref, part);
}
