#!/usr/bin/env node
/** The `turnlog` command. */
const HELP = `turnlog — one edited activity-log message per agent turn

Usage:
  turnlog demo                       run the demo (arrives in a later change)
  turnlog --help                     this help
`;

function main(argv: string[]): number {
  const [command] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(HELP);
    return 0;
  }
  if (command === 'demo') {
    process.stdout.write('turnlog demo: the demo arrives in a later change (see README "Status").\n');
    return 0;
  }
  process.stderr.write(`turnlog: unknown command "${command}"\n\n${HELP}`);
  return 2;
}

process.exitCode = main(process.argv.slice(2));
