/**
 * SIGTERM/SIGINT for `turnlog serve`: the first signal shuts down gracefully
 * (bounded); a second one, while that runs, exits at once with code 1.
 */
import type { Logger } from 'pino';

/** How a serve shutdown went (here so index.ts and this module do not import each other). */
export interface ServeShutdown {
  /** Every live turn's pending frame went out before the actors stopped; false: it stays in the store for the next start. */
  flushed: boolean;
}

export interface SignalDeps {
  /** Registers a handler for the next SIGINT/SIGTERM (`CliIo.onSignal`). */
  onSignal(handler: () => void): void;
  /** Ends the process now (`process.exit`). */
  exit(code: number): void;
  logger: Logger;
}

/**
 * Resolves with the exit code once the first signal's shutdown is over:
 * 0 when every live turn was flushed, 1 when that timed out or failed.
 */
export function shutdownOnSignal(
  serve: { close(): Promise<ServeShutdown> },
  deps: SignalDeps,
): Promise<number> {
  return new Promise((resolve) => {
    let signalled = false;
    const onSignal = () => {
      if (signalled) {
        deps.logger.warn('second signal: exiting without waiting for the shutdown');
        deps.exit(1);
        return;
      }
      signalled = true;
      deps.onSignal(onSignal);
      serve.close().then(
        ({ flushed }) => resolve(flushed ? 0 : 1),
        (error: unknown) => {
          deps.logger.error(
            { error: error instanceof Error ? error.message : String(error) },
            'shutdown failed',
          );
          resolve(1);
        },
      );
    };
    deps.onSignal(onSignal);
  });
}
