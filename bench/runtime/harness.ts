/** A runtime on a simulated clock, driven by the benchmark: ingest, advance, settle, drain. */
import type { TurnlogConfigInput } from '../../src/config.js';
import { builtinPlatforms } from '../../src/platforms/all.js';
import { createRuntime, type Runtime, type RuntimeOptions } from '../../src/runtime.js';
import { createMemoryStore } from '../../src/store/memory.js';
import type { TurnlogStore } from '../../src/store/store.js';
import type { ChatSurface } from '../../src/surfaces/surface.js';
import { HeapClock } from './heap-clock.js';
import { type CountingSurface, countingSurface } from './surfaces.js';

export interface BenchRuntime {
  runtime: Runtime;
  clock: HeapClock;
  surface: CountingSurface;
  store: TurnlogStore;
  /** Turns that have ended (their summary reached the store). */
  readonly finished: number;
  /** Warnings and errors the runtime logged. */
  readonly warnings: string[];
  /** Ingests one event; a refused one is a bug in the workload, so it throws. */
  ingest(event: Record<string, unknown>): void;
  /**
   * Ingests events as one batch (one `POST /v1/events` body): `runtime.ingestBatch`,
   * or one `ingest` each on a runtime without it (the baseline).
   */
  ingestBatch(events: Record<string, unknown>[]): void;
  /** Moves the clock forward, then runs promise continuations until no surface call is in flight. */
  advance(ms: number): Promise<void>;
  /** Events ingested so far. */
  readonly ingested: number;
  /**
   * Runs the clock from timer to timer until nothing is pending (no timer, no
   * surface call); false when `stop` said to give up first.
   */
  drain(stop?: () => boolean): Promise<boolean>;
}

const immediate = () => new Promise<void>((resolve) => setImmediate(resolve));

export async function startBenchRuntime(
  surface: ChatSurface,
  opts: {
    clock?: HeapClock;
    store?: TurnlogStore;
    config?: TurnlogConfigInput;
    /** Another build of the runtime (bench/runtime/baseline.ts); default the current one. */
    createRuntime?: typeof createRuntime;
    /** The `platforms` that build takes (`Baseline.platforms`); default the current built-in registry. */
    platforms?: unknown;
  } = {},
): Promise<BenchRuntime> {
  const clock = opts.clock ?? new HeapClock();
  const counted = countingSurface(surface);
  const inner = opts.store ?? createMemoryStore();
  let finished = 0;
  let ingested = 0;
  const store: TurnlogStore = {
    ...inner,
    finishTurn: (summary) => {
      finished += 1;
      return inner.finishTurn(summary);
    },
  };
  const warnings: string[] = [];
  const runtime = (opts.createRuntime ?? createRuntime)({
    platforms: (opts.platforms ?? builtinPlatforms) as RuntimeOptions['platforms'],
    config: opts.config ?? {},
    surfaces: { [surface.platform]: counted },
    store,
    clock,
    logger: { warn: (m) => warnings.push(m), error: (m) => warnings.push(`error: ${m}`) },
  });
  await runtime.ready;

  const settle = async () => {
    do await immediate();
    while (counted.inFlight > 0);
  };
  const advance = async (ms: number) => {
    clock.increment(ms);
    await settle();
  };

  return {
    runtime,
    clock,
    surface: counted,
    store,
    get finished() {
      return finished;
    },
    warnings,
    get ingested() {
      return ingested;
    },
    ingest(event) {
      const result = runtime.ingest(event);
      if (!result.ok) throw new Error(`runtime bench: event refused: ${result.error}`);
      ingested += 1;
    },
    ingestBatch(events) {
      const batch = (runtime as Partial<Pick<Runtime, 'ingestBatch'>>).ingestBatch;
      const results = batch ? batch.call(runtime, events) : events.map((event) => runtime.ingest(event));
      for (const result of results) {
        if (!result.ok) throw new Error(`runtime bench: event refused: ${result.error}`);
      }
      ingested += results.length;
    },
    advance,
    async drain(stop = () => false) {
      await settle();
      for (let next = clock.nextDeadline(); next !== undefined; next = clock.nextDeadline()) {
        if (stop()) return false;
        await advance(next - clock.now());
      }
      return true;
    },
  };
}
