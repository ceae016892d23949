/**
 * The order of the Postgres store's writes (issue 23.1). The runtime fires
 * its writes and does not wait (src/runtime/durability.ts), so the store
 * keeps their order itself: every write runs in its own transaction, one
 * after the other, in the order of the calls; a read first waits for the
 * writes called before it, so it sees them (its own query then runs on any
 * pooled connection). The hot writes (turn snapshots, the run record, stray
 * logs, answer parts) are buffered as in SQLite (../write-behind.ts) and
 * committed together once per event-loop tick.
 */
import type { Pool, PoolClient } from 'pg';
import type { PendingAnswerPart, PersistedStrayLog, PersistedTurn } from '../store.js';
import type { AnswerPartRef, PendingWrites } from '../write-behind.js';

/** Runs inside every write transaction before its statements; throwing aborts it (fencing hooks here). */
export type BeforeWrite = (client: PoolClient) => Promise<void>;

export interface WriteQueue {
  /** Runs `write` in a transaction after every write queued before it. */
  write<T>(what: string, write: (client: PoolClient) => Promise<T>): Promise<T>;
  /** Resolves once every write queued so far has settled (failed ones included). */
  settled(): Promise<void>;
}

export function createWriteQueue(
  pool: Pool,
  ready: Promise<void>,
  failure: (what: string, error: unknown) => Error,
  beforeWrite?: BeforeWrite,
): WriteQueue {
  let tail: Promise<unknown> = ready.catch(() => {});
  const settle = () => {};
  return {
    write<T>(what: string, write: (client: PoolClient) => Promise<T>): Promise<T> {
      const run = async (): Promise<T> => {
        await ready;
        const client = await pool.connect().catch((error: unknown) => {
          throw failure(what, error);
        });
        let broken: Error | undefined;
        // A connection that fails while checked out (between our queries) emits 'error': kept, not thrown.
        const onError = (error: Error) => {
          broken = error;
        };
        client.on('error', onError);
        try {
          await client.query('BEGIN');
          await beforeWrite?.(client);
          const result = await write(client);
          await client.query('COMMIT');
          return result;
        } catch (error) {
          await client.query('ROLLBACK').catch((rollback: Error) => {
            broken = rollback;
          });
          throw failure(what, error);
        } finally {
          client.off('error', onError);
          client.release(broken);
        }
      };
      const result = tail.then(run);
      tail = result.then(settle, settle);
      return result;
    },
    settled: () => tail.then(settle),
  };
}

/** The hot writes of one tick: the latest of each turn, stray log and answer part; the events in order. */
export interface PostgresBatchBuffer<E> {
  putTurn(turn: PersistedTurn): void;
  appendEvent(event: E): void;
  putStrayLog(space: string, log: PersistedStrayLog | null): void;
  putAnswerPart(ref: AnswerPartRef, part: PendingAnswerPart | null): void;
  /** Queues what is buffered now as one write; resolves when it committed. */
  flush(): Promise<void>;
  /** Drops the scheduled flush (what is buffered stays for an explicit flush). */
  cancel(): void;
}

export function createBatchBuffer<E>(
  queue: WriteQueue,
  /** Writes a batch inside the queue's transaction. */
  write: (client: PoolClient, batch: PendingWrites<E>) => Promise<void>,
  describe: (batch: PendingWrites<E>) => string,
  /** A background flush that failed; its writes are kept for the next one. */
  onError: (error: Error) => void,
): PostgresBatchBuffer<E> {
  /** Buffered values by key (`t:<turn>`, `s:<space>`, `p:<part>`), each with the generation of its write. */
  type Slot = { gen: number; kind: 't' | 's' | 'p'; value: unknown };
  let slots = new Map<string, Slot>();
  let events: E[] = [];
  let scheduled: NodeJS.Immediate | undefined;
  /** The newest write of each key: a failed batch gives back only what nothing newer replaced since. */
  const latest = new Map<string, number>();
  let generation = 0;
  const put = (kind: Slot['kind'], key: string, value: unknown) => {
    const k = `${kind}:${key}`;
    latest.set(k, ++generation);
    // A key written again keeps its place: first-save order (live turns, answer parts) is kept.
    slots.set(k, { gen: generation, kind, value });
    schedule();
  };

  const cancel = () => {
    if (scheduled) clearImmediate(scheduled);
    scheduled = undefined;
  };

  const flush = (): Promise<void> => {
    cancel();
    if (slots.size === 0 && events.length === 0) return queue.settled();
    const taken = { slots, events };
    slots = new Map();
    events = [];
    const batch: PendingWrites<E> = { turns: [], events: taken.events, strayLogs: [], answerParts: [] };
    for (const slot of taken.slots.values()) {
      if (slot.kind === 't') batch.turns.push(slot.value as PersistedTurn);
      else if (slot.kind === 's') batch.strayLogs.push(slot.value as [string, PersistedStrayLog | null]);
      else batch.answerParts.push(slot.value as [AnswerPartRef, PendingAnswerPart | null]);
    }
    return queue
      .write(describe(batch), (client) => write(client, batch))
      .catch((error: unknown) => {
        const kept = [...taken.slots].filter(([k, slot]) => !slots.has(k) && latest.get(k) === slot.gen);
        slots = new Map([...kept, ...slots]);
        events = [...taken.events, ...events];
        throw error;
      });
  };

  function schedule() {
    scheduled ??= setImmediate(() => {
      scheduled = undefined;
      flush().catch((error: unknown) => onError(error as Error));
    });
  }

  return {
    putTurn: (turn) => put('t', turn.turnId, turn),
    appendEvent(event) {
      events.push(event);
      schedule();
    },
    putStrayLog: (space, log) => put('s', space, [space, log]),
    putAnswerPart: (ref, part) => put('p', `${ref.space}\u0000${ref.key}\u0000${ref.part}`, [ref, part]),
    flush,
    cancel,
  };
}
