/**
 * The store `turnlog serve` persists to: SQLite at `store.path` (a file, or
 * `:memory:`), or the shared Postgres store at `store.url` (issue 23.1),
 * loaded only then (a dynamic import), so a serve on SQLite never loads `pg`.
 */
import { ConfigError, type TurnlogConfig } from '../config.js';
import { createSqliteStore } from '../store/sqlite.js';
import type { TurnlogStore } from '../store/store.js';

/** How the `listening` log line names the store: the path, or the URL without its password. */
export function describeServeStore(store: TurnlogConfig['store']): string {
  if (store.url === undefined) return store.path ?? ':memory:';
  try {
    const url = new URL(store.url);
    url.password = '';
    return url.toString();
  } catch {
    return 'postgres';
  }
}

export async function openServeStore(store: TurnlogConfig['store']): Promise<TurnlogStore> {
  if (store.url !== undefined) {
    if (!/^postgres(ql)?:\/\/[^/]/.test(store.url)) {
      throw new ConfigError('store.url: expected a postgres://user@host:port/db URL');
    }
    const { openPostgresStore } = await import('../store/postgres/store.js');
    try {
      return await openPostgresStore({ url: store.url });
    } catch (error) {
      // The store's errors name the URL without its password.
      throw new ConfigError(`store.url: ${(error as Error).message}`);
    }
  }
  try {
    return createSqliteStore({ path: store.path ?? ':memory:' });
  } catch (error) {
    throw new ConfigError(
      `store.path: cannot open ${JSON.stringify(store.path ?? ':memory:')}: ${(error as Error).message} (the directory must exist)`,
    );
  }
}
