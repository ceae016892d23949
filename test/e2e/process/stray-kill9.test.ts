/**
 * Issue 9 · stray log survives a restart, with a real process: `turnlog
 * serve` against the Google Chat emulator on a SQLite file; strays (notes of
 * an unknown turn) coalesce into one message; one more is acknowledged;
 * `kill -9`; serve again on the same database within the minute; another
 * stray. The same stray message is edited (one notifying message in all),
 * and every acknowledged stray shows in it once.
 */
import { once } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type GchatEmulatorOptions, startGchatEmulator } from '../../../src/emulators/gchat/index.js';
import { firstLine } from '../../cli/cli.helpers.js';
import { serveConfigFile, startServeProcess } from './serve-process.js';

const SPACE = 'gchat:spaces/STRAYS';
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function postStrays(url: string, texts: string[]): Promise<void> {
  const response = await fetch(`${url}/v1/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-ndjson' },
    body: texts.map((text) => JSON.stringify({ space: SPACE, type: 'note', turnId: 'T1 ', text })).join('\n'),
  });
  expect(response.status).toBe(202);
}

describe('serve: kill -9 while a stray message is live, restart on the same database', () => {
  it('keeps editing the same stray message, with every acknowledged stray once', async () => {
    const emulator = await startGchatEmulator({ limits: [] } satisfies GchatEmulatorOptions);
    cleanups.push(() => emulator.close());
    const configPath = serveConfigFile(
      'turnlog-strays-kill9-',
      { gchat: { apiUrl: emulator.url } },
      cleanups,
    );
    const strayCreates = () =>
      emulator.state.calls().filter((c) => c.op === 'create' && c.status < 300 && c.text?.includes('stray'));
    const strayText = () =>
      emulator.state
        .messages('spaces/STRAYS')
        .filter((m) => !m.deleted)
        .map((m) => m.text)
        .join('\n');

    const first = startServeProcess(configPath, cleanups);
    const { ingest: url1 } = JSON.parse(await firstLine(first)) as { ingest: string };
    await postStrays(url1, ['stray 1', 'stray 2']);
    await vi.waitFor(() => expect(strayText()).toContain('stray 2'), { timeout: 20_000, interval: 50 });
    expect(strayCreates()).toHaveLength(1);
    const message = strayCreates()[0]?.messageId;
    // Acknowledged (durable), maybe not shown yet when the process dies.
    await postStrays(url1, ['stray 3']);
    first.kill('SIGKILL');
    await once(first, 'exit');

    const second = startServeProcess(configPath, cleanups);
    const { ingest: url2 } = JSON.parse(await firstLine(second)) as { ingest: string };
    await postStrays(url2, ['stray 4']);
    await vi.waitFor(
      () => {
        const text = emulator.state.messages('spaces/STRAYS').find((m) => m.id === message)?.text ?? '';
        for (let i = 1; i <= 4; i++) expect(text).toContain(`stray ${i}`);
      },
      { timeout: 20_000, interval: 50 },
    );
    expect(strayCreates()).toHaveLength(1);
    for (let i = 1; i <= 4; i++) expect(strayText().split(`stray ${i}`).length - 1).toBe(1);

    second.kill('SIGTERM');
    const [code] = await once(second, 'exit');
    expect(code).toBe(0);
  }, 60_000);
});
