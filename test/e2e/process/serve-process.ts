/**
 * `turnlog serve` as a real child process, killed at the end of each test if
 * still running. Shared by the kill -9 tests and `npm run bench -- serve-memory`.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { ROOT } from '../../cli/cli.helpers.js';

export interface ServeProcessOptions {
  /** `source` (default): src/cli/main.ts through tsx; `built`: dist/src/cli/main.js, the published bin (`npm run build` first). */
  entry?: 'source' | 'built';
  /** Extra node flags, e.g. `--heapsnapshot-signal=SIGUSR2`. */
  nodeArgs?: readonly string[];
}

export function startServeProcess(
  configPath: string,
  cleanups: (() => Promise<void> | void)[],
  options: ServeProcessOptions = {},
): ChildProcessWithoutNullStreams {
  const entry = options.entry === 'built' ? ['dist/src/cli/main.js'] : ['--import', 'tsx', 'src/cli/main.ts'];
  const child = spawn(
    process.execPath,
    [...(options.nodeArgs ?? []), ...entry, 'serve', '--config', configPath],
    {
      cwd: ROOT,
      env: { ...process.env },
    },
  );
  child.stderr.resume();
  cleanups.push(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  return child;
}
