/**
 * What the runtime knows of its store writes: each is fire-and-forget for
 * the actors (a store that fails must not throw into the actor system), and
 * the first failure since the last `sync()` is kept so `sync()` reports it
 * (what was written may not be durable). A failed read is only logged.
 */
import type { RuntimeLogger } from './types.js';

export interface Durability {
  /** Watches a write's result (a promise, or nothing for a store that answers at once). */
  persist(what: string, result: unknown): void;
  /** Runs a write that may throw at once (a store closed under a shutdown): kept as a failure, never thrown. */
  attempt(what: string, write: () => unknown): void;
  /** Records a failed write: logged, and reported by the next `takeFailure`. */
  writeFailed(what: string): (error: unknown) => void;
  /** Logs a failed read: it makes nothing less durable. */
  readFailed(what: string): (error: unknown) => void;
  /** The first failure since the last call, and forgets it. */
  takeFailure(): string | undefined;
}

export const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

export function createDurability(logger: RuntimeLogger): Durability {
  let unsynced: string | undefined;
  const readFailed = (what: string) => (error: unknown) =>
    logger.error(`store: ${what} failed`, { error: messageOf(error) });
  const writeFailed = (what: string) => (error: unknown) => {
    unsynced ??= `store: ${what} failed: ${messageOf(error)}`;
    readFailed(what)(error);
  };
  const persist = (what: string, result: unknown) => {
    if (result instanceof Promise) result.catch(writeFailed(what));
  };
  return {
    persist,
    attempt(what, write) {
      try {
        persist(what, write());
      } catch (error) {
        writeFailed(what)(error);
      }
    },
    writeFailed,
    readFailed,
    takeFailure() {
      const failure = unsynced;
      unsynced = undefined;
      return failure;
    },
  };
}
