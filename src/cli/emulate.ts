/** `turnlog emulate --platform X [--port N]`: one loopback emulator until SIGINT/SIGTERM. */
import { parseArgs } from 'node:util';
import { EMULATED_PLATFORMS, startEmulator } from '../emulators/index.js';
import type { Platform } from '../emulators/types.js';
import { CliError, type CliIo } from './io.js';

export const EMULATE_HELP = `Usage: turnlog emulate --platform gchat|slack|discord [options]

Starts a loopback emulator of the platform's REST API (the subset turnlog
uses), with the platform's rate limits and the inspection API at
/_emulator/* (calls, messages, faults, inbound, delete, limits, reset).
Prints one JSON line {"platform": …, "url": …} when ready; stops on Ctrl-C.

Options:
  --platform P   gchat, slack or discord (required)
  --port N       port to listen on (default: any free port)
  --host H       address to listen on (default: 127.0.0.1)
  --strict       refuse what the platform's strictest reading refuses
                 (gchat: text over 4096 chars; slack: threads in DMs; discord: undeclared channels)
  --no-limits    turn the default rate limits off
  -h, --help     this help

Point the official clients at the printed url:
  gchat    google.chat({version: 'v1', rootUrl: url + '/'})
  slack    new WebClient(token, {slackApiUrl: url + '/api/'})
  discord  new REST({version: '10', api: url + '/api'})
`;

export async function runEmulate(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseArgsOrThrow(argv);
  if (values.help) {
    io.out(EMULATE_HELP);
    return 0;
  }
  const platform = values.platform;
  if (!platform) throw new CliError(`--platform is required (${EMULATED_PLATFORMS.join(', ')})`);
  if (!(EMULATED_PLATFORMS as readonly string[]).includes(platform)) {
    throw new CliError(`--platform must be one of ${EMULATED_PLATFORMS.join(', ')}, got "${platform}"`);
  }
  const port = values.port === undefined ? undefined : Number(values.port);
  if (port !== undefined && !(Number.isInteger(port) && port >= 0 && port <= 65_535)) {
    throw new CliError(`--port must be an integer from 0 to 65535, got "${values.port}"`);
  }
  const emulator = await startEmulator({
    platform: platform as Platform,
    ...(port !== undefined ? { port } : {}),
    ...(values.host ? { host: values.host } : {}),
    ...(values.strict ? { strict: true } : {}),
    ...(values['no-limits'] ? { limits: [] } : {}),
  });
  io.out(`${JSON.stringify({ platform, url: emulator.url })}\n`);
  await new Promise<void>((resolve) => io.onSignal(resolve));
  await emulator.close();
  return 0;
}

function parseArgsOrThrow(argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      options: {
        platform: { type: 'string' },
        port: { type: 'string' },
        host: { type: 'string' },
        strict: { type: 'boolean' },
        'no-limits': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    });
  } catch (error) {
    throw new CliError(`${(error as Error).message}\n\n${EMULATE_HELP}`);
  }
}
