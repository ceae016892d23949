/**
 * Opening a Postgres connection pool from a `store.url` (issue 23.1): the one
 * place turnlog makes a `pg.Pool`, so the store and the cluster's leases
 * share its settings. Every connection of the pool works in one schema
 * (`search_path`, default `turnlog`), so turnlog's tables never meet an
 * application's own in `public`; int8 columns read back as numbers (epoch ms
 * and cursors stay far below 2^53). Loaded only when `store.url` is set:
 * `import 'turnlog'` does not load `pg`.
 */
import pg from 'pg';

/** The schema turnlog's tables live in unless told otherwise. */
export const DEFAULT_POSTGRES_SCHEMA = 'turnlog';

export interface PostgresPoolOptions {
  /** The schema the pool's connections work in (created by the store's migrations). Default `turnlog`. */
  schema?: string;
  /** Most connections open at once. Default 10. */
  max?: number;
  /** How long getting a connection may take before it fails. Default 10000 ms. */
  connectionTimeoutMs?: number;
  /** `application_name`, seen in `pg_stat_activity`. Default `turnlog`. */
  applicationName?: string;
  /** An idle connection that failed (the server went away): the pool drops it. Default: logged to stderr. */
  onIdleError?: (error: Error) => void;
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;
const INT8_OID = 20;

/** `postgres://user@host:port/db` with any password left out: safe to print. */
export function redactPostgresUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.password = '';
    return parsed.toString();
  } catch {
    return '(an unparseable URL)';
  }
}

/** How errors name the store, e.g. `postgres store "postgres://turnlog@db:5432/turnlog"`. */
export const postgresLabel = (url: string): string => `postgres store "${redactPostgresUrl(url)}"`;

/** Checks a `store.url`: a clear error naming what is wrong, never the password. */
export function assertPostgresUrl(url: unknown): asserts url is string {
  if (typeof url !== 'string' || url.length === 0) {
    throw new TypeError('store.url must be a postgres://user@host:port/db URL');
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TypeError('store.url is not a URL: expected postgres://user@host:port/db');
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    throw new TypeError(
      `store.url must start with postgres:// or postgresql://, got ${JSON.stringify(`${parsed.protocol}//`)}`,
    );
  }
}

export function assertSchemaName(schema: string): void {
  if (!SCHEMA_NAME.test(schema)) {
    throw new TypeError(
      `postgres schema must be a lower-case identifier (letters, digits, _; at most 63), got ${JSON.stringify(schema)}`,
    );
  }
}

/**
 * A pool on `url` whose connections use `schema`. The caller ends it
 * (`pool.end()`); the store ends the pool it opened itself.
 */
export function openPostgresPool(url: string, options: PostgresPoolOptions = {}): pg.Pool {
  assertPostgresUrl(url);
  const schema = options.schema ?? DEFAULT_POSTGRES_SCHEMA;
  assertSchemaName(schema);
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 10,
    connectionTimeoutMillis: options.connectionTimeoutMs ?? 10_000,
    application_name: options.applicationName ?? 'turnlog',
    options: `-c search_path=${schema}`,
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === INT8_OID && format !== 'binary'
          ? (value: string) => Number(value)
          : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
    },
  });
  const onIdleError =
    options.onIdleError ??
    ((error: Error) =>
      console.error(`turnlog: ${postgresLabel(url)}: idle connection failed: ${error.message}`));
  // Without a listener, a server that goes away would crash the process through an idle client.
  // After end(), a connection still closing may hear the server's goodbye: nothing to report.
  pool.on('error', (error) => {
    if (!pool.ending) onIdleError(error);
  });
  return pool;
}
