/**
 * Durability of the actions outbox across `kill -9` (issue #13 item 7): a
 * child process records people's messages through `Runtime.receive` on a
 * SQLite file, 8 at a time, and prints each acknowledgement; the parent
 * kills it with SIGKILL mid-load, five times, each restart redelivering from
 * the first message not yet acknowledged (as a platform retries what got no
 * 200). Afterwards every acknowledged action is in the outbox, once, in
 * order per space, under strictly growing cursors.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Action } from '../../src/actions/types.js';
import { createSqliteStore } from '../../src/store/sqlite.js';
import { ROOT } from '../cli/cli.helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'turnlog-kill9-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the writer from `first`, kills it -9 once it has acknowledged `acks` more; answers the indices acknowledged. */
async function runUntilKilled(path: string, first: number, acks: number): Promise<number[]> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'test/actions/fixtures/outbox-writer.ts', path, String(first)],
    {
      cwd: ROOT,
      env: { ...process.env },
    },
  );
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += String(chunk);
  });
  const acked: number[] = [];
  let buffered = '';
  const exited = once(child, 'exit');
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      buffered += String(chunk);
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) if (line.startsWith('ack ')) acked.push(Number(line.slice(4)));
      if (acked.length >= acks) {
        child.kill('SIGKILL');
        resolve();
      }
    });
    child.once('exit', (code, signal) => {
      if (signal !== 'SIGKILL')
        reject(new Error(`the writer exited (${code}) before it was killed: ${stderr}`));
    });
  });
  const [, signal] = await exited;
  expect(signal).toBe('SIGKILL');
  return acked;
}

describe('the actions outbox under kill -9', () => {
  it('loses, duplicates and reorders nothing acknowledged across 5 kill -9 restarts under load', async () => {
    const path = join(dir, 'outbox.db');
    const acknowledged = new Set<number>();
    let first = 0;
    for (let round = 0; round < 5; round++) {
      for (const i of await runUntilKilled(path, first, 150 + round * 37)) acknowledged.add(i);
      // A platform redelivers what got no 200: from the first message not acknowledged.
      while (acknowledged.has(first)) first++;
    }

    const store = createSqliteStore({ path });
    const kept: Action[] = [];
    for (
      let page = store.actionsAfter(0, 1000);
      page.length > 0;
      page = store.actionsAfter(Number(page.at(-1)?.cursor), 1000)
    )
      kept.push(...page);
    store.close();

    const index = (action: Action) => Number((action as { text: string }).text.replace('message ', ''));
    const keptIndices = kept.map(index);
    expect(acknowledged.size).toBeGreaterThan(5 * 150);
    // Nothing acknowledged is lost…
    expect([...acknowledged].filter((i) => !keptIndices.includes(i))).toEqual([]);
    // …nothing is kept twice…
    expect(new Set(kept.map((a) => a.id)).size).toBe(kept.length);
    expect(new Set(keptIndices).size).toBe(kept.length);
    // …cursors only grow, and each space's messages are in the order they were received.
    const cursors = kept.map((a) => Number(a.cursor));
    expect(cursors).toEqual([...cursors].sort((a, b) => a - b));
    for (const space of new Set(kept.map((a) => a.space))) {
      const inSpace = kept.filter((a) => a.space === space).map(index);
      expect(inSpace, space).toEqual([...inSpace].sort((a, b) => a - b));
    }
  }, 120_000);
});
