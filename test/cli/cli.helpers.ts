/** Runs the `turnlog` CLI from source (node --import tsx), as a user would run the built bin. */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export function spawnCli(args: string[]): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
    cwd: ROOT,
    env: { ...process.env },
  });
}

export async function runCli(
  args: string[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawnCli(args);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => {
    stdout += String(d);
  });
  child.stderr.on('data', (d) => {
    stderr += String(d);
  });
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stdout, stderr };
}

/** Resolves with the first stdout line (the ready line). */
export async function firstLine(child: ChildProcessWithoutNullStreams): Promise<string> {
  let buffered = '';
  for await (const chunk of child.stdout) {
    buffered += String(chunk);
    const newline = buffered.indexOf('\n');
    if (newline >= 0) return buffered.slice(0, newline);
  }
  throw new Error(`the process ended before printing a line; stdout: ${buffered}`);
}
