/**
 * The cost of persistence on the runtime's hot path: `saveTurn` is called on
 * every transition of every live turn and `appendEvent` on every accepted
 * event. Side by side in one run, the memory store as the floor, SQLite
 * committing every call (`writes: 'immediate'`), and SQLite committing the
 * latest snapshot per turn and the run record once per tick (`per-tick`, the
 * default), and the Postgres store (issue 23.1: `store.url`, a real
 * Postgres on loopback started for the run, per-tick writes like SQLite's,
 * each commit a round trip to the server):
 *
 * 1. `saveTurn` alone, with real persisted turn snapshots (small and large),
 *    one save per turn per tick and a burst of ten (an NDJSON batch applies
 *    many events in one tick).
 * 2. `appendEvent` alone.
 * 3. The whole runtime ingesting bursts of events for several turns, per event.
 *
 * Files live in a temp dir (WAL, synchronous=NORMAL, as in production).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createActor, SimulatedClock, type Snapshot } from 'xstate';
import type { RunEvent } from '../src/events/schema.js';
import { builtinPlatforms } from '../src/platforms/all.js';
import { provideTurnMachine } from '../src/runtime/turn.implementations.js';
import { createRuntime } from '../src/runtime.js';
import { createMemoryStore } from '../src/store/memory.js';
import { openPostgresStore } from '../src/store/postgres/store.js';
import { createSqliteStore } from '../src/store/sqlite.js';
import type { TurnlogStore } from '../src/store/store.js';
import { createMemorySurface } from '../src/testing/memory-surface.js';
import { startPostgres } from '../test/cluster/servers.js';

const SPACE = 'gchat:spaces/AAAA';
const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

interface StoreKind {
  name: string;
  /** A new, empty store (migrated before it is measured). */
  open(path: string): TurnlogStore | Promise<TurnlogStore>;
}
const KINDS: StoreKind[] = [
  { name: 'memory', open: () => createMemoryStore() },
  { name: 'sqlite immediate', open: (path) => createSqliteStore({ path, writes: 'immediate' }) },
  { name: 'sqlite per-tick', open: (path) => createSqliteStore({ path }) },
];

/** A turn actor's persisted snapshot after `entries` log entries (the shape the runtime saves). */
async function realSnapshot(entries: number): Promise<Snapshot<unknown>> {
  const clock = new SimulatedClock();
  const surface = createMemorySurface({ platform: 'gchat', now: () => clock.now() });
  const root = surface.inbound({ space: SPACE, text: 'please fix the build' });
  const actor = createActor(
    provideTurnMachine({ platforms: builtinPlatforms, surfaces: surface, budget: 'unlimited' }),
    {
      clock,
      input: {
        turnId: 'T1',
        space: SPACE,
        anchor: { rootMessageId: root.messageId, threadId: root.threadId },
        settings: {
          editDebounceMs: 1000,
          maxChars: 3500,
          strategy: 'rollover',
          editRetryMs: 500,
          terminalAttempts: 10,
        },
      },
    },
  ).start();
  for (let seq = 1; seq <= entries; seq++) {
    const summary = `tool: Read(src/module-${seq}/index.ts) → 120 lines`;
    actor.send({
      type: 'turn.log',
      entry: {
        timestamp: '12:00:00',
        kind: 'tool',
        summary,
        rawLength: summary.length,
        messageRole: 'tool_call',
        seq,
      },
    });
    clock.increment(1000);
    for (let i = 0; i < 3; i++) await tick();
  }
  const snapshot = actor.getPersistedSnapshot();
  actor.stop();
  return snapshot;
}

interface Cost {
  /** Elapsed time: includes waiting for the disk (and for other processes on a busy machine). */
  wallUs: number;
  /** CPU time of this process: what the work itself costs, less disturbed by a busy machine. */
  cpuUs: number;
}

async function timed(work: () => Promise<number>): Promise<Cost> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const operations = await work();
  const used = process.cpuUsage(cpu);
  return {
    wallUs: ((performance.now() - started) * 1000) / operations,
    cpuUs: (used.user + used.system) / operations,
  };
}

/** Per saveTurn, including the per-tick writes and the final flush. */
function measureSaves(
  store: TurnlogStore,
  snapshot: unknown,
  opts: { turns: number; savesPerTick: number; ticks: number },
): Promise<Cost> {
  return timed(async () => {
    for (let t = 0; t < opts.ticks; t++) {
      for (let turn = 0; turn < opts.turns; turn++) {
        for (let s = 0; s < opts.savesPerTick; s++) {
          await store.saveTurn({ turnId: `T${turn}`, space: SPACE, snapshot, updatedAt: t });
        }
      }
      await tick();
    }
    await store.close();
    return opts.ticks * opts.turns * opts.savesPerTick;
  });
}

/** Per appendEvent, a tick every ten events. */
function measureAppends(store: TurnlogStore, opts: { turns: number; events: number }): Promise<Cost> {
  return timed(async () => {
    for (let seq = 1; seq <= opts.events; seq++) {
      for (let turn = 0; turn < opts.turns; turn++) {
        const event = {
          type: 'tool_call',
          space: SPACE,
          turnId: `T${turn}`,
          callId: `c${seq}`,
          tool: 'Read',
          seq,
        };
        await store.appendEvent({
          ...event,
          at: seq,
          input: { path: `src/module-${seq}/index.ts` },
        } as RunEvent);
      }
      if (seq % 10 === 0) await tick();
    }
    await store.close();
    return opts.turns * opts.events;
  });
}

/** Per ingested event, for the whole runtime: bursts of `burst` events per turn per tick. */
async function measureRuntime(
  store: TurnlogStore,
  opts: { turns: number; burst: number; rounds: number },
): Promise<Cost & { savesPerEvent: number }> {
  const clock = new SimulatedClock();
  const surface = createMemorySurface({ platform: 'gchat', now: () => clock.now() });
  let saves = 0;
  const counted: TurnlogStore = {
    ...store,
    saveTurn: (turn) => {
      saves += 1;
      return store.saveTurn(turn);
    },
  };
  const runtime = createRuntime({
    platforms: builtinPlatforms,
    surfaces: { gchat: surface },
    store: counted,
    clock,
    inspect: () => {},
    logger: { warn: () => {}, error: (m) => console.error(m) },
  });
  await runtime.ready;
  const ingest = (event: Record<string, unknown>) => {
    const result = runtime.ingest({ space: SPACE, ...event });
    if (!result.ok) throw new Error(result.error);
  };
  const settle = async () => {
    for (let i = 0; i < 4; i++) await tick();
  };
  let events = 0;
  const cost = await timed(async () => {
    for (let turn = 0; turn < opts.turns; turn++) {
      const root = surface.inbound({ space: SPACE, text: `message ${turn}` });
      ingest({
        type: 'turn_started',
        turnId: `T${turn}`,
        root: { messageId: root.messageId, threadId: root.threadId },
      });
      events += 1;
    }
    for (let round = 0; round < opts.rounds; round++) {
      for (let turn = 0; turn < opts.turns; turn++) {
        for (let b = 0; b < opts.burst; b++) {
          const callId = `c${round}-${b}`;
          ingest({
            type: 'tool_call',
            turnId: `T${turn}`,
            callId,
            tool: 'Read',
            input: { path: `src/${callId}.ts` },
          });
          events += 1;
        }
      }
      await settle();
      clock.increment(500);
      await settle();
    }
    for (let turn = 0; turn < opts.turns; turn++) {
      ingest({ type: 'turn_ended', turnId: `T${turn}`, outcome: 'ok' });
      events += 1;
    }
    clock.increment(5_000);
    await settle();
    await runtime.stop();
    await store.close();
    return events;
  });
  return { ...cost, savesPerEvent: saves / events };
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

/**
 * Runs every store kind `REPEATS` times, interleaved (so a burst of load from
 * elsewhere hits them alike), after one warm-up each; medians per kind.
 */
const REPEATS = 5;
async function compare<T extends Cost>(
  measure: (store: TurnlogStore, warmUp: boolean) => Promise<T>,
  file: () => string,
): Promise<T[][]> {
  for (const kind of KINDS) await measure(await kind.open(file()), true);
  const runs: T[][] = KINDS.map(() => []);
  for (let r = 0; r < REPEATS; r++) {
    for (const [i, kind] of KINDS.entries()) runs[i]?.push(await measure(await kind.open(file()), false));
  }
  return runs;
}

const cell = (runs: Cost[]) =>
  `${median(runs.map((c) => c.wallUs)).toFixed(1)} / ${median(runs.map((c) => c.cpuUs)).toFixed(1)}`;

export default async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'turnlog-bench-store-'));
  let files = 0;
  const file = () => join(dir, `bench-${++files}.db`);
  const postgres = await startPostgres();
  let schemas = 0;
  KINDS.push({
    name: 'postgres per-tick',
    open: () => openPostgresStore({ url: postgres.url, schema: `bench_${++schemas}`, poolMax: 4 }),
  });
  try {
    const snapshots = [
      { label: 'small (5 entries)', snapshot: await realSnapshot(5) },
      { label: 'large (200 entries)', snapshot: await realSnapshot(200) },
    ];
    const rows: string[][] = [];
    for (const { label, snapshot } of snapshots) {
      const bytes = JSON.stringify(snapshot).length;
      for (const savesPerTick of [1, 10]) {
        const runs = await compare(
          (store, warmUp) =>
            measureSaves(store, snapshot, { turns: 20, savesPerTick, ticks: warmUp ? 5 : 40 }),
          file,
        );
        const [, immediate, perTick] = runs.map((r) => median(r.map((c) => c.wallUs)));
        rows.push([
          `${label}, ${bytes} B`,
          `${savesPerTick}`,
          ...runs.map(cell),
          `${((immediate ?? 0) / (perTick ?? 1)).toFixed(1)}×`,
        ]);
      }
    }
    console.log(
      `saveTurn: 20 live turns × 40 ticks; µs per save, wall / cpu, median of ${REPEATS}` +
        ' (per-tick includes its once-a-tick writes)\n',
    );
    printTable(
      ['snapshot', 'saves/turn/tick', ...KINDS.map((k) => k.name), 'immediate ÷ per-tick (wall)'],
      rows,
    );

    const appends = await compare(
      (store, warmUp) => measureAppends(store, { turns: 10, events: warmUp ? 10 : 100 }),
      file,
    );
    console.log(`\nappendEvent: 10 turns × 100 events; µs per event, wall / cpu, median of ${REPEATS}\n`);
    printTable(
      KINDS.map((k) => k.name),
      [appends.map(cell)],
    );

    const runtimeRows: string[][] = [];
    for (const burst of [1, 20]) {
      const runs = await compare(
        (store, warmUp) => measureRuntime(store, { turns: 10, burst, rounds: warmUp ? 3 : 20 }),
        file,
      );
      runtimeRows.push([
        `${burst}`,
        ...runs.map(cell),
        median(runs[0]?.map((c) => c.savesPerEvent) ?? []).toFixed(1),
      ]);
    }
    console.log(
      `\nruntime: 10 turns × 20 rounds of a burst per turn; µs per ingested event, wall / cpu, median of ${REPEATS}\n`,
    );
    printTable(['events/turn/tick', ...KINDS.map((k) => k.name), 'saveTurn calls/event'], runtimeRows);
  } finally {
    KINDS.pop();
    await postgres.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

function printTable(header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]?.length ?? 0)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padStart(widths[i]!)).join(' | ')} |`;
  console.log(line(header));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const row of rows) console.log(line(row));
}
