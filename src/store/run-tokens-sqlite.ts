/**
 * The run page's tokens in the SQLite store (migration 8), and the deletion
 * of finished runs past `runs.retentionDays`: their run record, summary and
 * tokens go in one transaction.
 */
import type { Database } from 'better-sqlite3';

export interface SqliteRunTokens {
  saveRunToken(turnId: string, tokenHash: string, createdAt: number): void;
  runTokenHashes(turnId: string): string[];
  forgetRunsEndedBefore(endedBefore: number, max: number): number;
}

export function createSqliteRunTokens(db: Database): SqliteRunTokens {
  const s = {
    insert: db.prepare('INSERT OR IGNORE INTO run_tokens (turn_id, token_hash, created_at) VALUES (?, ?, ?)'),
    hashes: db.prepare('SELECT token_hash FROM run_tokens WHERE turn_id = ?'),
    ended: db.prepare('SELECT turn_id FROM turn_summaries WHERE ended_at < ? ORDER BY ended_at LIMIT ?'),
    deleteEvents: db.prepare('DELETE FROM events WHERE turn_id = ?'),
    deleteStream: db.prepare('DELETE FROM event_streams WHERE turn_id = ?'),
    deleteSummary: db.prepare('DELETE FROM turn_summaries WHERE turn_id = ?'),
    deleteTokens: db.prepare('DELETE FROM run_tokens WHERE turn_id = ?'),
  };
  const forget = db.transaction((endedBefore: number, max: number): number => {
    const rows = s.ended.all(endedBefore, max) as { turn_id: string }[];
    for (const { turn_id: turnId } of rows) {
      s.deleteEvents.run(turnId);
      s.deleteStream.run(turnId);
      s.deleteSummary.run(turnId);
      s.deleteTokens.run(turnId);
    }
    return rows.length;
  });
  return {
    saveRunToken: (turnId, tokenHash, createdAt) => void s.insert.run(turnId, tokenHash, createdAt),
    runTokenHashes: (turnId) =>
      (s.hashes.all(turnId) as { token_hash: string }[]).map((row) => row.token_hash),
    forgetRunsEndedBefore: (endedBefore, max) => forget(endedBefore, max),
  };
}
