/**
 * Issue 9 · stray log survives a restart (item 7, "Stray events: top-level
 * notes and warnings are coalesced into one edited message per space per
 * minute"): after a restart — a graceful stop, or a kill -9 with the SQLite
 * store — a space whose stray message was live keeps coalescing into the
 * SAME message (an edit, no new notifying message) for the rest of its
 * minute, and no stray accepted before the restart is lost.
 */
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { createMemoryStore } from '../../src/store/memory.js';
import { createSqliteStore, type SqliteStore } from '../../src/store/sqlite.js';
import { createMemorySurface } from '../../src/testing/memory-surface.js';
import { count, SPACE, spaceText, startRuntime, stray, topLevelCreates } from './runtime.helpers.js';

const dirs: string[] = [];
const stores: SqliteStore[] = [];
afterEach(() => {
  for (const store of stores.splice(0)) store.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const openStore = (path: string): SqliteStore => {
  const store = createSqliteStore({ path });
  stores.push(store);
  return store;
};

describe('runtime: the stray log across a restart', () => {
  it('graceful stop: the next runtime edits the same stray message for the rest of its minute', async () => {
    const clock = new SimulatedClock();
    const store = createMemoryStore();
    const surface = createMemorySurface({ platform: 'gchat', now: () => clock.now() });
    const first = await startRuntime({ clock, store, surface });
    stray(first, 'stray one');
    await first.advance(2_000);
    stray(first, 'stray two');
    await first.advance(2_000);
    expect(topLevelCreates(surface)).toHaveLength(1);
    const message = topLevelCreates(surface)[0]?.messageId;
    await first.runtime.stop();

    clock.increment(20_000); // 24 s of the minute gone
    const second = await startRuntime({ clock, store, surface });
    stray(second, 'stray three');
    await second.advance(3_000);
    expect(topLevelCreates(surface)).toHaveLength(1);
    const edits = surface.calls.filter((c) => c.op === 'update' && c.status < 300);
    expect(edits.at(-1)?.messageId).toBe(message);
    const text = surface.messages(SPACE).find((m) => m.id === message)?.text ?? '';
    for (const s of ['stray one', 'stray two', 'stray three']) expect(count(text, s)).toBe(1);

    // The minute that opened before the restart ends on time: the next stray is a new message.
    await second.advance(35_000);
    stray(second, 'the next minute');
    await second.advance(3_000);
    expect(topLevelCreates(surface)).toHaveLength(2);
    expect(topLevelCreates(surface)[1]?.text).toContain('the next minute');
    await second.runtime.stop();
  });

  it('graceful stop with strays not yet shown: the next runtime shows them in the same message, none lost or twice', async () => {
    const clock = new SimulatedClock();
    const store = createMemoryStore();
    const surface = createMemorySurface({ platform: 'gchat', now: () => clock.now() });
    const first = await startRuntime({ clock, store, surface });
    stray(first, 'stray one');
    await first.advance(2_000);
    surface.pause();
    for (let i = 2; i <= 6; i++) stray(first, `stray ${i}`);
    await first.advance(500);
    await first.runtime.stop();
    surface.resume();

    const second = await startRuntime({ clock, store, surface });
    await second.advance(5_000);
    expect(topLevelCreates(surface)).toHaveLength(1);
    const text = spaceText(surface);
    expect(count(text, 'stray one')).toBe(1);
    for (let i = 2; i <= 6; i++) expect(count(text, `stray ${i}`)).toBe(1);
    await second.runtime.stop();
  });

  it('after the minute, a restart forgets the stray log: the next stray is a new message', async () => {
    const clock = new SimulatedClock();
    const store = createMemoryStore();
    const surface = createMemorySurface({ platform: 'gchat', now: () => clock.now() });
    const first = await startRuntime({ clock, store, surface });
    stray(first, 'stray one');
    await first.advance(2_000);
    await first.runtime.stop();
    clock.increment(120_000);
    const second = await startRuntime({ clock, store, surface });
    await second.advance(100);
    expect(await store.strayLogs()).toEqual([]);
    stray(second, 'much later');
    await second.advance(2_000);
    expect(topLevelCreates(surface)).toHaveLength(2);
    await second.runtime.stop();
  });

  it('kill -9 with the SQLite store: every acknowledged stray is shown, in the same message', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'turnlog-strays-'));
    dirs.push(dir);
    const path = join(dir, 'turnlog.db');
    const clock = new SimulatedClock();
    const surface = createMemorySurface({ platform: 'gchat', now: () => clock.now() });
    const first = await startRuntime({ clock, store: openStore(path), surface });
    stray(first, 'stray one');
    await first.advance(2_000);
    const message = topLevelCreates(surface)[0]?.messageId;
    expect(message).toBeDefined();
    // Accepted and acknowledged (durable), but not shown yet when the process dies.
    surface.pause();
    stray(first, 'stray two');
    stray(first, 'stray three');
    await first.runtime.sync();
    // kill -9: what the file holds now is what the next process finds (the old one never runs again).
    const killed = join(dir, 'killed.db');
    copyFileSync(path, killed);
    if (existsSync(`${path}-wal`)) copyFileSync(`${path}-wal`, `${killed}-wal`);
    first.runtime.actor.stop(); // its calls in flight are dropped with it
    const own = new SimulatedClock();
    own.set(clock.now() + 5_000);
    surface.resume();

    const second = await startRuntime({ clock: own, store: openStore(killed), surface });
    await second.advance(3_000);
    stray(second, 'stray four');
    await second.advance(3_000);
    const creates = topLevelCreates(surface).filter((c) => c.notifies);
    expect(creates).toHaveLength(1);
    const text = surface.messages(SPACE).find((m) => m.id === message)?.text ?? '';
    for (const s of ['stray one', 'stray two', 'stray three', 'stray four']) expect(count(text, s)).toBe(1);
    await second.runtime.stop();
  });
});
