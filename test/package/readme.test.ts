/**
 * The README stays true: every `npx turnlog <command>` it shows is a command
 * the CLI has (its `--help` runs), every `npm run <script>` and benchmark it
 * names exists, every docs/ page it links exists, the config example in it is
 * a valid config, `{}` is refused the way it says, and its replay command,
 * run as written on the sample events file, works against a real serve and
 * the Google Chat emulator.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { resolveConfig } from '../../src/config.js';
import { startGchatEmulator } from '../../src/emulators/gchat/index.js';
import { type Serve, startServe } from '../../src/serve/index.js';
import { ROOT, runCli } from '../cli/cli.helpers.js';

const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const scripts = (
  JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
).scripts;

describe('README commands', () => {
  const turnlogCommands = [
    ...new Set([...readme.matchAll(/npx turnlog ([a-z]+)/g)].map((m) => m[1] as string)),
  ];

  it('shows the two commands first', () => {
    expect(readme).toContain('npm ci && npm start');
    expect(readme).toContain('npm test');
    expect(scripts.start).toContain('demo');
    expect(turnlogCommands.length).toBeGreaterThanOrEqual(4);
  });

  for (const command of turnlogCommands) {
    it(`npx turnlog ${command}: the command exists and documents itself`, async () => {
      const result = await runCli([command, '--help']);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout.length).toBeGreaterThan(40);
    });
  }

  it('every npm run script it names exists', () => {
    const named = [...readme.matchAll(/npm run ([a-z:]+)/g)].map((m) => m[1] as string);
    expect(named.length).toBeGreaterThan(0);
    for (const name of named) expect(scripts[name], name).toBeDefined();
  });

  it('every benchmark it names exists', () => {
    const list = /\(benchmarks: ([^)]*)\)/.exec(readme)?.[1] ?? '';
    const named = [...list.matchAll(/`([a-z-]+)`/g)].map((m) => m[1] as string);
    // Every bench the runner finds is listed (bench/run.ts runs bench/*.bench.ts).
    const available = readdirSync(join(ROOT, 'bench'))
      .filter((f) => f.endsWith('.bench.ts'))
      .map((f) => f.slice(0, -'.bench.ts'.length))
      .sort();
    expect(named).toEqual(available);
    const used = [...readme.matchAll(/npm run bench -- ([a-z-]+)/g)].map((m) => m[1] as string);
    for (const name of [...named, ...used])
      expect(existsSync(join(ROOT, 'bench', `${name}.bench.ts`)), name).toBe(true);
  });

  it('shows the quality bench table, the same as docs/benchmarks.md', () => {
    const header = '| platform | turns/space | quota | contender |';
    const tableIn = (text: string): string[] => {
      const lines = text.split('\n');
      const start = lines.findIndex((line) => line.startsWith(header));
      if (start < 0) return [];
      const end = lines.findIndex((line, i) => i > start && !line.startsWith('|'));
      return lines.slice(start, end < 0 ? undefined : end);
    };
    const inReadme = tableIn(readme);
    expect(inReadme.length).toBeGreaterThan(2);
    expect(readme).toContain('npm run bench -- quality');
    expect(inReadme).toEqual(tableIn(readFileSync(join(ROOT, 'docs', 'benchmarks.md'), 'utf8')));
  });

  it('every docs/ page and example it links exists, and no page refers outside the repo', () => {
    const linked = [...readme.matchAll(/\]\(((?:docs|examples)\/[^)#]+)/g)].map((m) => m[1] as string);
    expect(linked).toEqual(expect.arrayContaining(['docs/events.md', 'docs/http-api.md', 'docs/cli.md']));
    for (const path of linked) expect(existsSync(join(ROOT, path)), path).toBe(true);
    for (const path of linked.filter((p) => p.endsWith('.md'))) {
      expect(readFileSync(join(ROOT, path), 'utf8'), path).not.toMatch(
        /CONTRACTS\.md|PLATFORMS\.md|ARCHITECTURE\.md|\.\.\/shared/,
      );
    }
  });

  it('`{}` is refused the way it says: platforms is the one required key', async () => {
    expect(readme).toContain('One key is required: **`platforms`, with at least one platform**');
    const file = join(mkdtempSync(join(tmpdir(), 'turnlog-readme-')), 'empty.json');
    writeFileSync(file, '{}');
    const result = await runCli(['serve', '--config', file]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('platforms: configure at least one platform');
  });

  it('its config example is a valid config', () => {
    const block = /```json\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(block).toBeDefined();
    const config = resolveConfig(JSON.parse(block ?? '{}'));
    expect(config.platforms.gchat?.apiUrl).toBe('http://127.0.0.1:8900');
  });
});

describe('README: the replay example, run as written against serve and the emulator', () => {
  let emulator: Awaited<ReturnType<typeof startGchatEmulator>>;
  let serve: Serve;
  beforeAll(async () => {
    emulator = await startGchatEmulator();
    serve = await startServe({
      config: {
        ingest: { port: 0 },
        platforms: { gchat: { apiUrl: emulator.url } },
        log: { level: 'silent' },
      },
    });
  });
  afterAll(async () => {
    await serve?.close();
    await emulator?.close();
  });

  const command = /npx turnlog (replay examples\/events\.ndjson --to http:\/\/127\.0\.0\.1:8787)/.exec(
    readme,
  )?.[1];
  const replay = () => runCli((command ?? '').replace('http://127.0.0.1:8787', serve.url).split(' '));

  it('the person first: /_emulator/inbound answers the ids the client example uses', async () => {
    const body = /_emulator\/inbound -H 'content-type: application\/json' \\\n\s+-d '([^']+)'/.exec(
      readme,
    )?.[1];
    expect(body).toBeDefined();
    const response = await fetch(`${emulator.url}/_emulator/inbound`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: body as string,
    });
    const ids = (await response.json()) as { messageId: string; threadId: string };
    expect(ids.messageId).toMatch(/^spaces\/AAAA\/messages\//);
    expect(ids.threadId).toMatch(/^spaces\/AAAA\/threads\//);
  });

  it('replays examples/events.ndjson: a 🕒 header, its log in the thread, the answer; no secret reaches the chat', async () => {
    expect(command).toBeDefined();
    const lines = readFileSync(join(ROOT, 'examples/events.ndjson'), 'utf8').trimEnd().split('\n').length;
    const first = await replay();
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toEqual({ sent: lines, accepted: lines, rejected: 0 });
    await vi.waitFor(() => expect(serve.runtime.turn('audit-1')?.state).toBe('ended'), { timeout: 20_000 });
    await vi.waitFor(
      () => expect(emulator.state.messages('spaces/AAAA').some((m) => m.text.includes('4.6.7'))).toBe(true),
      { timeout: 20_000 },
    );
    const messages = emulator.state.messages('spaces/AAAA');
    const header = messages.find((m) => m.text.includes('🕒 Nightly dependency audit'));
    expect(header?.thread).toBeNull();
    expect(messages.some((m) => m.thread !== null && m.text.includes('npm outdated'))).toBe(true);
    const calls = JSON.stringify(emulator.state.calls());
    expect(calls).not.toContain('npm_abcdefghijklmnopqrstuvwxyz0123456789');

    // Its events carry eventIds: replaying it again shows nothing twice.
    const creates = emulator.state.calls().filter((c) => c.op === 'create').length;
    const again = await replay();
    expect(again.code, again.stderr).toBe(0);
    expect(emulator.state.calls().filter((c) => c.op === 'create')).toHaveLength(creates);
  }, 60_000);
});
