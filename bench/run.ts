/**
 * `npm run bench [-- NAME ...]`: runs every `bench/*.bench.ts` (or the named
 * ones, e.g. `npm run bench -- condense`). Each bench module default-exports
 * `run(): Promise<void>` and prints its own table. Benchmarks report ratios
 * measured side by side in one run; they never assert thresholds.
 */
import { readdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const available = readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts'))
  .map((f) => basename(f, '.bench.ts'))
  .sort();
const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const unknown = wanted.filter((w) => !available.includes(w));
if (unknown.length > 0) {
  console.error(`unknown benchmark(s): ${unknown.join(', ')}; available: ${available.join(', ')}`);
  process.exit(2);
}
for (const name of wanted.length > 0 ? wanted : available) {
  console.log(`\n## bench: ${name}\n`);
  const mod = (await import(pathToFileURL(join(here, `${name}.bench.ts`)).href)) as {
    default: () => Promise<void>;
  };
  await mod.default();
}
