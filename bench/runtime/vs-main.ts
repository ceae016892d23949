/**
 * The runtime against main in the same run (bench/runtime/baseline.ts):
 * events per CPU second for single events (one `ingest` each) and for
 * batches of 20 events per turn (one `POST /v1/events` body: main ingests
 * them one by one, the current runtime with `ingestBatch`), and what
 * persisting a turn costs at 10 and at 1,000 log entries.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSqliteStore } from '../../src/store/sqlite.js';
import { type Baseline, loadBaseline } from './baseline.js';
import { startBenchRuntime } from './harness.js';
import { HeapClock } from './heap-clock.js';
import { count, cpuSeconds, printTable, progress } from './report.js';
import { forgetfulSurface } from './surfaces.js';
import {
  answerAndEnd,
  eventsPerTurn,
  openOnInbound,
  planTurns,
  type Round,
  runTurns,
  type TurnPlan,
  toolCallAndResult,
} from './workload.js';

const ROUND_MS = 400;
/** Live turns at once, over spaces of 10 turns each, in waves (one group of turns after another). */
interface Load {
  concurrent: number;
  spaces: number;
  waves: number;
}
const LOADS: Load[] = [
  { concurrent: 100, spaces: 10, waves: 3 },
  { concurrent: 1_000, spaces: 100, waves: 1 },
];
/** Each runtime runs each case this often, alternating; the median run is reported. */
const REPEATS = 3;

const SINGLE_ROUNDS: Round[] = [openOnInbound, ...[1, 2, 3, 4, 5].map(toolCallAndResult), answerAndEnd];

const pairs =
  (from: number, n: number): Round =>
  (turn) =>
    Array.from({ length: n }, (_, i) => toolCallAndResult(from + i)(turn)).flat();
/** 60 events a turn in 3 batches of 20: open + 9 calls with results, 10 more, 9 more + answer + end. */
const BATCH_ROUNDS: Round[] = [
  (turn) => [...openOnInbound(turn), ...pairs(1, 9)(turn)],
  pairs(10, 10),
  (turn) => [...pairs(20, 9)(turn), ...answerAndEnd(turn)],
];

/** A runtime to measure: a baseline's, or (undefined) this checkout's. */
type Build = Baseline | undefined;
const buildOptions = (build: Build) =>
  build ? { createRuntime: build.createRuntime, platforms: build.platforms } : {};

async function eventsPerCpuSecond(build: Build, mode: 'single' | 'batch', load: Load): Promise<number> {
  const { concurrent: CONCURRENT, spaces: SPACES, waves: WAVES } = load;
  const bench = await startBenchRuntime(forgetfulSurface(), {
    clock: new HeapClock(),
    ...buildOptions(build),
  });
  const root = (_: string, n: number) => `u${n}`;
  const start = cpuSeconds();
  for (let wave = 0; wave < WAVES; wave++) {
    const turns = planTurns(CONCURRENT, SPACES, root, wave * CONCURRENT);
    if (mode === 'single') await runTurns(bench, turns, SINGLE_ROUNDS, ROUND_MS);
    else await runBatches(bench, turns);
  }
  const cpu = cpuSeconds() - start;
  const events = bench.ingested;
  if (bench.finished !== CONCURRENT * WAVES) {
    throw new Error(`runtime bench: ${bench.finished} of ${CONCURRENT * WAVES} turns finished`);
  }
  await bench.runtime.stop();
  return events / cpu;
}

async function runBatches(bench: Awaited<ReturnType<typeof startBenchRuntime>>, turns: TurnPlan[]) {
  for (const round of BATCH_ROUNDS) {
    for (const turn of turns) bench.ingestBatch(round(turn));
    await bench.advance(ROUND_MS);
  }
  await bench.drain();
}

const median = (values: number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export async function versusMainPhase(): Promise<void> {
  progress('vs main: preparing the baseline (git archive of main)');
  const baseline: Baseline = await loadBaseline();
  const rows: string[][] = [];
  const us = (perSecond: number) => (1e6 / perSecond).toFixed(1);
  for (const load of LOADS) {
    for (const mode of ['single', 'batch'] as const) {
      // Warm both on the same paths before anything is timed.
      await eventsPerCpuSecond(baseline, mode, load);
      await eventsPerCpuSecond(undefined, mode, load);
      const old: number[] = [];
      const current: number[] = [];
      for (let n = 0; n < REPEATS; n++) {
        progress(`vs main: ${count(load.concurrent)} live turns, ${mode} events, run ${n + 1} of ${REPEATS}`);
        old.push(await eventsPerCpuSecond(baseline, mode, load));
        current.push(await eventsPerCpuSecond(undefined, mode, load));
      }
      const [o, c] = [median(old), median(current)];
      rows.push([
        `${count(load.concurrent)} over ${load.spaces} spaces, ${load.waves} wave(s)`,
        mode === 'single' ? 'single events (one ingest each)' : 'batches of 20 per turn (one body each)',
        count(mode === 'single' ? eventsPerTurn(SINGLE_ROUNDS) : eventsPerTurn(BATCH_ROUNDS)),
        `${count(o)} (${us(o)} µs)`,
        `${count(c)} (${us(c)} µs)`,
        `${(c / o).toFixed(2)}×`,
      ]);
    }
  }
  console.log(
    `events per CPU second (CPU µs per event), main (${baseline.commit}) and this checkout in the same process, ` +
      'memory store, a surface that keeps nothing, ' +
      `a round every ${ROUND_MS} ms simulated; median of ${REPEATS} alternating runs. ` +
      'Main has no batch path: a body of 20 lines is 20 ingests there.\n',
  );
  printTable(
    ['live turns', 'workload', 'events per turn', `main ${baseline.commit}`, 'this checkout', 'ratio'],
    rows,
  );
}

// ------------------------------------------------------------------ persistence per entry count

const PERSIST_TURNS = 20;
const MEASURED_EVENTS = 20;

/**
 * CPU per event (ingest → turn → persisted snapshot in SQLite, committed per
 * tick) once each turn holds `entries` log entries, and the size of the
 * snapshot the store keeps.
 */
async function persistCost(build: Build, entries: number) {
  const dir = mkdtempSync(join(tmpdir(), 'turnlog-bench-persist-'));
  const store = createSqliteStore({ path: join(dir, 'turnlog.db') });
  const bench = await startBenchRuntime(forgetfulSurface(), {
    store,
    ...buildOptions(build),
  });
  // One turn per space, entries at agent pace: the budget lets each turn roll its log over as it fills.
  const turns = planTurns(PERSIST_TURNS, PERSIST_TURNS, (_, n) => `u${n}`);
  const send = (turn: TurnPlan, n: number) =>
    bench.ingest({
      type: 'note',
      space: turn.space,
      turnId: turn.turnId,
      text: `step ${n} of the plan: read the module and check its exports`,
    });
  for (const turn of turns) for (const event of openOnInbound(turn)) bench.ingest(event);
  for (let n = 0; n < entries; n++) {
    for (const turn of turns) send(turn, n);
    if (n % 5 === 4) await bench.advance(ROUND_MS);
  }
  await bench.advance(5_000);
  const start = cpuSeconds();
  for (let n = 0; n < MEASURED_EVENTS; n++) {
    for (const turn of turns) {
      send(turn, entries + n);
      // One event per tick, as single requests come: each event's snapshot is written.
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
  const perEvent = ((cpuSeconds() - start) / (MEASURED_EVENTS * PERSIST_TURNS)) * 1e6;
  await bench.runtime.sync();
  const saved = store.loadTurn(turns[0]!.turnId);
  const bytes = saved ? JSON.stringify(saved.snapshot).length : 0;
  await bench.runtime.stop();
  store.close();
  rmSync(dir, { recursive: true, force: true });
  return { perEvent, bytes };
}

export async function persistencePhase(): Promise<void> {
  const baseline = await loadBaseline();
  const rows: string[][] = [];
  for (const [name, build] of [
    [`main ${baseline.commit}`, baseline],
    ['this checkout', undefined],
  ] as const) {
    await persistCost(build, 10);
    progress(`persistence: ${name}`);
    const small = await persistCost(build, 10);
    const large = await persistCost(build, 1_000);
    rows.push([
      name,
      small.perEvent.toFixed(0),
      large.perEvent.toFixed(0),
      `${(large.perEvent / small.perEvent).toFixed(2)}×`,
      count(small.bytes),
      count(large.bytes),
    ]);
  }
  console.log(
    `\nCPU µs per event once a turn holds 10 or 1,000 log entries (notes, 5 every ${ROUND_MS} ms simulated), ` +
      `${PERSIST_TURNS} turns in as many spaces, one event per tick, SQLite store (snapshot and event committed ` +
      'per tick); persisted snapshot size in JSON chars\n',
  );
  printTable(
    ['runtime', 'µs/event at 10', 'µs/event at 1,000', '1,000 vs 10', 'snapshot at 10', 'snapshot at 1,000'],
    rows,
  );
}
