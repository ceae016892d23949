/**
 * `turnlog replay` (docs/cli.md): runReplay in process with a fake CliIo
 * against a local stand-in of serve's ingest, and once as a process with
 * stdin piped.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createReadStream, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CliError, type CliIo } from '../../src/cli/io.js';
import { REPLAY_HELP, type ReplayContext, runReplay } from '../../src/cli/replay.js';
import { SESSION_FIXTURE, SESSION_ID } from '../fixtures/claude-code/session.js';
import { type IngestStub, startIngestStub } from './ingest-stub.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SPACE = 'gchat:spaces/AAAA';

let stubs: IngestStub[] = [];
async function stub(opts: Parameters<typeof startIngestStub>[0] = {}): Promise<IngestStub> {
  const started = await startIngestStub(opts);
  stubs.push(started);
  return started;
}
afterEach(async () => {
  await Promise.all(stubs.map((s) => s.close()));
  stubs = [];
});

function fakeIo(): { io: CliIo; out: () => string; err: () => string; signal: () => void } {
  let out = '';
  let err = '';
  let handler: (() => void) | undefined;
  return {
    io: {
      out: (text) => {
        out += text;
      },
      err: (text) => {
        err += text;
      },
      onSignal: (h) => {
        handler = h;
      },
    },
    out: () => out,
    err: () => err,
    signal: () => handler?.(),
  };
}

function tempFile(name: string, text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'turnlog-replay-')), name);
  writeFileSync(path, text);
  return path;
}

const context = (env: Record<string, string> = {}, stdin: Readable = Readable.from([])): ReplayContext => ({
  stdin,
  env,
});

async function replay(argv: string[], ctx: ReplayContext = context()) {
  const f = fakeIo();
  const code = await runReplay(argv, f.io, ctx);
  return { code, out: f.out(), err: f.err() };
}

const ndjson = (...events: unknown[]) =>
  `${events.map((e) => (typeof e === 'string' ? e : JSON.stringify(e))).join('\n')}\n`;
const started = { type: 'turn_started', space: SPACE, turnId: 'T1' };
const note = (text: string) => ({ type: 'note', space: SPACE, turnId: 'T1', text });
const ended = { type: 'turn_ended', space: SPACE, turnId: 'T1', outcome: 'ok' };

describe('turnlog replay: NDJSON run events', () => {
  it('sends every line and prints {"sent","accepted","rejected"}; exit 0 when all were accepted', async () => {
    const s = await stub();
    const file = tempFile('events.ndjson', ndjson(started, note('one'), '', note('two'), ended));
    const r = await replay([file, '--to', s.url]);
    expect(r).toEqual({ code: 0, out: '{"sent":4,"accepted":4,"rejected":0}\n', err: '' });
    expect(s.events.map((e) => e.type)).toEqual(['turn_started', 'note', 'note', 'turn_ended']);
  });

  it('prints each rejected line with its number (unreadable here or refused by the ingest); exit 1', async () => {
    const s = await stub();
    const file = tempFile(
      'events.ndjson',
      ndjson(
        started,
        '{"type": "note",',
        '[1]',
        { type: 'tool_call', space: SPACE, turnId: 'T1', callId: 'c1' },
        ended,
      ),
    );
    const r = await replay([file, '--to', s.url]);
    expect(r.code).toBe(1);
    expect(r.out).toBe('{"sent":3,"accepted":2,"rejected":3}\n');
    expect(r.err.trimEnd().split('\n')).toEqual([
      expect.stringMatching(/^line 2: invalid JSON: /),
      'line 3: expected a JSON object (one run event)',
      expect.stringMatching(/^line 4: turnlog rejected tool_call c1 of turn T1: tool_call\.tool: missing/),
    ]);
  });

  it('never quotes an unreadable line in its error (it may be a secret)', async () => {
    const s = await stub();
    const file = tempFile(
      'events.ndjson',
      ndjson(started, 'hunter2pw', 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', ended),
    );
    const r = await replay([file, '--to', s.url]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^line 2: invalid JSON: /);
    expect(r.err).not.toContain('hunter2');
    expect(r.err).not.toContain('wJalrXUtn');
  });

  it('prints at most 100 rejected lines and counts the rest', async () => {
    const s = await stub();
    const r = await replay([
      tempFile('bad.ndjson', ndjson(...Array.from({ length: 105 }, () => '{'))),
      '--to',
      s.url,
    ]);
    const lines = r.err.trimEnd().split('\n');
    expect(lines).toHaveLength(101);
    expect(lines[99]).toMatch(/^line 100: invalid JSON/);
    expect(lines[100]).toBe('… and 5 more rejected');
    expect(r.out).toBe('{"sent":0,"accepted":0,"rejected":105}\n');
  });

  it('takes the token from --token, else TURNLOG_TOKEN', async () => {
    const s = await stub({ token: 'sesame' });
    const file = tempFile('events.ndjson', ndjson(started, ended));
    expect((await replay([file, '--to', s.url], context({ TURNLOG_TOKEN: 'sesame' }))).code).toBe(0);
    expect((await replay([file, '--to', s.url, '--token', 'sesame'])).code).toBe(0);
    expect(s.requests.map((r) => r.authorization)).toEqual(['Bearer sesame', 'Bearer sesame']);
  });

  it('a wrong token fails fast: one clear error, nothing more sent, exit 1', async () => {
    const s = await stub({ token: 'sesame' });
    const events = [started, ...Array.from({ length: 7 }, (_, i) => note(`n${i}`)), ended];
    const file = tempFile('events.ndjson', ndjson(...events));
    const wrong = await replay(
      [file, '--to', s.url, '--token', 'guess', '--batch', '2'],
      context({ TURNLOG_TOKEN: 'sesame' }),
    );
    expect(wrong.code).toBe(1);
    const lines = wrong.err.trimEnd().split('\n');
    expect(lines).toEqual([
      `turnlog replay: the ingest refused the token (HTTP 401: missing or wrong bearer token): give the ingest's token with --token T or $TURNLOG_TOKEN; stopped at line 2, nothing more was sent`,
    ]);
    // The first request was refused; no other was made.
    expect(s.requests.map((r) => [r.status, r.authorization])).toEqual([[401, 'Bearer guess']]);
    expect(JSON.parse(wrong.out)).toEqual({ sent: 2, accepted: 0, rejected: 2 });
  });

  it('sends at most --batch events per request', async () => {
    const s = await stub();
    const file = tempFile(
      'events.ndjson',
      ndjson(started, ...Array.from({ length: 8 }, (_, i) => note(`n${i}`)), ended),
    );
    expect((await replay([file, '--to', s.url, '--batch', '4'])).code).toBe(0);
    expect(s.requests.map((r) => r.body.trimEnd().split('\n').length)).toEqual([4, 4, 2]);
  });

  it('prints progress to stderr on a long input', async () => {
    const s = await stub();
    const lines = Array.from({ length: 2500 }, (_, i) => ({
      type: 'inbound',
      space: SPACE,
      messageId: `m${i}`,
    }));
    const r = await replay([tempFile('long.ndjson', ndjson(...lines)), '--to', s.url]);
    expect(r.code).toBe(0);
    const progress = r.err.trimEnd().split('\n');
    expect(progress).toHaveLength(2);
    expect(progress[0]).toMatch(/^turnlog replay: line 1000: \d+ sent, \d+ accepted, 0 rejected so far$/);
    expect(progress[1]).toMatch(/^turnlog replay: line 2000: /);
    expect(r.out).toBe('{"sent":2500,"accepted":2500,"rejected":0}\n');
  });

  it('an input that cannot be read to its end: says why, prints the summary, exit 1', async () => {
    const s = await stub();
    const dir = mkdtempSync(join(tmpdir(), 'turnlog-replay-dir-'));
    const r = await replay([dir, '--to', s.url]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(new RegExp(`^turnlog replay: cannot read ${dir}: EISDIR`));
    expect(r.out).toBe('{"sent":0,"accepted":0,"rejected":0}\n');
  });
});

describe('turnlog replay --from claude-code', () => {
  it('translates the session into run events for --space, under the session id', async () => {
    const s = await stub();
    const r = await replay([SESSION_FIXTURE, '--from', 'claude-code', '--space', SPACE, '--to', s.url]);
    expect(r).toEqual({ code: 0, out: '{"sent":25,"accepted":25,"rejected":0}\n', err: '' });
    expect(new Set(s.events.map((e) => `${e.space} ${e.turnId}`))).toEqual(
      new Set([`${SPACE} ${SESSION_ID}`]),
    );
    expect(s.events.at(-1)).toMatchObject({ type: 'turn_ended', outcome: 'ok' });
  });

  it('--turn names the turn; unknown line types are counted on stderr; bad lines are rejected', async () => {
    const s = await stub();
    const file = tempFile(
      'claude.ndjson',
      ndjson(
        { type: 'system', subtype: 'init', session_id: 'S1' },
        { type: 'stream_event', event: {} },
        'not json',
        { type: 'result', subtype: 'success', is_error: false, result: 'ok', session_id: 'S1' },
      ),
    );
    const r = await replay([file, '--from', 'claude-code', '--space', SPACE, '--turn', 'T-9', '--to', s.url]);
    expect(r.code).toBe(1);
    expect(r.err.trimEnd().split('\n')).toEqual([
      'turnlog replay: skipped 1 line of unknown type (stream_event)',
      expect.stringMatching(/^line 3: invalid JSON: /),
    ]);
    expect(s.events.map((e) => `${e.type}:${e.turnId}`)).toEqual([
      'turn_started:T-9',
      'answer:T-9',
      'turn_ended:T-9',
    ]);
  });

  it('on Ctrl-C stops reading, ends the open turn as stopped, sends what was read; exit 1', async () => {
    const s = await stub();
    const stdin = new PassThrough();
    const f = fakeIo();
    const running = runReplay(
      ['-', '--from', 'claude-code', '--space', SPACE, '--to', s.url],
      f.io,
      context({}, stdin),
    );
    stdin.write(`${JSON.stringify({ type: 'system', subtype: 'init', session_id: 'S1' })}\n`);
    stdin.write(
      `${JSON.stringify({ type: 'assistant', message: { content: [{ type: 'text', text: 'working' }] }, session_id: 'S1' })}\n`,
    );
    await vi.waitFor(() => expect(s.events).toHaveLength(2), { timeout: 10_000 });
    f.signal();
    expect(await running).toBe(1);
    expect(s.events.map((e) => (e.type === 'turn_ended' ? `ended:${e.outcome}` : e.type))).toEqual([
      'turn_started',
      'assistant',
      'ended:stopped',
    ]);
    expect(f.err()).toContain('turnlog replay: interrupted after line 2; what was read has been sent');
    expect(f.out()).toBe('{"sent":3,"accepted":3,"rejected":0}\n');
  });

  it('reads stdin with "-" in a process of its own (stdin piped)', async () => {
    const s = await stub();
    const script = `import('./src/cli/replay.ts').then(async ({ runReplay }) => {
      const io = { out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t), onSignal() {} };
      process.exitCode = await runReplay(process.argv.slice(1), io);
    });`;
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '-e', script, '-', '--from', 'claude-code', '--space', SPACE, '--to', s.url],
      { cwd: ROOT, env: { ...process.env, TURNLOG_TOKEN: '' } },
    );
    createReadStream(SESSION_FIXTURE).pipe(child.stdin);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += String(d);
    });
    child.stderr.on('data', (d) => {
      stderr += String(d);
    });
    const [code] = (await once(child, 'exit')) as [number | null];
    expect({ code, stdout, stderr }).toEqual({
      code: 0,
      stdout: '{"sent":25,"accepted":25,"rejected":0}\n',
      stderr: '',
    });
    expect(s.events).toHaveLength(25);
  });
});

describe('turnlog replay: usage', () => {
  it('--help documents every option and the summary', async () => {
    const r = await replay(['--help']);
    expect(r.code).toBe(0);
    for (const text of [
      '--to',
      '--token',
      'TURNLOG_TOKEN',
      '--from',
      'claude-code',
      '--space',
      '--turn',
      '--batch',
      '-h, --help',
      '"sent"',
      'Exit status',
    ]) {
      expect(r.out).toContain(text);
    }
    expect(r.out).toBe(REPLAY_HELP);
  });

  it.each([
    [[], 'give the input: a FILE, or - for stdin'],
    [['a', 'b', '--to', 'http://h'], 'give one input (a FILE, or - for stdin), got 2: a b'],
    [['-'], '--to INGEST_URL is required'],
    [['-', '--to', 'localhost:8787'], '--to: the ingest url "localhost:8787" must be http: or https:'],
    [['-', '--to', 'http://h', '--from', 'jsonl'], '--from must be ndjson or claude-code, got "jsonl"'],
    [['-', '--to', 'http://h', '--space', SPACE], '--space goes with --from claude-code'],
    [['-', '--to', 'http://h', '--turn', 'T'], '--turn goes with --from claude-code'],
    [['-', '--to', 'http://h', '--from', 'claude-code'], '--from claude-code needs --space SPACE'],
    [
      ['-', '--to', 'http://h', '--from', 'claude-code', '--space', 'AAAA'],
      '--space must be a platform-prefixed space',
    ],
    [
      ['-', '--to', 'http://h', '--from', 'claude-code', '--space', SPACE, '--turn', ''],
      '--turn must not be empty',
    ],
    [['-', '--to', 'http://h', '--batch', '0'], '--batch must be an integer from 1 to 10000, got "0"'],
    [['-', '--to', 'http://h', '--batch', 'many'], '--batch must be an integer from 1 to 10000, got "many"'],
    [['-', '--to', 'http://h', '--speed', '2'], "Unknown option '--speed'"],
    [['/no/such/file.ndjson', '--to', 'http://h'], 'cannot read /no/such/file.ndjson: ENOENT'],
  ])('%j is a usage error: %s', async (argv, message) => {
    const error = await replay(argv).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).message).toContain(message);
  });
});
