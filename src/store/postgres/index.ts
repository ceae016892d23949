/**
 * The Postgres store and its pool (issue 23.1), loaded only when `store.url`
 * is set (a dynamic import), so `import 'turnlog'` does not load `pg`.
 */
export {
  migratePostgres,
  POSTGRES_MIGRATIONS,
  type PostgresMigration,
  type PostgresMigrationResult,
  postgresSchemaVersion,
} from './migrations.js';
export {
  assertPostgresUrl,
  DEFAULT_POSTGRES_SCHEMA,
  openPostgresPool,
  type PostgresPoolOptions,
  postgresLabel,
  redactPostgresUrl,
} from './pool.js';
export {
  createPostgresStore,
  openPostgresStore,
  type PostgresStore,
  type PostgresStoreOptions,
} from './store.js';
export type { BeforeWrite } from './writes.js';
