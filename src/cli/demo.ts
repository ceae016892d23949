/** `turnlog demo` (`npm start`). */
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { demoSucceeded, runDemo } from '../demo/run.js';
import { CliError, type CliIo } from './io.js';

export const DEMO_HELP = `Usage: turnlog demo [options]

Runs turnlog end to end on this machine: Google Chat, Slack and Discord
emulators, turnlog serve (HTTP ingest, SQLite store in a temporary folder,
the googleapis, @slack/web-api and @discordjs/rest surfaces) and a scripted
agent — two concurrent Google Chat turns with ~40 tool calls in bursts, a
2-level subagent tree, an approval card, an output long enough to roll the
log over, a secret in a tool output and a final answer; beside them one Slack
turn and one Discord turn, each with a secret in a tool output and an answer.
Prints progress, where to watch, and a summary per platform read from each
emulator's call log.

On a terminal the page stays up after the summary until you press Enter (or
Ctrl-C); without one (piped, CI) the demo ends after the summary.

Options:
  --speed N     play the scenario N times faster (default 1)
  --keep        keep serving after the scenario, so you can send your own events (Ctrl-C stops)
  --port N      ingest port (default: any free port)
  -h, --help    this help
`;

/** What the demo reads besides its arguments (tests give their own). */
export interface DemoContext {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
}

/**
 * How the demo ends after its summary: `keep` serves until Ctrl-C (--keep);
 * on a terminal `until-enter` keeps the page up until Enter or Ctrl-C, so the
 * printed link works; without a terminal (piped, CI) it ends at once.
 */
export function demoEnding(options: { keep: boolean; stdinIsTTY: boolean }): 'keep' | 'until-enter' | 'end' {
  if (options.keep) return 'keep';
  return options.stdinIsTTY ? 'until-enter' : 'end';
}

/** Resolves on the first line read from `stdin` (Enter), at its end, or on SIGINT/SIGTERM; then stops reading it. */
export function untilEnterOrSignal(
  stdin: NodeJS.ReadableStream,
  onSignal: (handler: () => void) => void,
): Promise<void> {
  return new Promise<void>((resolve) => {
    // terminal: false keeps the terminal in its normal mode, so Ctrl-C still raises SIGINT.
    const lines = createInterface({ input: stdin, terminal: false });
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      // Closing the interface pauses stdin, so the process can exit.
      lines.close();
      resolve();
    };
    lines.once('line', finish);
    lines.once('close', finish);
    onSignal(finish);
  });
}

export async function runDemoCommand(
  argv: string[],
  io: CliIo,
  context: DemoContext = { stdin: process.stdin },
): Promise<number> {
  let values: { speed?: string; keep?: boolean; port?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        speed: { type: 'string' },
        keep: { type: 'boolean' },
        port: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new CliError(`${(error as Error).message}\n\n${DEMO_HELP}`);
  }
  if (values.help) {
    io.out(DEMO_HELP);
    return 0;
  }
  const speed = values.speed === undefined ? 1 : Number(values.speed);
  if (!(Number.isFinite(speed) && speed > 0))
    throw new CliError(`--speed must be a positive number, got "${values.speed}"`);
  const port = values.port === undefined ? undefined : Number(values.port);
  if (port !== undefined && !(Number.isInteger(port) && port >= 0 && port <= 65_535)) {
    throw new CliError(`--port must be an integer from 0 to 65535, got "${values.port}"`);
  }
  const ending = demoEnding({ keep: values.keep === true, stdinIsTTY: context.stdin.isTTY === true });
  const summary = await runDemo({
    speed,
    ...(ending === 'keep'
      ? { keep: true, untilStopped: () => new Promise<void>((resolve) => io.onSignal(resolve)) }
      : {}),
    ...(ending === 'until-enter'
      ? {
          holdPage: {
            prompt: 'the page stays up: press Enter (or Ctrl-C) to end the demo',
            until: () => untilEnterOrSignal(context.stdin, io.onSignal),
          },
        }
      : {}),
    ...(port !== undefined ? { port } : {}),
    out: io.out,
  });
  return demoSucceeded(summary) ? 0 : 1;
}
