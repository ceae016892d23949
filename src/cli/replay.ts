/**
 * `turnlog replay FILE|- --to INGEST_URL [--token T] [--from claude-code
 * --space SPACE [--turn ID]] [--batch N]` (docs/cli.md): an ingest
 * client that sends NDJSON run events, or Claude Code stream-json translated
 * into run events, to a running `turnlog serve`.
 */
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { parseArgs } from 'node:util';
import { createTurnlogClient } from '../client/http-client.js';
import { HTTP_DEFAULTS, ingestEndpoint } from '../client/http-transport.js';
import { jsonErrorOf } from '../events/json-error.js';
import { SPACE_PATTERN } from '../events/schema.js';
import { ClaudeCodeTranslator, type TranslatedLine } from '../ingest/claude-code.js';
import { type NdjsonLine, openNdjsonInput, readNdjsonLines } from '../ingest/ndjson.js';
import { CliError, type CliIo } from './io.js';

/** Progress goes to stderr every this many input lines. */
export const PROGRESS_EVERY = 1000;
/** Rejected lines printed at most; the count says the rest. */
const MAX_PRINTED_REJECTIONS = 100;
const MAX_BATCH = 10_000;

export const REPLAY_HELP = `Usage: turnlog replay FILE|- --to INGEST_URL [options]

Sends run events (NDJSON, one event per line) from FILE, or from stdin with -,
to a running \`turnlog serve\`. With --from claude-code it reads the output of
\`claude -p … --output-format stream-json --verbose\` instead and translates it
into run events for --space: one turn, titled "Claude Code in <project>" (its
log threads under a 🕒 header), ended by the result line; a stream that ends
without one (Claude Code stopped or crashed, or Ctrl-C here) ends it as stopped.

Prints progress to stderr every ${PROGRESS_EVERY} lines, the rejected lines with their line
numbers to stderr, and at the end one JSON line on stdout:
  {"sent": N, "accepted": N, "rejected": N}
sent: events posted; accepted: events the ingest took; rejected: input lines
or events not taken (unreadable here, refused by the ingest, or undelivered
after the retries).

Options:
  --to URL          the ingest, as \`turnlog serve\` prints it (http://127.0.0.1:8787) (required)
  --token T         the ingest's bearer token (default: $TURNLOG_TOKEN)
  --from FORMAT     ndjson (default): run events as they are;
                    claude-code: Claude Code stream-json output
  --space SPACE     with --from claude-code: the chat space of the turn
                    (gchat:spaces/AAAA, slack:C0123ABCD, discord:<channel id>) (required there)
  --turn ID         with --from claude-code: the turn id (default: the Claude Code session id)
  --batch N         events per request at most (default ${HTTP_DEFAULTS.maxBatch})
  -h, --help        this help

Exit status: 0 when every event was accepted, 1 when some were not (or the
input could not be read to its end), 2 for usage errors. A token the ingest
refuses (401/403) stops the replay at once with one error, exit 1.

Example:
  claude -p "fix the build" --output-format stream-json --verbose \\
    | turnlog replay - --from claude-code --space gchat:spaces/AAAA --to http://127.0.0.1:8787
`;

/** What replay reads besides its arguments (tests give their own). */
export interface ReplayContext {
  stdin: Readable;
  env: Record<string, string | undefined>;
}

interface ReplayPlan {
  input: string;
  to: string;
  token?: string;
  from: 'ndjson' | 'claude-code';
  space?: string;
  turn?: string;
  batch: number;
}

interface Rejection {
  line: number;
  error: string;
  /** Refused for the token: reported once for all, not line by line. */
  token?: boolean;
}

export async function runReplay(
  argv: string[],
  io: CliIo,
  context: ReplayContext = { stdin: process.stdin, env: process.env },
): Promise<number> {
  const { values, positionals } = parseArgsOrThrow(argv);
  if (values.help) {
    io.out(REPLAY_HELP);
    return 0;
  }
  const plan = planOf(values, positionals, context.env);
  if (plan.input !== '-') await assertReadable(plan.input);

  const rejections: Rejection[] = [];
  const lineOf = new WeakMap<object, number>();
  // A token the ingest refuses will be refused for every line: stop at the first refusal, say it once.
  let refusedToken: string | undefined;
  const client = createTurnlogClient({
    url: plan.to,
    maxBatch: plan.batch,
    ...(plan.token !== undefined ? { token: plan.token } : {}),
    onRejected: (error) => {
      const line = lineOf.get(error.event) ?? 0;
      if (error.status === 401 || error.status === 403) {
        refusedToken ??= error.reason;
        rejections.push({ line, error: error.message, token: true });
      } else rejections.push({ line, error: error.message });
    },
  });
  const source = openNdjsonInput(plan.input, context.stdin);
  let interrupted = false;
  io.onSignal(() => {
    interrupted = true;
    source.destroy();
  });

  const skipped = new Map<string, number>();
  let lastLine = 0;
  let queued = 0;
  const send = async (event: Record<string, unknown>, line: number) => {
    lineOf.set(event, line);
    client.send(event);
    // A full batch is sent before reading on, so a large file never piles up in memory.
    if (++queued % plan.batch === 0) await client.flush();
  };
  const progress = (line: number) => {
    if (Math.floor(line / PROGRESS_EVERY) <= Math.floor(lastLine / PROGRESS_EVERY)) return;
    const { sent, accepted, rejected } = client.counts;
    io.err(`turnlog replay: line ${line}: ${sent} sent, ${accepted} accepted, ${rejected} rejected so far\n`);
  };

  const translator =
    plan.from === 'claude-code'
      ? new ClaudeCodeTranslator({
          space: plan.space as string,
          ...(plan.turn !== undefined ? { turnId: plan.turn } : {}),
        })
      : undefined;
  const take = async (items: TranslatedLine[]) => {
    for (const item of items) {
      if ('event' in item) await send(item.event, item.line);
      else if ('error' in item) rejections.push({ line: item.line, error: item.error });
      else skipped.set(item.skipped, (skipped.get(item.skipped) ?? 0) + 1);
    }
  };

  let readError: string | undefined;
  try {
    for await (const { line, text } of readNdjsonLines(source)) {
      if (refusedToken !== undefined) break;
      progress(line);
      lastLine = line;
      if (translator) await take(translator.translate(line, text));
      else {
        const parsed = parseLine({ line, text });
        if ('event' in parsed) await send(parsed.event, line);
        else rejections.push(parsed);
      }
    }
  } catch (error) {
    if (!interrupted) readError = error instanceof Error ? error.message : String(error);
  }
  // A Claude Code turn cut short (no result line) still ends, as stopped.
  if (translator && refusedToken === undefined) await take(translator.finish(lastLine));
  await client.close();

  if (interrupted)
    io.err(`turnlog replay: interrupted after line ${lastLine}; what was read has been sent\n`);
  if (readError !== undefined)
    io.err(`turnlog replay: cannot read ${describeInput(plan.input)}: ${readError}\n`);
  if (skipped.size > 0) {
    const total = [...skipped.values()].reduce((a, b) => a + b, 0);
    io.err(
      `turnlog replay: skipped ${total} ${total === 1 ? 'line' : 'lines'} of unknown type (${[...skipped.keys()].join(', ')})\n`,
    );
  }
  if (refusedToken !== undefined) {
    io.err(
      `turnlog replay: the ingest refused the token (${refusedToken}): give the ingest's token with --token T or $TURNLOG_TOKEN; stopped at line ${lastLine}, nothing more was sent\n`,
    );
  }
  printRejections(
    io,
    rejections.filter((r) => !r.token),
  );
  const { sent, accepted } = client.counts;
  io.out(`${JSON.stringify({ sent, accepted, rejected: rejections.length })}\n`);
  return rejections.length === 0 && readError === undefined && !interrupted ? 0 : 1;
}

function parseLine({ line, text }: NdjsonLine): { event: Record<string, unknown> } | Rejection {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { line, error: `invalid JSON: ${jsonErrorOf(error)}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { line, error: 'expected a JSON object (one run event)' };
  }
  return { event: value as Record<string, unknown> };
}

function printRejections(io: CliIo, rejections: Rejection[]): void {
  const sorted = [...rejections].sort((a, b) => a.line - b.line);
  for (const { line, error } of sorted.slice(0, MAX_PRINTED_REJECTIONS)) io.err(`line ${line}: ${error}\n`);
  if (sorted.length > MAX_PRINTED_REJECTIONS) {
    io.err(`… and ${sorted.length - MAX_PRINTED_REJECTIONS} more rejected\n`);
  }
}

function describeInput(input: string): string {
  return input === '-' ? 'stdin' : input;
}

async function assertReadable(path: string): Promise<void> {
  try {
    await access(path, constants.R_OK);
  } catch (error) {
    throw new CliError(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
}

type ParsedValues = ReturnType<typeof parseArgsOrThrow>['values'];

function planOf(
  values: ParsedValues,
  positionals: string[],
  env: Record<string, string | undefined>,
): ReplayPlan {
  if (positionals.length !== 1) {
    throw new CliError(
      positionals.length === 0
        ? 'give the input: a FILE, or - for stdin'
        : `give one input (a FILE, or - for stdin), got ${positionals.length}: ${positionals.join(' ')}`,
    );
  }
  const input = positionals[0] as string;
  if (!values.to) throw new CliError('--to INGEST_URL is required (the url `turnlog serve` prints)');
  try {
    ingestEndpoint(values.to);
  } catch (error) {
    throw new CliError(`--to: ${(error as Error).message}`);
  }
  const from = values.from ?? 'ndjson';
  if (from !== 'ndjson' && from !== 'claude-code') {
    throw new CliError(`--from must be ndjson or claude-code, got "${from}"`);
  }
  if (from === 'ndjson') {
    for (const option of ['space', 'turn'] as const) {
      if (values[option] !== undefined) throw new CliError(`--${option} goes with --from claude-code`);
    }
  } else if (values.space === undefined) {
    throw new CliError('--from claude-code needs --space SPACE (e.g. gchat:spaces/AAAA)');
  } else if (!SPACE_PATTERN.test(values.space)) {
    throw new CliError(
      `--space must be a platform-prefixed space (gchat:spaces/AAAA, slack:C0123ABCD, discord:<channel id>), got "${values.space}"`,
    );
  }
  if (values.turn === '') throw new CliError('--turn must not be empty');
  const batch = values.batch === undefined ? HTTP_DEFAULTS.maxBatch : Number(values.batch);
  if (!Number.isInteger(batch) || batch < 1 || batch > MAX_BATCH) {
    throw new CliError(`--batch must be an integer from 1 to ${MAX_BATCH}, got "${values.batch}"`);
  }
  const token = values.token || env.TURNLOG_TOKEN || undefined;
  return {
    input,
    to: values.to,
    from,
    batch,
    ...(token !== undefined ? { token } : {}),
    ...(values.space !== undefined ? { space: values.space } : {}),
    ...(values.turn !== undefined ? { turn: values.turn } : {}),
  };
}

function parseArgsOrThrow(argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      options: {
        to: { type: 'string' },
        token: { type: 'string' },
        from: { type: 'string' },
        space: { type: 'string' },
        turn: { type: 'string' },
        batch: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: true,
    });
  } catch (error) {
    throw new CliError(`${(error as Error).message}\n\n${REPLAY_HELP}`);
  }
}
