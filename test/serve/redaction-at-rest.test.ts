/**
 * Nothing unredacted is ever written anywhere: every secret family goes
 * through `turnlog serve` with a SQLite file store — in accepted events, in
 * lines refused for their shape, in lines that are not JSON, in events for a
 * turn that has ended, in bodies refused whole — and then the SQLite files
 * (main and WAL) and the log are scanned for the secrets, byte for byte.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createSqliteStore } from '../../src/store/sqlite.js';
import { type PlacedSecret, SECRET_FAMILIES } from '../events/secret-fixtures.js';
import { ndjson, postEvents, SPACE, startTestServe, type TestServe, turnEvents } from './serve.helpers.js';

let serve: TestServe | undefined;
let dir: string | undefined;
afterEach(async () => {
  await serve?.close();
  serve = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** A sample of every family, on the suite's fixed seed (the property tests in test/events try many more). */
const secrets: PlacedSecret[] = SECRET_FAMILIES.flatMap((family) => fc.sample(family, 1));

function leaksIn(bytes: Buffer, placed: PlacedSecret[]): string[] {
  return placed.filter((p) => bytes.includes(Buffer.from(p.secret, 'utf8'))).map((p) => p.family);
}

const readIfThere = (path: string): Buffer => {
  try {
    return readFileSync(path);
  } catch {
    return Buffer.alloc(0);
  }
};

describe('serve: nothing unredacted at rest', () => {
  it('keeps no secret of any family in the SQLite files (main, WAL) or the log, accepted or refused', async () => {
    dir = mkdtempSync(join(tmpdir(), 'turnlog-redact-'));
    const path = join(dir, 'turnlog.db');
    // The simulated clock stands still, so a flush could only time out: a short bound.
    serve = await startTestServe({ store: createSqliteStore({ path }), ingest: { shutdownTimeoutMs: 200 } });
    const s = serve;
    const post = (body: string, contentType?: string) =>
      postEvents(s.url, body, contentType === undefined ? {} : { contentType });

    const lines: string[] = [];
    let acceptedCount = 0;
    let refusedCount = 0;
    for (const [i, placed] of secrets.entries()) {
      const turnId = `T${i}`;
      const text = placed.text;
      const [inbound, started] = turnEvents(s.surface, turnId);
      // Issue 22.3: a command given as words (policy_request.command + args).
      const [command = 'x', ...args] = placed.argv ?? [text];
      const request = { type: 'policy_request', space: SPACE, turnId, requestId: 'r1', command, args };
      const accepted = [
        inbound,
        started,
        request,
        {
          type: 'policy_decision',
          space: SPACE,
          turnId,
          requestId: 'r1',
          decision: 'approved',
          command: text,
        },
        { type: 'command', space: SPACE, turnId, command: text },
        { type: 'tool_call', space: SPACE, turnId, callId: 'c1', tool: 'Bash', input: { command: text } },
        { type: 'tool_result', space: SPACE, turnId, callId: 'c1', tool: 'Bash', ok: false, output: text },
        { type: 'note', space: SPACE, turnId, text, [`x-${i}`]: text },
        { type: 'answer', space: SPACE, turnId, text },
        { type: 'turn_ended', space: SPACE, turnId, outcome: 'ok' },
      ];
      const refused = [
        // Refused for its shape, the secret in a free-text field and in a field that holds an id.
        { type: 'tool_result', space: SPACE, turnId, callId: 'c2', tool: 'Bash', ok: 'yes', output: text },
        { type: 'tool_result', space: SPACE, turnId, callId: text, tool: 'Bash', ok: text },
        { type: 'no-such-type', space: SPACE, turnId, text },
        { ...request, requestId: 7 },
        // For a turn that has ended.
        { type: 'note', space: SPACE, turnId, text },
      ];
      const notJson = `${JSON.stringify({ type: 'note', space: SPACE, turnId, text })}`.slice(0, -1);
      const requestNotJson = JSON.stringify(request).slice(0, -1);
      lines.push(ndjson(...accepted, ...refused), notJson, requestNotJson);
      acceptedCount += accepted.length;
      refusedCount += refused.length + 2;
    }
    // Refused before the runtime: string items of an array, a body that is not JSON.
    const texts = secrets.map((p) => p.text);
    expect((await post(JSON.stringify(texts), 'application/json')).status).toBe(400);
    const notJsonBody = texts.map((t) => `{"type": "note", "text": ${JSON.stringify(t)}`).join(',');
    expect((await post(notJsonBody, 'application/json')).status).toBe(400);
    const { status, json } = await post(lines.join('\n'));
    expect(status).toBe(202);
    expect(json.accepted).toBe(acceptedCount);
    expect((json.rejected as unknown[]).length).toBe(refusedCount);
    await s.runtime.sync();
    const letters = await s.store.deadLetters(10_000);
    expect(letters.length).toBeGreaterThanOrEqual(secrets.length * 6);

    const main = readIfThere(path);
    const wal = readIfThere(`${path}-wal`);
    expect(main.length + wal.length).toBeGreaterThan(0);
    expect(leaksIn(main, secrets)).toEqual([]);
    expect(leaksIn(wal, secrets)).toEqual([]);
    expect(leaksIn(Buffer.from(s.logText()), secrets)).toEqual([]);

    await s.close();
    serve = undefined;
    expect(leaksIn(readIfThere(path), secrets)).toEqual([]);
    expect(leaksIn(readIfThere(`${path}-wal`), secrets)).toEqual([]);
  });
});

describe('serve: a command given as words (issue 22.3)', () => {
  it("shows no secret of a policy_request's args on the card, and keeps none at rest", async () => {
    dir = mkdtempSync(join(tmpdir(), 'turnlog-redact-'));
    const path = join(dir, 'turnlog.db');
    serve = await startTestServe({ store: createSqliteStore({ path }), ingest: { shutdownTimeoutMs: 200 } });
    const s = serve;
    const argv = secrets.filter((p) => p.argv !== undefined);
    expect(argv.length).toBeGreaterThanOrEqual(7);
    const events = argv.flatMap((placed, i) => {
      const [inbound, started] = turnEvents(s.surface, `A${i}`);
      const [command = '', ...args] = placed.argv ?? [];
      return [
        inbound,
        started,
        { type: 'policy_request', space: SPACE, turnId: `A${i}`, requestId: `r${i}`, command, args },
      ];
    });
    expect((await postEvents(s.url, ndjson(...events))).json.accepted).toBe(events.length);
    await s.runtime.sync();
    await vi.waitFor(
      () => {
        s.clock.increment(500);
        const shown = JSON.stringify(s.surface.calls);
        for (const placed of argv) expect(shown).toContain(placed.argv?.[0]);
        expect(shown.match(/Approve/g)?.length ?? 0).toBeGreaterThanOrEqual(argv.length);
      },
      { timeout: 20_000 },
    );
    expect(leaksIn(Buffer.from(JSON.stringify(s.surface.calls)), argv)).toEqual([]);
    expect(leaksIn(Buffer.from(s.logText()), argv)).toEqual([]);
    await s.close();
    serve = undefined;
    expect(leaksIn(readIfThere(path), argv)).toEqual([]);
    expect(leaksIn(readIfThere(`${path}-wal`), argv)).toEqual([]);
  });
});

describe('serve: a private key streamed across events', () => {
  it('keeps no line of a key whose BEGIN, body and END came in separate events, at rest or on the platform', async () => {
    dir = mkdtempSync(join(tmpdir(), 'turnlog-redact-'));
    const path = join(dir, 'turnlog.db');
    serve = await startTestServe({ store: createSqliteStore({ path }), ingest: { shutdownTimeoutMs: 200 } });
    const s = serve;
    // Lines of 48: a width no stateless check reads as a key, so only the stream hides them.
    const body = [
      'Zk1n9Dl8EvRmX1Bg0x7Y4bsQzMQp9JvL3sA2tKgFh6WcUoNi',
      'Q2pDoA5m8sVrqT3xE0b4Hc7LwYt1uJ6kP9nR2fS5hG8dE3aB',
    ];
    const [inbound, started] = turnEvents(s.surface, 'T1');
    const output = (text: string) => ({
      type: 'tool_result',
      space: SPACE,
      turnId: 'T1',
      callId: 'c1',
      tool: 'Bash',
      ok: true,
      output: text,
    });
    const text = (t: string) => ({ type: 'assistant', space: SPACE, turnId: 'T1', text: t });
    const events = [
      inbound,
      started,
      {
        type: 'tool_call',
        space: SPACE,
        turnId: 'T1',
        callId: 'c1',
        tool: 'Bash',
        input: { command: 'cat key.pem' },
      },
      output('-----BEGIN PRIVATE KEY-----\n'),
      output(`${body[0]}\n`),
      output(`${body[1]}\n-----END PRIVATE KEY-----\nok\n`),
      text('the key is:\n-----BEGIN EC PRIVATE KEY-----\n'),
      text(`${body[1]}\n`),
      text(`${body[0]}\n-----END EC PRIVATE KEY-----`),
      { type: 'answer', space: SPACE, turnId: 'T1', text: 'done' },
      { type: 'turn_ended', space: SPACE, turnId: 'T1', outcome: 'ok' },
    ];
    expect((await postEvents(s.url, ndjson(...events))).json.accepted).toBe(events.length);
    await s.runtime.sync();
    await vi.waitFor(
      () => {
        s.clock.increment(500);
        expect(s.surface.calls.some((c) => c.text?.includes('done'))).toBe(true);
      },
      { timeout: 10_000 },
    );
    const secrets = body.map((line) => ({ family: 'streamed key', text: line, secret: line }));
    expect(leaksIn(Buffer.from(JSON.stringify(s.surface.calls)), secrets)).toEqual([]);
    expect(JSON.stringify(await s.store.events('T1'))).toContain('[REDACTED:private-key]');
    await s.close();
    serve = undefined;
    expect(leaksIn(readIfThere(path), secrets)).toEqual([]);
    expect(leaksIn(readIfThere(`${path}-wal`), secrets)).toEqual([]);
  });
});

describe('serve: direction controls never reach a platform', () => {
  it('removes bidi overrides, isolates and marks from every field at ingest', async () => {
    serve = await startTestServe({ ingest: { shutdownTimeoutMs: 200 } });
    const s = serve;
    const bidi = '\u202A\u202B\u202C\u202D\u202E\u2066\u2067\u2068\u2069\u200E\u200F\u061C';
    const [inbound, started] = turnEvents(s.surface, 'T1');
    const events = [
      inbound,
      { ...started, title: `report\u202Egnp.exe` },
      {
        type: 'tool_call',
        space: SPACE,
        turnId: 'T1',
        callId: 'c1',
        tool: 'Bash',
        input: { command: `cat ${bidi}x` },
      },
      { type: 'note', space: SPACE, turnId: 'T1', text: `invoice\u202Efdp.exe ${bidi}` },
      { type: 'answer', space: SPACE, turnId: 'T1', text: `open \u2067evil\u2069 file\u202Egnp.exe` },
    ];
    expect((await postEvents(s.url, ndjson(...events))).json.accepted).toBe(events.length);
    await s.runtime.sync();
    // Each write waits for the space's next slot (1 s plus the budget margin).
    await vi.waitFor(
      () => {
        s.clock.increment(200);
        expect(s.surface.calls.some((c) => c.text?.includes('file'))).toBe(true);
      },
      { timeout: 5000 },
    );
    const everything = JSON.stringify([s.surface.calls, await s.store.events('T1')]);
    expect(everything).toContain('filegnp.exe');
    expect(everything).not.toMatch(/[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]/);
  });
});
