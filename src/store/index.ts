/** The persistence seam and its stores: in memory (tests, default) and SQLite (`turnlog serve`). */
export { createMemoryStore, MEMORY_STORE_LIMITS, type MemoryStoreLimits } from './memory.js';
export {
  type Migration,
  type MigrationResult,
  migrate,
  SQLITE_MIGRATIONS,
  schemaVersion,
} from './migrations.js';
export { createSqliteStore, type SqliteStore, type SqliteStoreOptions, type StoreLimits } from './sqlite.js';
export type * from './store.js';
