/**
 * The ingest's work, one request at a time, in arrival order, with the event
 * loop let through between requests.
 *
 * A request's ingest (parse, redact, sequence, apply) is synchronous. Run
 * straight from the socket callbacks, the requests of every busy connection
 * are handled back to back in one turn of the event loop, which then waits
 * for all of them before it accepts a new connection or reads one that has
 * just sent its first request: under 50 busy senders, a connection that
 * joined late waited seconds for its first 202 while the others waited a
 * tenth of that (docs/benchmarks.md). Queued here, each request waits behind
 * the requests that arrived before it, whichever connection they came on,
 * and new connections are accepted and read between any two of them.
 */
export interface FairQueue {
  /** Runs `task` after every task queued before it, each in a later turn of the event loop. */
  run<T>(task: () => T): Promise<T>;
  /** Tasks queued and not yet run. */
  readonly waiting: number;
}

export function createFairQueue(
  /** Lets the event loop through (I/O, new connections) and then calls `next`. Default `setImmediate`. */
  yieldToLoop: (next: () => void) => void = (next) => void setImmediate(next),
): FairQueue {
  const tasks: (() => void)[] = [];
  let scheduled = false;

  const runNext = () => {
    scheduled = false;
    const task = tasks.shift();
    task?.();
    schedule();
  };
  const schedule = () => {
    if (scheduled || tasks.length === 0) return;
    scheduled = true;
    yieldToLoop(runNext);
  };

  return {
    run(task) {
      return new Promise((resolve, reject) => {
        tasks.push(() => {
          try {
            resolve(task());
          } catch (error) {
            reject(error);
          }
        });
        schedule();
      });
    },
    get waiting() {
      return tasks.length;
    },
  };
}
