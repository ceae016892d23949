/** The store `turnlog serve` persists to: SQLite at `store.path` (a file, or `:memory:`). */
import { ConfigError } from '../config.js';
import { createSqliteStore, type SqliteStore } from '../store/sqlite.js';

export function openServeStore(path: string): SqliteStore {
  try {
    return createSqliteStore({ path });
  } catch (error) {
    throw new ConfigError(
      `store.path: cannot open ${JSON.stringify(path)}: ${(error as Error).message} (the directory must exist)`,
    );
  }
}
