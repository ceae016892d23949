/**
 * The actor runtime end to end (ingest → space → turn → budget → surface) on
 * a simulated clock (bench/runtime/heap-clock.ts: XState's SimulatedClock
 * re-sorts every pending timer on each flush, which at 10,000 live turns
 * would be what is measured):
 *
 * 1. Throughput: events per CPU second at 1, 100, 1,000 and 10,000
 *    concurrent turns, in one space and over 100 spaces, on the memory
 *    surface (and once on a surface that keeps nothing, to show what the
 *    memory surface's call log costs). Each turn: inbound + turn_started +
 *    5 × (tool_call + tool_result) + answer + turn_ended, one step per
 *    400 ms round, interleaved across turns, then the clock runs until every
 *    timer has fired. The default Google Chat budget paces the edits. A run
 *    over its CPU cap stops early and reports the rate of what it did.
 * 2. Heap bytes per live idle turn: K turns with 4 entries each, their log
 *    posted and edited, nothing pending; heap after GC before and after.
 * 3. Heap after every 10,000 of 100,000 finished turns (100 at a time over
 *    100 spaces, each: turn_started, tool_call, answer, turn_ended), with
 *    the sizes of the runtime's structures that must not grow.
 *
 * CPU seconds, not wall time, are the measure: the machine is shared.
 * `--expose-gc` gives exact heap numbers; without it the bench turns the flag
 * on itself (bench/runtime/heap.ts).
 */
import { createMemorySurface } from '../src/testing/memory-surface.js';
import { type BenchRuntime, startBenchRuntime } from './runtime/harness.js';
import { exposeGc, settledHeapUsed } from './runtime/heap.js';
import { classGrowth, type HeapClass, heapClasses } from './runtime/heap-classes.js';
import { HeapClock } from './runtime/heap-clock.js';
import { count, cpuSeconds, mib, printTable, progress, signedBytes } from './runtime/report.js';
import { runtimeStructures, turnStates } from './runtime/structures.js';
import { forgetfulSurface } from './runtime/surfaces.js';
import { persistencePhase, versusMainPhase } from './runtime/vs-main.js';
import {
  answerAndEnd,
  eventsPerTurn,
  openOnInbound,
  openOnRoot,
  planTurns,
  type Round,
  runTurns,
  toolCall,
  toolCallAndResult,
} from './runtime/workload.js';

const ROUND_MS = 400;
const SPACES = 100;

// ------------------------------------------------------------------ 1. throughput

const THROUGHPUT_ROUNDS: Round[] = [openOnInbound, ...[1, 2, 3, 4, 5].map(toolCallAndResult), answerAndEnd];
/** CPU seconds a throughput run may take before it stops and reports what it did. */
const THROUGHPUT_CAP_S = 20;

interface ThroughputCase {
  concurrent: number;
  spaces: number;
  /** How many times `concurrent` turns run, one group after another. */
  waves: number;
  surface: 'memory' | 'forgetful';
}

interface ThroughputResult {
  events: number;
  cpuS: number;
  wallS: number;
  simulatedS: number;
  posts: number;
  edits: number;
  /** The events the whole workload sends; more than `events` when the run hit its CPU cap. */
  planned: number;
  /** Turns still live when the run stopped (0 when it finished). */
  live: number;
}

async function throughput(c: ThroughputCase): Promise<ThroughputResult> {
  const clock = new HeapClock();
  const memory = createMemorySurface({ platform: 'gchat', now: () => clock.now() });
  const bench = await startBenchRuntime(c.surface === 'memory' ? memory : forgetfulSurface(), { clock });
  // The people's messages exist before the timed part: posting them is the platform's work.
  const root =
    c.surface === 'memory'
      ? (space: string) => memory.inbound({ space, text: 'please look at the module' }).messageId
      : (_: string, n: number) => `u${n}`;
  const waves = Array.from({ length: c.waves }, (_, w) =>
    planTurns(c.concurrent, c.spaces, root, w * c.concurrent),
  );
  const cpuStart = cpuSeconds();
  const wallStart = performance.now();
  const overCap = () => cpuSeconds() - cpuStart > THROUGHPUT_CAP_S;
  let started = 0;
  for (const turns of waves) {
    started += turns.length;
    if (!(await runTurns(bench, turns, THROUGHPUT_ROUNDS, ROUND_MS, overCap))) break;
  }
  const result = {
    events: bench.ingested,
    cpuS: cpuSeconds() - cpuStart,
    wallS: (performance.now() - wallStart) / 1000,
    simulatedS: clock.now() / 1000,
    posts: bench.surface.writes.post,
    edits: bench.surface.writes.edit,
    planned: c.concurrent * c.waves * eventsPerTurn(THROUGHPUT_ROUNDS),
    live: started - bench.finished,
  };
  await bench.runtime.stop();
  return result;
}

async function throughputPhase(): Promise<void> {
  // Warm the JIT on the same paths before anything is timed.
  await throughput({ concurrent: 20, spaces: 1, waves: 2, surface: 'memory' });
  const cases: ThroughputCase[] = [
    { concurrent: 1, spaces: 1, waves: 100, surface: 'memory' },
    { concurrent: 100, spaces: 1, waves: 2, surface: 'memory' },
    { concurrent: 100, spaces: 1, waves: 2, surface: 'forgetful' },
    { concurrent: 100, spaces: SPACES, waves: 2, surface: 'memory' },
    { concurrent: 1_000, spaces: SPACES, waves: 1, surface: 'memory' },
    { concurrent: 10_000, spaces: 1, waves: 1, surface: 'memory' },
    { concurrent: 10_000, spaces: SPACES, waves: 1, surface: 'memory' },
  ];
  const rows: string[][] = [];
  let single: number | undefined;
  for (const c of cases) {
    progress(
      `throughput: ${count(c.concurrent)} concurrent turns in ${c.spaces} space(s), ${c.surface} surface`,
    );
    const r = await throughput(c);
    const rate = r.events / r.cpuS;
    single ??= rate;
    rows.push([
      count(c.concurrent),
      count(c.spaces),
      c.surface,
      r.events === r.planned ? count(r.events) : `${count(r.events)} of ${count(r.planned)}`,
      count(r.live),
      count(r.posts),
      count(r.edits),
      r.simulatedS.toFixed(0),
      r.cpuS.toFixed(1),
      count(rate),
      count(r.events / r.wallS),
      (rate / single).toFixed(3),
    ]);
  }
  console.log(
    `events through ingest → space → turn → budget → surface; ${eventsPerTurn(THROUGHPUT_ROUNDS)} events per turn, ` +
      `a round every ${ROUND_MS} ms simulated, default Google Chat budget; 1 concurrent = ${cases[0]!.waves} turns one after another.\n` +
      `A run stops after ${THROUGHPUT_CAP_S} CPU s ("events" shows how far it got, "live at end" the turns it left): ` +
      'its rate covers the early rounds (opening, first post), which cost less than the budget-paced edits after them.\n',
  );
  printTable(
    [
      'concurrent turns',
      'spaces',
      'surface',
      'events',
      'live at end',
      'posts',
      'edits',
      'simulated s',
      'CPU s',
      'events/CPU s',
      'events/wall s',
      'vs 1 turn',
    ],
    rows,
  );
}

// ------------------------------------------------------------------ 2. heap per live idle turn

/** Four entries, posted then edited in; no answer, no end: the turn stays live and idle. */
const IDLE_ROUNDS: Round[] = [openOnInbound, toolCallAndResult(1), toolCallAndResult(2)];
const FINISHED_ROUNDS: Round[] = [openOnRoot, toolCall(1), answerAndEnd];
/**
 * The idle phase measures memory, not pacing: a budget that grants every edit
 * at once (no rate, no per-space spacing) and sweeps a silent turn's card
 * after 1 s instead of 60 s, so the idle turns are measured as they are after
 * a minute of silence (no card), and the budget's registry, which every
 * request copies, stays small.
 */
const UNPACED_BUDGET = {
  budgets: { gchat: { ratePerMinute: 6_000_000, channelSpacingMs: 0, liveWindowMs: 1_000 } },
};
/** Finished turns before the baseline: fills the memory store's bounded run record (1,000 turns). */
const IDLE_WARM_UP_TURNS = 1_100;
/**
 * Idle turns are started this many at a time, each group idle before the
 * next (whose requests sweep its cards). All at once, every finished surface
 * call would scan every turn's pending debounce timer (XState's
 * scheduler.cancelAll) and every budget request would copy every card.
 */
const IDLE_GROUP = 100;

interface IdleHeap {
  before: number;
  after: number;
  idle: number;
  /** Mean JSON chars of a live turn's persisted snapshot (its context and state). */
  snapshotChars: number;
  /** Heap by class (bench/runtime/heap-classes.ts) before and after the idle turns, when asked for. */
  classes?: { before: Map<string, HeapClass>; after: Map<string, HeapClass> };
}

async function idleTurnBytes(gc: () => void, idleTurns: number, byClass = false): Promise<IdleHeap> {
  const bench = await startBenchRuntime(forgetfulSurface(), { config: UNPACED_BUDGET });
  const root = (_: string, n: number) => `u${n}`;
  for (let first = 0; first < IDLE_WARM_UP_TURNS; first += SPACES) {
    await runTurns(bench, planTurns(SPACES, SPACES, root, first), [...IDLE_ROUNDS, answerAndEnd], ROUND_MS);
  }
  const classesBefore = byClass ? await heapClasses(gc) : undefined;
  const before = settledHeapUsed(gc);
  const idleIds: string[] = [];
  for (let started = 0; started < idleTurns; started += IDLE_GROUP) {
    const group = planTurns(
      Math.min(IDLE_GROUP, idleTurns - started),
      SPACES,
      root,
      IDLE_WARM_UP_TURNS + started,
    );
    await runTurns(bench, group, IDLE_ROUNDS, ROUND_MS);
    idleIds.push(...group.map((turn) => turn.turnId));
  }
  const after = settledHeapUsed(gc);
  const classesAfter = classesBefore ? await heapClasses(gc) : undefined;
  const idle = turnStates(bench.runtime).get('opened.live') ?? 0;
  await bench.runtime.sync();
  let chars = 0;
  for (const turnId of idleIds)
    chars += JSON.stringify((await bench.store.loadTurn(turnId))?.snapshot ?? null).length;
  await bench.runtime.stop();
  return {
    before,
    after,
    idle,
    snapshotChars: chars / idleIds.length,
    ...(classesBefore && classesAfter ? { classes: { before: classesBefore, after: classesAfter } } : {}),
  };
}

/** The classes that make most of an idle turn's heap, per turn (1,000 idle turns; a heap snapshot each side). */
function printClasses(turns: number, classes: NonNullable<IdleHeap['classes']>): void {
  const rows = classGrowth(classes.before, classes.after);
  const total = rows.reduce((sum, row) => sum + row.bytes, 0);
  console.log(
    `\nwhat an idle turn's heap is (heap snapshots before and after ${count(turns)} idle turns, ` +
      'self sizes by V8 node type and constructor, per turn; the 12 largest):\n',
  );
  printTable(
    ['class', 'objects per turn', 'bytes per turn', 'share'],
    rows
      .slice(0, 12)
      .map((row) => [
        row.name,
        (row.count / turns).toFixed(1),
        count(row.bytes / turns),
        `${((100 * row.bytes) / total).toFixed(1)} %`,
      ]),
  );
}

async function idleHeapPhase(gc: () => void): Promise<void> {
  const rows: string[][] = [];
  let classes: IdleHeap['classes'];
  for (const turns of [1_000, 10_000]) {
    progress(`heap: ${count(turns)} idle turns`);
    const measured = await idleTurnBytes(gc, turns, turns === 1_000);
    const { before, after, idle, snapshotChars } = measured;
    classes ??= measured.classes;
    rows.push([
      count(turns),
      count(idle),
      mib(before),
      mib(after),
      count((after - before) / turns),
      count(snapshotChars),
    ]);
  }
  console.log(
    `\nheap per live idle turn: ${eventsPerTurn(IDLE_ROUNDS)} events (4 log entries) each, log posted and edited, ` +
      `nothing pending; ${SPACES} spaces, memory store, a surface that keeps nothing\n`,
  );
  printTable(
    [
      'live turns',
      'idle (opened.live)',
      'heap before MiB',
      'heap after MiB',
      'bytes per idle turn',
      'persisted snapshot chars',
    ],
    rows,
  );
  if (classes) printClasses(1_000, classes);
}

// ------------------------------------------------------------------ 3. heap after finished turns

const FINISHED_TOTAL = 100_000;
const FINISHED_BATCH = 10_000;
const FINISHED_CONCURRENT = 100;

interface HeapSample {
  finished: number;
  heap: number;
  liveInStore: number;
  structures: ReturnType<typeof runtimeStructures>;
}

async function sample(gc: () => void, bench: BenchRuntime): Promise<HeapSample> {
  return {
    finished: bench.finished,
    heap: settledHeapUsed(gc),
    liveInStore: (await bench.store.liveTurns()).length,
    structures: runtimeStructures(bench.runtime),
  };
}

async function finishedHeapPhase(gc: () => void): Promise<void> {
  const bench = await startBenchRuntime(forgetfulSurface());
  const root = (_: string, n: number) => `u${n}`;
  const samples: HeapSample[] = [];
  const cpuStart = cpuSeconds();
  for (let first = 0; first < FINISHED_TOTAL; first += FINISHED_CONCURRENT) {
    const turns = planTurns(FINISHED_CONCURRENT, SPACES, root, first);
    await runTurns(bench, turns, FINISHED_ROUNDS, ROUND_MS);
    if (bench.finished % FINISHED_BATCH === 0) {
      samples.push(await sample(gc, bench));
      progress(
        `finished turns: ${count(bench.finished)} of ${count(FINISHED_TOTAL)} (${(cpuSeconds() - cpuStart).toFixed(0)} CPU s)`,
      );
    }
  }
  if (bench.finished !== FINISHED_TOTAL) {
    throw new Error(`runtime bench: ${count(bench.finished)} of ${count(FINISHED_TOTAL)} turns finished`);
  }
  await bench.runtime.stop();

  const rows = samples.map((s, i) => [
    count(s.finished),
    mib(s.heap),
    i === 0 ? '' : signedBytes(s.heap - samples[i - 1]!.heap),
    count(s.structures.turnActors),
    count(s.structures.deliveryActors),
    count(s.structures.turnRecords),
    count(s.structures.budgetCards),
    count(s.structures.budgetChannels),
    count(s.liveInStore),
  ]);
  console.log(
    `\nheap after finished turns: ${eventsPerTurn(FINISHED_ROUNDS)} events each ` +
      `(turn_started, tool_call, answer, turn_ended), ${FINISHED_CONCURRENT} at a time over ${SPACES} spaces, ` +
      `default budget, memory store, a surface that keeps nothing\n`,
  );
  printTable(
    [
      'finished turns',
      'heap MiB',
      'Δ bytes',
      'turn actors',
      'delivery actors',
      'turn records',
      'budget cards',
      'budget channels',
      'live in store',
    ],
    rows,
  );
  const first = samples[0]!;
  const last = samples[samples.length - 1]!;
  const perTurn = (last.heap - first.heap) / (last.finished - first.finished);
  console.log(
    `\ngrowth from ${count(first.finished)} to ${count(last.finished)} finished turns: ` +
      `${signedBytes(last.heap - first.heap)} bytes, ${perTurn.toFixed(1)} bytes per finished turn`,
  );
}

/** `npm run bench -- runtime --only=vs-main,persistence` runs only the phases named. */
const only = process.argv
  .find((arg) => arg.startsWith('--only='))
  ?.slice('--only='.length)
  .split(',');

export default async function run(): Promise<void> {
  const gc = exposeGc();
  for (const [name, phase] of [
    ['vs-main', versusMainPhase],
    ['persistence', persistencePhase],
    ['throughput', throughputPhase],
    ['heap per idle turn', () => idleHeapPhase(gc)],
    ['heap after finished turns', () => finishedHeapPhase(gc)],
  ] as const) {
    if (only && !only.includes(name)) continue;
    const start = cpuSeconds();
    await phase();
    progress(`${name}: ${(cpuSeconds() - start).toFixed(0)} CPU s`);
  }
}
