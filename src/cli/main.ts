#!/usr/bin/env -S node --max-semi-space-size=4 --heap-growing-percent=25
/**
 * The `turnlog` command (docs/cli.md). Node runs it with a smaller young
 * generation and a slower-growing old one (the line above): V8 keeps less
 * heap ahead of what is live, which took the memory a serve process adds
 * under 50 senders from +118–125 MiB to +81–83 MiB for 8–12 % more CPU
 * (docs/benchmarks.md, "Serve memory under 50 senders").
 */
import { runVizCommand } from '../viz/cli.js';
import { runDemoCommand } from './demo.js';
import { runEmulate } from './emulate.js';
import { CliError, type CliIo, processIo } from './io.js';
import { runReplay } from './replay.js';
import { runServe } from './serve.js';

const HELP = `turnlog — one edited activity-log message per agent turn

Usage:
  turnlog emulate --platform gchat|slack|discord [--port N] [--host H] [--strict] [--no-limits]
                         start one loopback emulator; prints {"platform","url"} when ready
  turnlog viz [--check]  regenerate (or verify) the machine diagrams in visualizations/
  turnlog demo [--speed N] [--keep]
                         the demo: emulator + serve + a scripted agent; prints a summary
  turnlog serve --config FILE
                         the ingest daemon; prints {"ingest"} when ready
  turnlog replay FILE|- --to URL [--from claude-code --space S]
                         send NDJSON (or Claude Code stream-json) to a running serve
  turnlog help [COMMAND] this help, or a command's help (also: turnlog COMMAND --help)
`;

const COMMANDS: Record<string, (argv: string[], io: CliIo) => Promise<number>> = {
  emulate: runEmulate,
  viz: (argv, io) => runVizCommand(argv, { stdout: { write: io.out }, stderr: { write: io.err } }),
  demo: runDemoCommand,
  serve: runServe,
  replay: runReplay,
};

export async function main(argv: string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h') {
    io.out(HELP);
    return 0;
  }
  if (command === 'help') {
    const topic = rest[0] ? COMMANDS[rest[0]] : undefined;
    if (topic) return topic(['--help'], io);
    io.out(HELP);
    return 0;
  }
  const run = COMMANDS[command];
  if (!run) {
    io.err(`turnlog: unknown command "${command}"\n\n${HELP}`);
    return 2;
  }
  try {
    return await run(rest, io);
  } catch (error) {
    if (error instanceof CliError) {
      io.err(`turnlog ${command}: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
}

main(process.argv.slice(2), processIo).then(
  (code) => {
    if (code !== 0) process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(
      `turnlog: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exitCode = 1;
  },
);
