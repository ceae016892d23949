/**
 * `startServe`: the daemon behind `turnlog serve` (docs/http-api.md–§3). It
 * loads the config (secrets from `"env:NAME"`), builds the surfaces, opens
 * the store, starts the runtime and then the ingest API; `close()` shuts it
 * down in that order reversed, within `ingest.shutdownTimeoutMs`.
 */
import type { Logger } from 'pino';
import { type Clock, systemClock } from '../clock.js';
import { ConfigError, loadConfig, type TurnlogConfig } from '../config.js';
import type { PlatformDescriptor } from '../registry/descriptor.js';
import { createRuntime, type Runtime } from '../runtime.js';
import type { TurnlogStore } from '../store/store.js';
import type { ChatSurface } from '../surfaces/surface.js';
import { startIngestServer } from './http.js';
import { clusterLoggerOf, createServeLogger, runtimeLoggerOf } from './logger.js';
import { checkPlatformsAtStartup, servedPlatforms } from './platforms.js';
import { createRunLinks, createRunPage, type RunPage } from './run-page/index.js';
import type { ServeShutdown } from './signals.js';
import { describeServeStore, openServeStore } from './store.js';
import { createIntakes, createSurfaces } from './surfaces.js';

export { createBearerCheck, isLoopbackHost } from './auth.js';
export { type IngestServer, type IngestServerOptions, startIngestServer } from './http.js';
export { createServeLogger } from './logger.js';
export { type ServeShutdown, type SignalDeps, shutdownOnSignal } from './signals.js';
export { createSurfaces } from './surfaces.js';

export interface ServeOptions {
  /** The config file's content (validated here; `"env:NAME"` secrets read from `env`). */
  config: unknown;
  /** Default: built from `config.platforms`. */
  surfaces?: Partial<Record<string, ChatSurface>>;
  /**
   * Platforms besides the built-ins, whose `platforms.<id>` config builds their
   * surfaces. A built-in platform is loaded (its folder and SDK imported) only
   * when `config.platforms` or `surfaces` names it.
   */
  platforms?: readonly PlatformDescriptor[];
  /**
   * Default: Postgres at `config.store.url` when set, else SQLite at `config.store.path`; closed by
   * `close()`. A given store is left open for its owner.
   */
  store?: TurnlogStore;
  /** Default: the system clock. It also times the shutdown bound (`ingest.shutdownTimeoutMs`). */
  clock?: Clock;
  /** Default: pino at `config.log.level` on stderr. */
  logger?: Logger;
  /** Where `"env:NAME"` secrets are read. Default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
}

export interface Serve {
  /** The ingest API's origin, `http://127.0.0.1:8787`. */
  readonly url: string;
  readonly runtime: Runtime;
  readonly config: TurnlogConfig;
  readonly logger: Logger;
  /**
   * Stops accepting, lets requests in flight finish (for half the time at
   * most), flushes every live turn's pending frame, closes the store.
   * Bounded by `ingest.shutdownTimeoutMs`; calling it again returns the same promise.
   */
  close(): Promise<ServeShutdown>;
}

export async function startServe(options: ServeOptions): Promise<Serve> {
  const registry = await servedPlatforms(options.config, options.surfaces, options.platforms);
  const config = loadConfig(options.config, options.env, registry);
  const logger = options.logger ?? createServeLogger(config.log.level);
  const surfaces =
    options.surfaces ??
    createSurfaces(config.platforms, registry, {
      now: () => (options.clock ?? systemClock).now(),
      ...(options.env ? { env: options.env } : {}),
    });
  // A credential the platform refuses (a Slack token) is a start-up error naming its key, not a turn failing later.
  if (options.surfaces === undefined) await checkPlatformsAtStartup(config, registry);
  const clock = options.clock ?? systemClock;
  // Several instances (issue 23, docs/http-api.md (several instances)): a Postgres store.url runs this process as one of a
  // cluster. Loaded only then, so a SQLite serve (and `import('turnlog')`) loads no `pg`.
  let runLinkOf: ((turnId: string) => string | undefined) | undefined;
  const cluster =
    options.store === undefined && config.store.url !== undefined
      ? await (await import('../cluster/index.js'))
          .startCluster({
            url: config.store.url,
            config,
            surfaces,
            platforms: registry,
            clock,
            logger: clusterLoggerOf(logger),
            runLink: (turnId) => runLinkOf?.(turnId),
          })
          .catch((error: unknown) => {
            // The store's errors name the URL without its password.
            throw new ConfigError(`store.url: ${(error as Error).message}`);
          })
      : undefined;
  const ownStore: Pick<TurnlogStore, 'close'> | undefined =
    cluster ?? (options.store === undefined ? await openServeStore(config.store) : undefined);
  const store = options.store ?? cluster?.store ?? (ownStore as TurnlogStore);

  const { publicUrl, retentionDays } = config.runs;
  const runLinks =
    publicUrl === undefined
      ? undefined
      : createRunLinks({
          publicUrl,
          retentionDays,
          store,
          now: () => clock.now(),
          // The error only: the token never reaches a log.
          onError: (error) => logger.error({ error: String(error) }, 'run page: saving a token failed'),
        });
  if (runLinks) runLinkOf = (turnId) => runLinks.urlFor(turnId);
  let runtime: Runtime;
  try {
    runtime =
      cluster?.runtime ??
      createRuntime({
        config,
        surfaces,
        store,
        clock,
        ...(runLinks ? { runLink: (turnId: string) => runLinks.urlFor(turnId) } : {}),
        logger: runtimeLoggerOf(logger),
        platforms: registry,
      });
  } catch (error) {
    await ownStore?.close();
    throw error;
  }

  let server: Awaited<ReturnType<typeof startIngestServer>>;
  const runPage: RunPage | undefined =
    runLinks === undefined
      ? undefined
      : createRunPage({
          links: runLinks,
          retentionDays,
          store,
          runtime,
          clock,
          logger,
        });
  const intakes = createIntakes(
    config.platforms,
    registry,
    {
      sink: runtime,
      now: () => clock.now(),
      logger: {
        info: (message, fields) => logger.info(fields ?? {}, message),
        warn: (message, fields) => logger.warn(fields ?? {}, message),
      },
      ...(options.env ? { env: options.env } : {}),
    },
    (record) => store.deadLetter(record),
  );
  const stopIntakes = () =>
    Promise.allSettled(Object.values(intakes).map((intake) => intake.stop?.())).then(() => undefined);
  try {
    await runtime.ready;
    for (const intake of Object.values(intakes)) await intake.start?.();
    server = await startIngestServer({
      runtime,
      platforms: registry,
      intakes,
      surfaces,
      host: config.ingest.host,
      port: config.ingest.port,
      // The run page is reached at runs.publicUrl: its name is one this serve answers to.
      allowedHosts: [
        ...config.ingest.allowedHosts,
        ...(config.runs.publicUrl ? [new URL(config.runs.publicUrl).host] : []),
      ],
      ...(config.ingest.token === undefined ? {} : { token: config.ingest.token }),
      bodyLimitBytes: config.ingest.bodyLimitBytes,
      maxPendingBytes: config.ingest.maxPendingBytes,
      headersTimeoutMs: config.ingest.headersTimeoutMs,
      bodyTimeoutMs: config.ingest.bodyTimeoutMs,
      deadLetter: (record) => store.deadLetter(record),
      logger,
      now: () => clock.now(),
      ...(runPage ? { runPage: runPage.deps } : {}),
      ...(cluster ? { cluster: () => cluster.runtime.health() } : {}),
      budgetMode: () => runtime.budgetMode(),
    });
  } catch (error) {
    runPage?.stop();
    await stopIntakes();
    await runtime.stop();
    await ownStore?.close();
    throw error;
  }

  logger.info(
    {
      url: server.url,
      auth: config.ingest.token === undefined ? 'none (loopback)' : 'bearer',
      store: options.store !== undefined ? 'given' : describeServeStore(config.store),
      ...(cluster ? { instanceId: cluster.runtime.instanceId } : {}),
      surfaces: Object.keys(surfaces),
      intakes: Object.keys(intakes),
    },
    'listening',
  );

  let closing: Promise<ServeShutdown> | undefined;
  const shutdown = async (): Promise<ServeShutdown> => {
    const timeoutMs = config.ingest.shutdownTimeoutMs;
    const started = clock.now();
    logger.info({ timeoutMs }, 'stopping: no new connections');
    runPage?.stop();
    // Requests in flight get half the time: flushing the live turns matters more than a slow client.
    const drained = await settlesWithin(
      server.close().then(() => true),
      timeoutMs / 2,
      clock,
    );
    if (drained === undefined) {
      server.closeAllConnections();
      logger.warn('dropped the requests still in flight');
    }
    await settlesWithin(stopIntakes(), Math.max(0, timeoutMs - (clock.now() - started)), clock);
    const remainingMs = Math.max(0, timeoutMs - (clock.now() - started));
    logger.info({ remainingMs }, 'flushing live turns');
    // Every live turn's pending frame goes out through its terminal slot before the actors stop.
    const stopping = runtime.stop({ flush: true, timeoutMs: remainingMs }).catch((error: unknown) => {
      logger.error(
        { error: error instanceof Error ? error.message : String(error) },
        'stopping the runtime failed',
      );
      return { flushed: false };
    });
    const stopped = await settlesWithin(stopping, remainingMs, clock);
    if (stopped === undefined) {
      runtime.actor.stop();
      logger.error({ timeoutMs }, 'shutdown timed out; live turns stay persisted for the next start');
    }
    await ownStore?.close();
    const flushed = stopped?.flushed === true;
    logger.info({ flushed }, 'stopped');
    return { flushed };
  };

  return {
    url: server.url,
    runtime,
    config,
    logger,
    close() {
      closing ??= shutdown();
      return closing;
    },
  };
}

/** What `work` resolved with, or undefined when `ms` ran out on `clock` first. */
async function settlesWithin<T>(work: Promise<T>, ms: number, clock: Clock): Promise<T | undefined> {
  let timer: unknown;
  const timeout = new Promise<undefined>((resolve) => {
    timer = clock.setTimeout(() => resolve(undefined), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clock.clearTimeout(timer);
  }
}
