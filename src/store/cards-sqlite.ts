/**
 * The cards of a turn in the SQLite store (the `cards_by_turn` index of
 * migration 7): when a turn ends, the ones nobody decided lose their buttons.
 */
import type { Database } from 'better-sqlite3';
import type { CardRecord, StoredCard } from './store.js';

export function createSqliteOpenCards(db: Database): (turnId: string) => StoredCard[] {
  const open = db.prepare(
    "SELECT record FROM cards WHERE json_extract(record, '$.turnId') = ? AND claim IS NULL ORDER BY id",
  );
  return (turnId) =>
    (open.all(turnId) as { record: string }[]).map((row) => JSON.parse(row.record) as CardRecord);
}
