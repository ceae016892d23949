/** `turnlog serve --config FILE`: the ingest daemon until SIGINT/SIGTERM (docs/cli.md). */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { ConfigError, LOG_LEVELS, PlatformStartupError } from '../config.js';
import { jsonErrorOf } from '../events/json-error.js';
import { shutdownOnSignal, startServe } from '../serve/index.js';
import { CliError, type CliIo } from './io.js';

export const SERVE_HELP = `Usage: turnlog serve --config FILE [options]

Runs the ingest daemon: agent hosts POST run events to it, and it keeps one
edited activity-log message per turn on the configured chat platforms.
Prints one JSON line {"ingest": "http://host:port"} when ready. On SIGTERM or
Ctrl-C it stops accepting, flushes every live turn's last frame, persists and
exits 0 (1 if that took longer than ingest.shutdownTimeoutMs); a second
signal exits 1 at once. Logs are JSON lines (pino) on stderr.

Options:
  --config FILE      the JSON config (required; schema: docs/config.schema.json)
  --host H           overrides ingest.host (default 127.0.0.1; any other host needs ingest.token)
  --port N           overrides ingest.port (default 8787; 0 = any free port)
  --log-level L      overrides log.level: ${LOG_LEVELS.join(', ')} (default info)
  -h, --help         this help

HTTP API:
  POST /v1/events        NDJSON (application/x-ndjson) or JSON (an array or one object);
                         202 {"accepted", "rejected": [{"line", "error"}]}, 400 when none is
                         accepted, 401 bad or missing token, 413 over ingest.bodyLimitBytes, 415,
                         503 + Retry-After past ingest.maxPendingBytes
  GET  /v1/turns/:turnId the turn's state; 404 for an unknown turn
  GET|PUT /v1/spaces/:space  a space's own settings {"threadsDisabled"?, "dm"?}, changed at run time
  DELETE /v1/spaces/:space   clears them (the config applies again)
  GET  /healthz          200 {"ok": true} when every surface is ready, else 503
With ingest.token set, /v1/* needs "Authorization: Bearer <token>".
A Host header other than 127.0.0.1, localhost, [::1] (with the port), ingest.host
or one in ingest.allowedHosts is answered 421 on every path.
Unknown config keys are refused (exit 2), naming the key meant.
Secrets in the config may be given as "env:NAME".
`;

export async function runServe(
  argv: string[],
  io: CliIo,
  exit: (code: number) => void = (code) => process.exit(code),
): Promise<number> {
  const { values } = parseArgsOrThrow(argv);
  if (values.help) {
    io.out(SERVE_HELP);
    return 0;
  }
  if (values.config === undefined) throw new CliError(`--config FILE is required\n\n${SERVE_HELP}`);
  const config = withOverrides(await readConfigFile(values.config), values);

  let serve: Awaited<ReturnType<typeof startServe>>;
  try {
    serve = await startServe({ config });
  } catch (error) {
    // A token Slack or the Discord gateway refused is the config's fault too: named by key, not a stack trace.
    if (isStartupError(error)) throw new CliError(`${values.config}: ${error.message}`);
    throw error;
  }
  io.out(`${JSON.stringify({ ingest: serve.url })}\n`);
  return shutdownOnSignal(serve, {
    onSignal: (handler) => io.onSignal(handler),
    exit,
    logger: serve.logger,
  });
}

function isStartupError(error: unknown): error is Error {
  return (
    // SlackStartupError and DiscordGatewayError are PlatformStartupErrors: cli names no platform.
    error instanceof ConfigError || error instanceof PlatformStartupError
  );
}

async function readConfigFile(path: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new CliError(`cannot read the config file ${path}: ${(error as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new CliError(`${path} is not JSON: ${jsonErrorOf(error)}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new CliError(`${path}: expected a JSON object (the turnlog config)`);
  }
  return value as Record<string, unknown>;
}

/** The flags go into the config before it is validated (`--host` → `ingest.host` …). */
function withOverrides(
  config: Record<string, unknown>,
  values: { host?: string | undefined; port?: string | undefined; 'log-level'?: string | undefined },
): Record<string, unknown> {
  const port = values.port === undefined ? undefined : Number(values.port);
  if (port !== undefined && !(Number.isInteger(port) && port >= 0 && port <= 65_535)) {
    throw new CliError(`--port must be an integer from 0 to 65535, got "${values.port}"`);
  }
  const level = values['log-level'];
  if (level !== undefined && !(LOG_LEVELS as readonly string[]).includes(level)) {
    throw new CliError(`--log-level must be one of ${LOG_LEVELS.join(', ')}, got "${level}"`);
  }
  const ingest = {
    ...(values.host === undefined ? {} : { host: values.host }),
    ...(port === undefined ? {} : { port }),
  };
  const log = level === undefined ? {} : { level };
  return { ...config, ...merged(config, 'ingest', ingest), ...merged(config, 'log', log) };
}

/** `{[key]: section + overrides}`, or nothing when there is nothing to override or the section is not an object (the validator names it). */
function merged(config: Record<string, unknown>, key: string, overrides: object): Record<string, unknown> {
  const section = config[key] ?? {};
  if (Object.keys(overrides).length === 0 || typeof section !== 'object' || section === null) return {};
  return { [key]: { ...section, ...overrides } };
}

function parseArgsOrThrow(argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      options: {
        config: { type: 'string' },
        host: { type: 'string' },
        port: { type: 'string' },
        'log-level': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    });
  } catch (error) {
    throw new CliError(`${(error as Error).message}\n\n${SERVE_HELP}`);
  }
}
