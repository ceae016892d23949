/**
 * Issue 9 · answers are never lost: kill -9 does not lose an accepted
 * multi-part answer. `turnlog serve` (the built bin) against the Google Chat
 * emulator on a SQLite file; a turn answers with 12 paragraphs, about 75,000
 * characters (12 parts at Google Chat's limit, paced by the budget) and
 * ends; the process is killed with SIGKILL once the first part landed, and
 * served again on the same database. Every part arrives exactly once, in
 * order, and the turn reads `outcome: ok`, not degraded, no dead letter.
 *
 * Needs `npm run build` first.
 */
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type GchatEmulatorOptions, startGchatEmulator } from '../../../src/emulators/gchat/index.js';
import { firstLine } from '../../cli/cli.helpers.js';
import { serveConfigFile, startServeProcess } from './serve-process.js';

const SPACE = 'gchat:spaces/ANSWERKILL';
const PARTS = 12;
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** About 6,200 characters: over half of Google Chat's 7,000 per message, so each paragraph is a part. */
const paragraph = (n: number) =>
  `¶${String(n).padStart(2, '0')} ${'lorem ipsum dolor sit amet '.repeat(230).trim()}`;
const ANSWER = Array.from({ length: PARTS }, (_, i) => paragraph(i + 1)).join('\n\n');

async function postEvents(url: string, events: Record<string, unknown>[]): Promise<void> {
  const response = await fetch(`${url}/v1/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-ndjson' },
    body: events.map((event) => JSON.stringify({ space: SPACE, ...event })).join('\n'),
  });
  expect(response.status).toBe(202);
}

describe('serve: kill -9 while a multi-part answer is being posted, restart on the same database', () => {
  it('posts every part exactly once, in order, and the turn ends ok', async () => {
    expect(ANSWER.length).toBeGreaterThan(70_000);
    const emulator = await startGchatEmulator({ limits: [] } satisfies GchatEmulatorOptions);
    cleanups.push(() => emulator.close());
    const configPath = serveConfigFile(
      'turnlog-answer-kill9-',
      { gchat: { apiUrl: emulator.url } },
      cleanups,
    );
    /** Paragraph numbers in the order the space shows them, one per answer part. */
    const partsShown = () =>
      emulator.state
        .messages('spaces/ANSWERKILL')
        .filter((m) => !m.deleted)
        .flatMap((m) => [...(m.text ?? '').matchAll(/¶(\d\d)/g)].map((match) => Number(match[1])));

    const first = startServeProcess(configPath, cleanups, { entry: 'built' });
    const { ingest: url1 } = JSON.parse(await firstLine(first)) as { ingest: string };
    await postEvents(url1, [
      { type: 'turn_started', turnId: 'A1', title: 'a long answer' },
      { type: 'answer', turnId: 'A1', text: ANSWER },
      { type: 'turn_ended', turnId: 'A1', outcome: 'ok' },
    ]);
    // The first part landed; the rest are paced by the budget (about one a second).
    await vi.waitFor(() => expect(partsShown()).toContain(1), { timeout: 30_000, interval: 20 });
    first.kill('SIGKILL');
    await once(first, 'exit');
    const beforeRestart = partsShown();
    expect(beforeRestart.length).toBeLessThan(PARTS);
    expect(beforeRestart).toEqual(Array.from({ length: beforeRestart.length }, (_, i) => i + 1));

    const second = startServeProcess(configPath, cleanups, { entry: 'built' });
    const { ingest: url2 } = JSON.parse(await firstLine(second)) as { ingest: string };
    await vi.waitFor(() => expect(partsShown()).toHaveLength(PARTS), { timeout: 60_000, interval: 100 });
    expect(partsShown()).toEqual(Array.from({ length: PARTS }, (_, i) => i + 1));

    const turn = await vi.waitFor(
      async () => {
        const response = await fetch(`${url2}/v1/turns/A1`);
        expect(response.status).toBe(200);
        const view = (await response.json()) as Record<string, unknown>;
        expect(view.outcome).toBe('ok');
        return view;
      },
      { timeout: 20_000, interval: 100 },
    );
    expect(turn).toMatchObject({ state: 'ended', outcome: 'ok', degraded: false });
    expect(turn.deadLetters ?? 0).toBe(0);

    second.kill('SIGTERM');
    const [code] = await once(second, 'exit');
    expect(code).toBe(0);
    // Nothing left to post on a next start: every part was forgotten once the platform took it.
    const { store } = JSON.parse(readFileSync(configPath, 'utf8')) as { store: { path: string } };
    const db = new Database(store.path, { readonly: true });
    const left = db.prepare('SELECT count(*) AS n FROM answer_parts').get();
    db.close();
    expect(left).toEqual({ n: 0 });
  }, 120_000);
});
