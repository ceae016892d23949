/**
 * Coalesces turn snapshot writes: the runtime saves a turn on every
 * transition, often several times in one event-loop tick (a burst of
 * ingested events), and only the last of them matters. The buffer keeps the
 * latest snapshot per turn and writes the dirty ones together once per tick
 * (`setImmediate`), in one transaction.
 *
 * Crash window: snapshots saved since the last write, i.e. during the
 * current tick. A process that dies there restarts from the previous tick's
 * snapshots, as if it had died one tick earlier.
 */
import type { PersistedTurn } from './store.js';

export interface TurnWriteBuffer {
  put(turn: PersistedTurn): void;
  get(turnId: string): PersistedTurn | undefined;
  /** The turn ended or was dropped: its pending snapshot must not be written any more. */
  forget(turnId: string): void;
  pending(): IterableIterator<PersistedTurn>;
  /** Writes every pending snapshot now; throws what the write threw (the snapshots stay pending). */
  flush(): void;
  /** Drops the scheduled write; pending snapshots are left to an explicit `flush`. */
  cancel(): void;
}

export function createTurnWriteBuffer(
  /** Writes a batch in one transaction, or throws without writing any of it. */
  write: (turns: PersistedTurn[]) => void,
  /** A write that failed in the background; the snapshots stay pending for the next one. */
  onError: (error: Error) => void,
): TurnWriteBuffer {
  const dirty = new Map<string, PersistedTurn>();
  let scheduled: NodeJS.Immediate | undefined;

  const flush = () => {
    if (scheduled) clearImmediate(scheduled);
    scheduled = undefined;
    if (dirty.size === 0) return;
    // write() is synchronous, so nothing can be put between the write and the clear.
    write([...dirty.values()]);
    dirty.clear();
  };

  const flushInBackground = () => {
    try {
      flush();
    } catch (error) {
      onError(error as Error);
    }
  };

  return {
    put(turn) {
      dirty.set(turn.turnId, turn);
      scheduled ??= setImmediate(flushInBackground);
    },
    get: (turnId) => dirty.get(turnId),
    forget: (turnId) => void dirty.delete(turnId),
    pending: () => dirty.values(),
    flush,
    cancel() {
      if (scheduled) clearImmediate(scheduled);
      scheduled = undefined;
    },
  };
}
