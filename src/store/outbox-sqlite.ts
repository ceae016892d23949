/**
 * The actions outbox of the SQLite store (migration 3): one row per action
 * under an AUTOINCREMENT seq, so a cursor is never reused even once every
 * older row is pruned; the action itself as JSON, already redacted.
 */
import type { Database } from 'better-sqlite3';
import type { Action, NewAction } from '../actions/types.js';

export interface SqliteOutbox {
  appendAction(action: NewAction & { id: string }, keptAt: number): { action: Action; duplicate: boolean };
  actionsAfter(after: number, limit: number): Action[];
  pruneActions(keptBefore: number, max: number): number;
  actionCursor(consumer: string): string | undefined;
  saveActionCursor(consumer: string, cursor: string): void;
  actionsStoreId(): string;
  lastActionSeq(): number;
}

export function createSqliteOutbox(db: Database): SqliteOutbox {
  const s = {
    insert: db.prepare('INSERT INTO actions (id, kept_at, action) VALUES (?, ?, ?)'),
    byId: db.prepare('SELECT seq, action FROM actions WHERE id = ?'),
    after: db.prepare('SELECT seq, action FROM actions WHERE seq > ? ORDER BY seq LIMIT ?'),
    prune: db.prepare(
      'DELETE FROM actions WHERE seq IN (SELECT seq FROM actions WHERE kept_at < ? ORDER BY seq LIMIT ?)',
    ),
    cursor: db.prepare('SELECT cursor FROM action_cursors WHERE consumer = ?'),
    saveCursor: db.prepare(
      'INSERT INTO action_cursors (consumer, cursor) VALUES (?, ?) ON CONFLICT (consumer) DO UPDATE SET cursor = excluded.cursor',
    ),
    // AUTOINCREMENT keeps the highest seq ever given here, also once every row is pruned.
    lastSeq: db.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'actions'"),
  };
  // Made with the store (migration 7) and never changed: read once.
  const storeId = (
    db.prepare("SELECT value FROM store_meta WHERE key = 'store_id'").get() as { value: string }
  ).value;
  const fromRow = (row: { seq: number; action: string }): Action =>
    ({ ...(JSON.parse(row.action) as object), cursor: String(row.seq) }) as Action;

  const append = db.transaction(
    (action: NewAction & { id: string }, keptAt: number): { action: Action; duplicate: boolean } => {
      const known = s.byId.get(action.id) as { seq: number; action: string } | undefined;
      if (known) return { action: fromRow(known), duplicate: true };
      const json = JSON.stringify(action);
      const { lastInsertRowid } = s.insert.run(action.id, keptAt, json);
      return { action: fromRow({ seq: Number(lastInsertRowid), action: json }), duplicate: false };
    },
  );

  return {
    appendAction: (action, keptAt) => append(action, keptAt),
    actionsAfter: (after: number, limit: number): Action[] =>
      (s.after.all(after, limit) as { seq: number; action: string }[]).map(fromRow),
    pruneActions: (keptBefore: number, max: number): number => s.prune.run(keptBefore, max).changes,
    actionCursor: (consumer: string): string | undefined =>
      (s.cursor.get(consumer) as { cursor: string } | undefined)?.cursor,
    saveActionCursor: (consumer: string, cursor: string): void => void s.saveCursor.run(consumer, cursor),
    actionsStoreId: () => storeId,
    lastActionSeq: () => (s.lastSeq.get() as { seq: number } | undefined)?.seq ?? 0,
  };
}
