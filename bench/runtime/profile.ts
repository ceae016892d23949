/**
 * A small driver to profile the runtime on the vs-main workload (issue 24
 * item 1), outside the bench's table:
 *
 *   node --import tsx --cpu-prof --cpu-prof-dir=/tmp/prof bench/runtime/profile.ts single current 100 8
 *   npx tsx bench/runtime/profile.ts batch both 1000 3
 *
 * Arguments: `single` | `batch`; `current` (this checkout), `main` (the
 * baseline, bench/runtime/baseline.ts) or `both` (alternating, medians);
 * live turns (over spaces of 10 turns); runs. Prints CPU µs per event of
 * each run. The first runs warm the JIT: profile with enough runs that they
 * are a small part.
 */
import { type Baseline, loadBaseline } from './baseline.js';
import { startBenchRuntime } from './harness.js';
import { HeapClock } from './heap-clock.js';
import { cpuSeconds } from './report.js';
import { forgetfulSurface } from './surfaces.js';
import {
  answerAndEnd,
  openOnInbound,
  planTurns,
  type Round,
  runTurns,
  toolCallAndResult,
} from './workload.js';

const SINGLE: Round[] = [openOnInbound, ...[1, 2, 3, 4, 5].map(toolCallAndResult), answerAndEnd];
const pairs =
  (from: number, n: number): Round =>
  (turn) =>
    Array.from({ length: n }, (_, i) => toolCallAndResult(from + i)(turn)).flat();
const BATCH: Round[] = [
  (turn) => [...openOnInbound(turn), ...pairs(1, 9)(turn)],
  pairs(10, 10),
  (turn) => [...pairs(20, 9)(turn), ...answerAndEnd(turn)],
];
const WAVES = 3;

const [mode = 'single', which = 'current', live = '100', runs = '5'] = process.argv.slice(2);
const concurrent = Number(live);
const main = which === 'current' ? undefined : await loadBaseline();

async function once(build: Baseline | undefined): Promise<number> {
  const bench = await startBenchRuntime(forgetfulSurface(), {
    clock: new HeapClock(),
    ...(build ? { createRuntime: build.createRuntime, platforms: build.platforms } : {}),
  });
  const start = cpuSeconds();
  for (let wave = 0; wave < WAVES; wave++) {
    const turns = planTurns(concurrent, concurrent / 10, (_, n) => `u${n}`, wave * concurrent);
    if (mode === 'single') await runTurns(bench, turns, SINGLE, 400);
    else {
      for (const round of BATCH) {
        for (const turn of turns) bench.ingestBatch(round(turn));
        await bench.advance(400);
      }
      await bench.drain();
    }
  }
  const us = ((cpuSeconds() - start) / bench.ingested) * 1e6;
  if (bench.finished !== concurrent * WAVES) throw new Error(`${bench.finished} turns finished`);
  await bench.runtime.stop();
  return us;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const mains: number[] = [];
const currents: number[] = [];
for (let n = 0; n < Number(runs); n++) {
  if (which !== 'current') mains.push(await once(main));
  if (which !== 'main') currents.push(await once(undefined));
  console.log(
    `${mode} ${concurrent}: main ${mains.at(-1)?.toFixed(1) ?? '-'} µs, this checkout ${currents.at(-1)?.toFixed(1) ?? '-'} µs`,
  );
}
if (which === 'both') {
  console.log(
    `median: main ${median(mains).toFixed(1)} µs, this checkout ${median(currents).toFixed(1)} µs, ${(median(mains) / median(currents)).toFixed(2)}×`,
  );
}
