/**
 * Issue 25.2: the capability links. Only a token's sha256 is stored (memory
 * and SQLite, migration 8); any kept hash opens the turn, nothing else does;
 * finished runs go with their record, summary and tokens after
 * `runs.retentionDays`, live ones stay.
 */
import { describe, expect, it } from 'vitest';
import { createRunLinks, sha256Hex } from '../../../src/serve/run-page/links.js';
import { createMemoryStore } from '../../../src/store/memory.js';
import { createSqliteStore } from '../../../src/store/sqlite.js';
import type { TurnlogStore } from '../../../src/store/store.js';

const DAY = 24 * 60 * 60 * 1000;
const SPACE = 'gchat:spaces/AAAA';

const stores: [string, () => TurnlogStore][] = [
  ['memory', () => createMemoryStore()],
  ['sqlite', () => createSqliteStore({ path: ':memory:', writes: 'immediate' })],
];

describe.each(stores)('run links on the %s store', (_name, open) => {
  it('opens a turn with its token only, and keeps the link of a restarted process working', async () => {
    const store = open();
    let now = 1_000;
    const links = createRunLinks({
      publicUrl: 'https://r.example/x?y',
      retentionDays: 7,
      store,
      now: () => now,
    });
    const url = new URL(links.urlFor('T1'));
    expect(url.origin + url.pathname).toBe('https://r.example/runs/T1');
    const token = url.searchParams.get('t') as string;
    expect(await store.runTokenHashes?.('T1')).toEqual([sha256Hex(token)]);
    expect(await links.opens('T1', token)).toBe(true);
    expect(await links.opens('T2', token)).toBe(false);
    expect(await links.opens('T1', null)).toBe(false);
    expect(await links.opens('T1', '')).toBe(false);
    expect(await links.opens('T1', sha256Hex(token))).toBe(false);
    // Another process (or this one restarted) issues its own token; the first link still opens the page.
    now += 1;
    const again = createRunLinks({ publicUrl: 'https://r.example', retentionDays: 7, store, now: () => now });
    const second = new URL(again.urlFor('T1')).searchParams.get('t') as string;
    expect(second).not.toBe(token);
    expect(await again.opens('T1', token)).toBe(true);
    expect(await again.opens('T1', second)).toBe(true);
    await store.close();
  });

  it('deletes finished runs past retentionDays with their record and tokens, and keeps the rest', async () => {
    const store = open();
    let now = 10 * DAY;
    const links = createRunLinks({ publicUrl: 'https://r.example', retentionDays: 7, store, now: () => now });
    for (const turnId of ['OLD', 'NEW', 'LIVE']) {
      await store.appendEvent({ type: 'turn_started', space: SPACE, turnId, seq: 1 });
      links.urlFor(turnId);
    }
    const summary = (turnId: string, endedAt: number) => ({
      turnId,
      space: SPACE,
      state: 'ended',
      outcome: 'ok',
      degraded: false,
      logMessages: [],
      entries: 1,
      deadLetters: 0,
      endedAt,
    });
    await store.finishTurn(summary('OLD', now));
    await store.finishTurn(summary('NEW', now + 2 * DAY));
    now += 7 * DAY + 1;
    expect(await links.prune()).toBe(1);
    expect(await store.events('OLD')).toEqual([]);
    expect(await store.turnSummary('OLD')).toBeUndefined();
    expect(await store.runTokenHashes?.('OLD')).toEqual([]);
    for (const kept of ['NEW', 'LIVE']) {
      expect(await store.events(kept)).toHaveLength(1);
      expect(await store.runTokenHashes?.(kept)).toHaveLength(1);
    }
    await store.close();
  });
});
