/**
 * The hot writes of the store, committed once per event-loop tick. The
 * runtime saves a turn on every transition (often several times in one tick:
 * an NDJSON batch applies many events at once) and appends every accepted
 * event to the run record; a commit per call costs far more than the row
 * (bench/store.bench.ts). The buffer keeps the latest snapshot per turn (and
 * per space's stray log, per pending answer part) and the events in order, and writes them together in one transaction on the
 * next `setImmediate`, so snapshots and run record always commit together.
 *
 * Crash window: what was written during the current tick. A process that
 * dies there restarts from the previous tick's snapshots and run record, as
 * if it had died one tick earlier.
 */
import type { PendingAnswerPart, PersistedStrayLog, PersistedTurn } from './store.js';

/** Which answer part a buffered write is about. */
export interface AnswerPartRef {
  space: string;
  key: string;
  part: number;
}

export interface PendingWrites<E> {
  turns: PersistedTurn[];
  events: E[];
  /** The latest of each space's stray log; null: forget it. */
  strayLogs: [space: string, log: PersistedStrayLog | null][];
  /** The latest write of each answer part, in the order first written; null: forget it. */
  answerParts: [ref: AnswerPartRef, part: PendingAnswerPart | null][];
}

export interface WriteBehind<E> {
  putTurn(turn: PersistedTurn): void;
  appendEvent(event: E): void;
  /** A space's stray log (null forgets it): its latest write wins. */
  putStrayLog(space: string, log: PersistedStrayLog | null): void;
  /** An answer part to keep (null forgets it): its latest write wins. */
  putAnswerPart(ref: AnswerPartRef, part: PendingAnswerPart | null): void;
  /** Writes everything pending now; throws what the write threw (and keeps it pending). */
  flush(): void;
  /** Drops the scheduled write; pending writes are left to an explicit `flush`. */
  cancel(): void;
}

export function createWriteBehind<E>(
  /** Writes a batch in one transaction, or throws without writing any of it. */
  write: (batch: PendingWrites<E>) => void,
  /** A background write that failed; its writes stay pending for the next one. */
  onError: (error: Error) => void,
): WriteBehind<E> {
  const turns = new Map<string, PersistedTurn>();
  const strayLogs = new Map<string, PersistedStrayLog | null>();
  const answerParts = new Map<string, [AnswerPartRef, PendingAnswerPart | null]>();
  let events: E[] = [];
  let scheduled: NodeJS.Immediate | undefined;

  const cancel = () => {
    if (scheduled) clearImmediate(scheduled);
    scheduled = undefined;
  };
  const flush = () => {
    cancel();
    if (turns.size === 0 && events.length === 0 && strayLogs.size === 0 && answerParts.size === 0) return;
    // write() is synchronous, so nothing can be added between the write and the clear.
    write({
      turns: [...turns.values()],
      events,
      strayLogs: [...strayLogs],
      answerParts: [...answerParts.values()],
    });
    turns.clear();
    strayLogs.clear();
    answerParts.clear();
    events = [];
  };
  const schedule = () => {
    scheduled ??= setImmediate(() => {
      try {
        flush();
      } catch (error) {
        onError(error as Error);
      }
    });
  };

  return {
    putTurn(turn) {
      turns.set(turn.turnId, turn);
      schedule();
    },
    appendEvent(event) {
      events.push(event);
      schedule();
    },
    putStrayLog(space, log) {
      strayLogs.set(space, log);
      schedule();
    },
    putAnswerPart(ref, part) {
      answerParts.set(`${ref.space}\u0000${ref.key}\u0000${ref.part}`, [ref, part]);
      schedule();
    },
    flush,
    cancel,
  };
}
