/**
 * The runtime as it was on a given commit (default: the main this round
 * started from), loaded next to the current one so a bench can compare both
 * in the same run, on the same machine load: `git archive` of the commit's
 * `src`, `machines` and `package.json` into a temp dir (kept between runs),
 * with this checkout's node_modules linked in, imported through tsx like the
 * current sources. `TURNLOG_BENCH_BASELINE=<commit>` picks another commit.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { createRuntime } from '../../src/runtime.js';

/** Main at the start of this round's CPU-per-event work (issue #24 item 1). */
export const BASELINE_COMMIT = 'd0fea0a';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export interface Baseline {
  commit: string;
  createRuntime: typeof createRuntime;
  /**
   * What its `createRuntime` takes as `platforms`: its built-in registry
   * (src/platforms/all.ts) once the registry was passed in, an empty list of
   * extra descriptors before (d0fea0a: the built-ins were its own).
   */
  platforms: unknown;
  /** Imports another module of the baseline (`src/serve/http.ts`). */
  load<T>(path: string): Promise<T>;
}

export async function loadBaseline(
  commit = process.env.TURNLOG_BENCH_BASELINE ?? BASELINE_COMMIT,
): Promise<Baseline> {
  const full = execFileSync('git', ['rev-parse', '--verify', `${commit}^{commit}`], {
    cwd: repo,
    encoding: 'utf8',
  }).trim();
  const dir = join(tmpdir(), `turnlog-bench-baseline-${full.slice(0, 12)}`);
  if (!existsSync(join(dir, 'src', 'runtime.ts'))) {
    mkdirSync(dir, { recursive: true });
    const archive = execFileSync('git', ['archive', full, 'src', 'machines', 'package.json'], {
      cwd: repo,
      maxBuffer: 256 << 20,
    });
    execFileSync('tar', ['-x', '-C', dir], { input: archive });
  }
  if (!existsSync(join(dir, 'node_modules')))
    symlinkSync(join(repo, 'node_modules'), join(dir, 'node_modules'));
  const load = async <T>(path: string) => (await import(pathToFileURL(join(dir, path)).href)) as T;
  const mod = await load<{ createRuntime: typeof createRuntime }>('src/runtime.ts');
  const platforms = existsSync(join(dir, 'src', 'platforms', 'all.ts'))
    ? (await load<{ builtinPlatforms: unknown }>('src/platforms/all.ts')).builtinPlatforms
    : [];
  return { commit: full.slice(0, 7), createRuntime: mod.createRuntime, platforms, load };
}
