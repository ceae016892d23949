/**
 * `npm run bench -- import`: what `import('turnlog')` plus parsing one event
 * costs in a fresh node (the built dist/: run `npm run build` first), against
 * `turnlog/gchat` (the Google SDK). Issue 21.1's target: under 200 ms, no
 * platform SDK. Median of RUNS fresh processes each.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PROBE = fileURLToPath(new URL('../scripts/import-probe.mjs', import.meta.url));
const RUNS = 7;

interface Probe {
  ms: number;
  commonJsModules: number;
  sdkModules: string[];
  rssMiB: number;
}

function probe(specifier: string): Probe {
  return JSON.parse(execFileSync(process.execPath, [PROBE, specifier], { cwd: ROOT, encoding: 'utf8' }));
}

const median = (values: number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

export default async function run(): Promise<void> {
  console.log('| entry | median ms | CJS modules | SDK modules | RSS MiB |');
  console.log('| --- | ---: | ---: | ---: | ---: |');
  for (const specifier of ['turnlog', 'turnlog/gchat']) {
    const runs = Array.from({ length: RUNS }, () => probe(specifier));
    const last = runs[runs.length - 1] as Probe;
    console.log(
      `| ${specifier} | ${median(runs.map((r) => r.ms))} | ${last.commonJsModules} | ${last.sdkModules.length} | ${median(runs.map((r) => r.rssMiB))} |`,
    );
  }
}
