/**
 * The SQLite store's rows and their JSON: what a table row holds, a value
 * turned into the row it is written as (a value that is not JSON is refused
 * naming what it belongs to), and a row read back into the store's types.
 * The Postgres store (src/store/postgres/) keeps the same rows.
 */
import type { RunEvent } from '../events/schema.js';
import type { PostedMessage } from '../surfaces/surface.js';
import type { PendingAnswerPart, PersistedStrayLog, PersistedTurn, TurnSummary } from './store.js';

export interface LiveTurnRow {
  turn_id: string;
  space: string;
  snapshot: string;
  updated_at: number;
}

export interface SummaryRow {
  turn_id: string;
  space: string;
  state: string;
  outcome: string | null;
  degraded: number;
  log_messages: string;
  entries: number;
  dead_letters: number;
  ended_at: number;
}

export type SerializedTurn = { turnId: string; space: string; snapshot: string; updatedAt: number };

/** A stray log row to write; null snapshot: delete the space's row. */
export type SerializedStrayLog =
  | { space: string; snapshot: string; updatedAt: number }
  | { space: string; snapshot: null };

export interface StrayLogRow {
  space: string;
  snapshot: string;
  updated_at: number;
}

export interface AnswerPartRow {
  space: string;
  answer_key: string;
  part: number;
  parts: number;
  turn_id: string | null;
  thread: string | null;
  text: string;
  saved_at: number;
}

export interface EventRow {
  /** The event's turnId, or `space:<space>` for events outside a turn. */
  stream: string;
  seq: number | null;
  type: string;
  space: string;
  at: number | null;
  json: string;
}

export interface CardRow {
  record: string;
  claim: string | null;
}

export interface RefRow {
  message_id: string;
  thread_id: string | null;
}

/** The key of an event's run record: its turn, or its space for events outside a turn. */
export const streamOf = (event: RunEvent): string => event.turnId ?? `space:${event.space}`;

export const fromLiveRow = (row: LiveTurnRow): PersistedTurn => ({
  turnId: row.turn_id,
  space: row.space,
  snapshot: JSON.parse(row.snapshot),
  updatedAt: row.updated_at,
});

export function serializeTurn(prefix: string, turn: PersistedTurn): SerializedTurn {
  let snapshot: string | undefined;
  try {
    snapshot = JSON.stringify(turn.snapshot);
  } catch (error) {
    throw new TypeError(
      `${prefix} the snapshot of turn ${turn.turnId} is not JSON: ${(error as Error).message}`,
    );
  }
  if (typeof snapshot !== 'string')
    throw new TypeError(`${prefix} the snapshot of turn ${turn.turnId} is not JSON`);
  return { turnId: turn.turnId, space: turn.space, snapshot, updatedAt: turn.updatedAt };
}

export function serializeStrayLog(
  prefix: string,
  space: string,
  log: PersistedStrayLog | null,
): SerializedStrayLog {
  if (log === null) return { space, snapshot: null };
  let snapshot: string | undefined;
  try {
    snapshot = JSON.stringify(log.snapshot);
  } catch (error) {
    throw new TypeError(`${prefix} the stray log of space ${space} is not JSON: ${(error as Error).message}`);
  }
  if (typeof snapshot !== 'string')
    throw new TypeError(`${prefix} the stray log of space ${space} is not JSON`);
  return { space, snapshot, updatedAt: log.updatedAt };
}

export function serializeEvent(prefix: string, event: RunEvent): EventRow {
  const json = JSON.stringify(event);
  if (typeof json !== 'string') throw new TypeError(`${prefix} the ${event.type} event is not JSON`);
  return {
    stream: streamOf(event),
    seq: event.seq ?? null,
    type: event.type,
    space: event.space,
    at: event.at ?? null,
    json,
  };
}

export function fromSummaryRow(row: SummaryRow): TurnSummary {
  return {
    turnId: row.turn_id,
    space: row.space,
    state: row.state,
    outcome: row.outcome,
    degraded: row.degraded === 1,
    logMessages: JSON.parse(row.log_messages),
    entries: row.entries,
    deadLetters: row.dead_letters,
    endedAt: row.ended_at,
  };
}

/** A kept answer part, read back. */
export const answerPartOf = (row: AnswerPartRow): PendingAnswerPart => ({
  space: row.space,
  key: row.answer_key,
  part: row.part,
  parts: row.parts,
  ...(row.turn_id !== null ? { turnId: row.turn_id } : {}),
  ...(row.thread !== null ? { thread: JSON.parse(row.thread) } : {}),
  text: row.text,
  savedAt: row.saved_at,
});

export const refOf = (row: RefRow): PostedMessage => ({
  messageId: row.message_id,
  ...(row.thread_id !== null ? { threadId: row.thread_id } : {}),
});

export function nonNegative(what: string, limit: number): number {
  if (!Number.isInteger(limit) || limit < 0) {
    throw new RangeError(`${what}: limit must be a non-negative integer, got ${String(limit)}`);
  }
  return limit;
}
