/**
 * `turnlog serve` as a real child process, killed at the end of each test if
 * still running. Shared by the kill -9 tests and `npm run bench -- serve-memory`.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../../cli/cli.helpers.js';

/**
 * A config file for serve in a new temporary directory (removed by `cleanups`):
 * ingest on a free loopback port, a SQLite store in that directory (the same
 * database for a restarted process) unless `store` is given (e.g. `{url}`: Postgres),
 * `platforms`, a 200 ms edit debounce and warnings only.
 */
export function serveConfigFile(
  prefix: string,
  platforms: Record<string, unknown>,
  cleanups: (() => Promise<void> | void)[],
  store?: Record<string, unknown>,
): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const configPath = join(dir, 'turnlog.json');
  writeFileSync(
    configPath,
    JSON.stringify({
      ingest: { host: '127.0.0.1', port: 0 },
      store: store ?? { path: join(dir, 'turnlog.sqlite') },
      platforms,
      visibility: { threadLog: { editDebounceMs: 200 } },
      log: { level: 'warn' },
    }),
  );
  return configPath;
}

export interface ServeProcessOptions {
  /**
   * `source` (default): src/cli/main.ts through tsx; `built`: dist/src/cli/main.js, the published
   * bin (`npm run build` first), with the node flags of its `#!` line; `bin`: that file executed
   * itself, its `#!` line read by the system as when it is installed (`nodeArgs` do not apply).
   */
  entry?: 'source' | 'built' | 'bin';
  /** Extra node flags, e.g. `--heapsnapshot-signal=SIGUSR2`. */
  nodeArgs?: readonly string[];
}

/** The published bin, built. */
const BIN = 'dist/src/cli/main.js';

/** The node flags of the bin's `#!/usr/bin/env -S node …` line, so that `built` runs it as installed. */
export function binNodeFlags(): string[] {
  const shebang = readFileSync(join(ROOT, BIN), 'utf8').split('\n', 1)[0] ?? '';
  const words = shebang.replace(/^#!\S*env\s+(?:-S\s+)?/, '').split(/\s+/);
  return words[0] === 'node' ? words.slice(1).filter((w) => w !== '') : [];
}

export function startServeProcess(
  configPath: string,
  cleanups: (() => Promise<void> | void)[],
  options: ServeProcessOptions = {},
): ChildProcessWithoutNullStreams {
  const args = ['serve', '--config', configPath];
  const spawnOptions = { cwd: ROOT, env: { ...process.env } };
  const [flags, script] =
    options.entry === 'built' ? [binNodeFlags(), [BIN]] : [[], ['--import', 'tsx', 'src/cli/main.ts']];
  const child =
    options.entry === 'bin'
      ? spawn(join(ROOT, BIN), args, spawnOptions)
      : // The caller's flags after the bin's own, so that a bench can override one (`--max-semi-space-size=16`).
        spawn(process.execPath, [...flags, ...(options.nodeArgs ?? []), ...script, ...args], spawnOptions);
  child.stderr.resume();
  cleanups.push(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  return child;
}
