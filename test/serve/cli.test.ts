/**
 * `turnlog serve` (docs/cli.md): runServe in process (help, usage and
 * config errors naming the key, the ready line, SIGTERM), and once as a real
 * process against the Google Chat emulator: events in over HTTP with a
 * bearer token, the log message in the emulator, SIGTERM flushes the frame
 * still waiting in the debounce and exits 0.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CliError, type CliIo } from '../../src/cli/io.js';
import { runServe, SERVE_HELP } from '../../src/cli/serve.js';
import { startDiscordEmulator } from '../../src/emulators/discord/index.js';
import { startGchatEmulator } from '../../src/emulators/gchat/index.js';
import { firstLine, ROOT } from '../cli/cli.helpers.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'turnlog-serve-cli-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function configFile(config: unknown): string {
  const path = join(tempDir(), 'turnlog.json');
  writeFileSync(path, typeof config === 'string' ? config : JSON.stringify(config));
  return path;
}

function testIo() {
  const out: string[] = [];
  const err: string[] = [];
  const signals: (() => void)[] = [];
  const io: CliIo = {
    out: (text) => out.push(text),
    err: (text) => err.push(text),
    onSignal: (handler) => signals.push(handler),
  };
  return { io, out, err, signals };
}

describe('runServe', () => {
  it('documents every option in --help', async () => {
    const { io, out } = testIo();
    expect(await runServe(['--help'], io)).toBe(0);
    for (const option of [
      '--config FILE',
      '--host',
      '--port',
      '--log-level',
      '--help',
      'POST /v1/events',
      '/healthz',
    ]) {
      expect(out.join('')).toContain(option);
    }
    expect(out.join('')).toBe(SERVE_HELP);
  });

  it('refuses a missing --config, an unknown flag and a bad --port or --log-level as usage errors', async () => {
    const { io } = testIo();
    await expect(runServe([], io)).rejects.toThrow(/--config FILE is required/);
    await expect(runServe(['--config', 'x', '--verbose'], io)).rejects.toThrow(CliError);
    const path = configFile({});
    await expect(runServe(['--config', path, '--port', '99999'], io)).rejects.toThrow(
      '--port must be an integer from 0 to 65535, got "99999"',
    );
    await expect(runServe(['--config', path, '--log-level', 'loud'], io)).rejects.toThrow(
      /--log-level must be one of/,
    );
  });

  it('names the file when it cannot be read or is not a JSON object', async () => {
    const { io } = testIo();
    const missing = join(tempDir(), 'nope.json');
    await expect(runServe(['--config', missing], io)).rejects.toThrow(
      `cannot read the config file ${missing}`,
    );
    await expect(runServe(['--config', configFile('{oops')], io)).rejects.toThrow(/is not JSON/);
    // Node quotes the text it could not parse; a config file holds tokens.
    for (const [text, secret] of [
      ['hunter2pw', 'hunter2'],
      ['wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', 'wJalrXUtn'],
    ] as const) {
      const error = await runServe(['--config', configFile(text)], io).catch((e: unknown) => e);
      expect(String(error)).toMatch(/is not JSON/);
      expect(String(error)).not.toContain(secret);
    }
    await expect(runServe(['--config', configFile('[]')], io)).rejects.toThrow(/expected a JSON object/);
  });

  it('turns config errors into usage errors (exit 2) that name the key', async () => {
    const { io } = testIo();
    const gchat = { apiUrl: 'http://127.0.0.1:9' };
    const cases: [unknown, string[], RegExp][] = [
      [{ ingest: { bodyLimitBytes: 'x' } }, [], /ingest\.bodyLimitBytes: /],
      [{ platforms: { gchat, discord: {} } }, [], /platforms\.discord\.token: /],
      [{ platforms: { gchat, slack: {} } }, [], /platforms\.slack\.token/],
      [{ platforms: {} }, [], /platforms: configure at least one platform/],
      [
        { ingest: { token: 'env:TURNLOG_UNSET_FOR_TEST' }, platforms: { gchat } },
        [],
        /ingest\.token: environment variable TURNLOG_UNSET_FOR_TEST is not set/,
      ],
      [
        { platforms: { gchat } },
        ['--host', '0.0.0.0'],
        /ingest\.token: required when ingest\.host is not a loopback address/,
      ],
      // Issue 22.8: a misspelt section never starts serve without it; a blank audience is refused.
      [
        { ingset: { token: 's3cret-ingest-token-0123456789' }, platforms: { gchat } },
        [],
        /ingset: unknown key "ingset" \(did you mean "ingest"\?\)/,
      ],
      [
        { platforms: { gchat: { ...gchat, events: { audience: ' ' } } } },
        [],
        /platforms\.gchat\.events\.audience: /,
      ],
    ];
    for (const [config, flags, message] of cases) {
      const path = configFile(config);
      const run = runServe(['--config', path, '--port', '0', '--log-level', 'silent', ...flags], io);
      await expect(run).rejects.toThrow(CliError);
      await expect(run).rejects.toThrow(message);
      await expect(run).rejects.toThrow(path);
    }
  });

  it('names ingest.port when the port is in use', async () => {
    const taken = createServer();
    taken.listen(0, '127.0.0.1');
    await once(taken, 'listening');
    cleanups.push(() => new Promise<void>((resolve) => taken.close(() => resolve())));
    const port = (taken.address() as { port: number }).port;
    const emulator = await startGchatEmulator();
    cleanups.push(() => emulator.close());
    const path = configFile({ platforms: { gchat: { apiUrl: emulator.url } }, log: { level: 'silent' } });
    await expect(runServe(['--config', path, '--port', String(port)], testIo().io)).rejects.toThrow(
      `ingest.port: ${port} on 127.0.0.1 is already in use`,
    );
  });

  it('prints one ready line, serves, and returns 0 after SIGTERM', async () => {
    const emulator = await startGchatEmulator();
    cleanups.push(() => emulator.close());
    const path = configFile({ platforms: { gchat: { apiUrl: emulator.url } }, log: { level: 'silent' } });
    const { io, out, signals } = testIo();
    const exit = vi.fn();
    const code = runServe(['--config', path, '--port', '0'], io, exit);
    await vi.waitFor(() => expect(out).toHaveLength(1), { timeout: 10_000 });
    const { ingest } = JSON.parse(out[0] ?? '') as { ingest: string };
    expect(ingest).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await fetch(`${ingest}/healthz`)).status).toBe(200);
    signals[0]?.();
    expect(await code).toBe(0);
    expect(exit).not.toHaveBeenCalled();
    await expect(fetch(`${ingest}/healthz`)).rejects.toThrow();
  });
});

describe('turnlog serve as a process', () => {
  function spawnServe(args: string[], env: Record<string, string>): ChildProcessWithoutNullStreams {
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/serve/fixtures/serve-main.ts', ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
    });
    child.stderr.resume();
    cleanups.push(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
    return child;
  }

  it('exits 2 with the key named for a config error', async () => {
    const path = configFile({ ingest: { bodyLimitBytes: -1 }, platforms: { gchat: {} } });
    const child = spawnServe(['--config', path], {});
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr += String(d);
    });
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(2);
    expect(stderr).toMatch(/ingest\.bodyLimitBytes: /);
  });

  // Issue 22.8: a Discord gateway start-up failure is one line and exit 2, as every other start-up error.
  it('exits 2 with one line naming platforms.discord.token when the gateway refuses the token', async () => {
    const emulator = await startDiscordEmulator({ gateway: { tokens: ['the-real-token'] } });
    cleanups.push(() => emulator.close());
    const path = configFile({
      platforms: { discord: { apiUrl: emulator.url, token: 'revoked-token', gateway: true } },
      log: { level: 'silent' },
    });
    const child = spawnServe(['--config', path, '--port', '0'], {});
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr += String(d);
    });
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(2);
    expect(stderr).toMatch(/platforms\.discord\.token/);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).not.toMatch(/\n\s+at /);
  });

  // spec: issue item 1 — SIGTERM: stop accepting, flush every live turn's pending frame, persist, exit 0.
  it('posts to the Google Chat emulator, and on SIGTERM flushes the waiting frame and exits 0', async () => {
    const emulator = await startGchatEmulator({ limits: [] });
    cleanups.push(() => emulator.close());
    const dir = tempDir();
    const path = join(dir, 'turnlog.json');
    writeFileSync(
      path,
      JSON.stringify({
        ingest: { port: 0, token: 'env:TURNLOG_SERVE_TEST_TOKEN' },
        store: { path: join(dir, 'turnlog.sqlite') },
        platforms: { gchat: { apiUrl: emulator.url } },
        // Only the shutdown flush can send the second line within this test.
        visibility: { threadLog: { editDebounceMs: 600_000 } },
        log: { level: 'warn' },
      }),
    );
    const token = 'process-test-token-42';
    const child = spawnServe(['--config', path], { TURNLOG_SERVE_TEST_TOKEN: token });
    const ready = JSON.parse(await firstLine(child)) as { ingest: string };
    expect(Object.keys(ready)).toEqual(['ingest']);

    const space = 'gchat:spaces/PROC';
    const root = emulator.state.inbound({ space: 'spaces/PROC', text: 'please run the tests' });
    const post = (events: Record<string, unknown>[], auth = `Bearer ${token}`) =>
      fetch(`${ready.ingest}/v1/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-ndjson', authorization: auth },
        body: events.map((e) => JSON.stringify({ space, turnId: 'T1', ...e })).join('\n'),
      });

    expect((await post([{ type: 'note', text: 'x' }], 'Bearer wrong')).status).toBe(401);
    const first = await post([
      { type: 'inbound', turnId: undefined, messageId: root.messageId, threadId: root.threadId, ref: 'u1' },
      { type: 'turn_started', rootRef: 'u1' },
      { type: 'tool_call', callId: 'c1', tool: 'Bash', input: { command: 'npm test' } },
    ]);
    expect(await first.json()).toEqual({ accepted: 3, rejected: [], duplicates: 0 });
    await vi.waitFor(
      () =>
        expect(
          emulator.state.calls().filter((c) => c.op === 'create' && c.thread === root.threadId),
        ).toHaveLength(1),
      { timeout: 10_000 },
    );
    const second = await post([
      { type: 'tool_result', callId: 'c1', tool: 'Bash', ok: true, summary: '42 passed' },
    ]);
    expect(second.status).toBe(202);
    const turn = await fetch(`${ready.ingest}/v1/turns/T1`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(await turn.json()).toMatchObject({ turnId: 'T1', entries: 2 });
    expect(emulator.state.calls().filter((c) => c.op === 'update')).toEqual([]);

    child.kill('SIGTERM');
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(0);
    const [log] = emulator.state
      .messages('spaces/PROC')
      .filter((m) => m.thread === root.threadId && m.text.includes('npm test'));
    expect(log?.edits).toBe(1);
    expect(log?.text).toContain('42 passed');
    expect(
      emulator.state.calls().filter((c) => c.op === 'create' && c.thread === root.threadId),
    ).toHaveLength(1);
  });
});
