/** `turnlog serve` as a real child process (tsx), killed at the end of each test if still running. */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { ROOT } from '../../cli/cli.helpers.js';

export function startServeProcess(
  configPath: string,
  cleanups: (() => Promise<void> | void)[],
): ChildProcessWithoutNullStreams {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'src/cli/main.ts', 'serve', '--config', configPath],
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
