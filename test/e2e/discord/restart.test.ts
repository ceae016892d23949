/**
 * Discord end to end across a restart: a turn's log, posted by one runtime
 * on a SQLite store, is edited in place by the next runtime on the same
 * store (no second log, no second buzz), and its answer lands.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { createSqliteStore, type SqliteStore } from '../../../src/store/index.js';
import { type DiscordE2E, landed, startDiscordE2E } from './harness.js';

let dir: string;
let stores: SqliteStore[] = [];
let runs: DiscordE2E[] = [];
afterEach(async () => {
  for (const run of runs.reverse()) await run.stop();
  for (const store of stores) store.close();
  rmSync(dir, { recursive: true, force: true });
  runs = [];
  stores = [];
});

it('a restart mid-turn keeps editing the same log message and lands the answer', async () => {
  dir = mkdtempSync(join(tmpdir(), 'turnlog-discord-e2e-'));
  const path = join(dir, 'turnlog.db');
  const firstStore = createSqliteStore({ path });
  stores.push(firstStore);
  const first = await startDiscordE2E({ store: firstStore });
  runs.push(first);
  const root = await first.userMessage('u1');
  first.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1' });
  first.send({
    type: 'tool_call',
    turnId: 'T1',
    callId: 'c0',
    tool: 'Read',
    input: { path: 'src/before.ts' },
  });
  await first.advance(3000);
  await first.runtime.sync();
  await first.stopRuntime();
  firstStore.close();
  stores = [];

  const secondStore = createSqliteStore({ path });
  stores.push(secondStore);
  const second = await startDiscordE2E({
    store: secondStore,
    reuse: { emulator: first.emulator, clock: first.clock },
  });
  runs.unshift(second);
  second.send({
    type: 'tool_call',
    turnId: 'T1',
    callId: 'c1',
    tool: 'Read',
    input: { path: 'src/after.ts' },
  });
  second.send({ type: 'answer', turnId: 'T1', text: 'restarted and done' });
  second.send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' });
  await second.advance(8000);

  const logs = second.thread(root.messageId);
  expect(logs).toHaveLength(1);
  expect(logs[0]?.text).toContain('before.ts');
  expect(logs[0]?.text).toContain('after.ts');
  expect(second.messages().map((m) => m.text)).toContain('restarted and done');
  expect(landed(second.creates()).filter((c) => c.notifies).length).toBe(2);
});
