/**
 * Several `turnlog serve` processes on one Postgres (issue 23;
 * docs/http-api.md and the README's "Running several instances"). Loaded by serve only when `store.url` is a Postgres URL (a dynamic
 * import), so `import('turnlog')` and a SQLite serve load no `pg`.
 */
import pg from 'pg';
import { createPostgresStore, openPostgresStore, type PostgresStore } from '../store/postgres/index.js';
import { fenceCheck } from './fenced.js';
import { listenInbox } from './inbox.js';
import { type ClusterRuntime, type ClusterRuntimeOptions, createClusterRuntime } from './runtime.js';

export type { BudgetMode, ClusterHealth, ClusterRuntime } from './runtime.js';
export { defaultInstanceId } from './runtime.js';

export interface StartClusterOptions
  extends Omit<ClusterRuntimeOptions, 'pool' | 'listen' | 'store' | 'storeFor'> {
  /** The Postgres URL (`store.url`). */
  url: string;
}

export interface Cluster {
  runtime: ClusterRuntime;
  /** The shared store (the outbox, summaries, dead letters: what is not one space's). */
  store: PostgresStore;
  /** Stops the runtime (hands every space over), then closes the store and the connections. */
  close(): Promise<void>;
}

export async function startCluster(options: StartClusterOptions): Promise<Cluster> {
  const { url, logger } = options;
  const onWriteError = (error: Error) =>
    logger.warn('cluster: a store write failed', { error: error.message });
  const store = await openPostgresStore({ url, onWriteError });
  const runtime = createClusterRuntime({
    ...options,
    store,
    pool: store.pool,
    storeFor: (fence) =>
      createPostgresStore({ url, pool: store.pool, beforeWrite: fenceCheck(fence), onWriteError }),
    listen: (onSpace) => listenFor(url, onSpace, logger),
  });
  let closing: Promise<void> | undefined;
  return {
    runtime,
    store,
    close() {
      closing ??= (async () => {
        await runtime.stop().catch(() => undefined);
        await store.close();
      })();
      return closing;
    },
  };
}

/** A dedicated connection LISTENing for inbox rows, opened again after it drops. */
async function listenFor(
  url: string,
  onSpace: (space: string) => void,
  logger: StartClusterOptions['logger'],
): Promise<{ close(): Promise<void> }> {
  let closed = false;
  let client: pg.Client | undefined;
  const open = async (): Promise<void> => {
    const next = new pg.Client({ connectionString: url, application_name: 'turnlog-listen' });
    next.on('error', (error) => {
      logger.warn('cluster: the LISTEN connection failed; the poll carries on, reconnecting', {
        error: error.message,
      });
      next.end().catch(() => undefined);
      if (!closed) setTimeout(() => void open().catch(() => undefined), 500);
    });
    await next.connect();
    await listenInbox(next, onSpace);
    client = next;
  };
  await open();
  return {
    async close() {
      closed = true;
      await client?.end().catch(() => undefined);
    },
  };
}
