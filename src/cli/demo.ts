/** `turnlog demo` (`npm start`). */
import { parseArgs } from 'node:util';
import { runDemo } from '../demo/run.js';
import { CliError, type CliIo } from './io.js';

export const DEMO_HELP = `Usage: turnlog demo [options]

Runs turnlog end to end on this machine: a Google Chat emulator, turnlog serve
(HTTP ingest, SQLite store in a temporary folder, the googleapis surface) and
a scripted agent — two concurrent turns with ~40 tool calls in bursts, a
2-level subagent tree, an approval card, an output long enough to roll the
log over, a secret in a tool output and a final answer. Prints progress,
where to watch, and a summary read from the emulator's call log.

Options:
  --speed N     play the scenario N times faster (default 1)
  --keep        keep serving after the scenario, so you can send your own events (Ctrl-C stops)
  --port N      ingest port (default: any free port)
  -h, --help    this help
`;

export async function runDemoCommand(argv: string[], io: CliIo): Promise<number> {
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
  const summary = await runDemo({
    speed,
    ...(values.keep
      ? { keep: true, untilStopped: () => new Promise<void>((resolve) => io.onSignal(resolve)) }
      : {}),
    ...(port !== undefined ? { port } : {}),
    out: io.out,
  });
  const ok = summary.finalFramesLanded === summary.turns && summary.secretsLeaked === 0;
  return ok ? 0 : 1;
}
