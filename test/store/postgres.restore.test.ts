/**
 * Issue 23.1: the persistence seam on Postgres (mirrors sqlite.restore.test.ts):
 * a runtime stopped mid-turn, and a second runtime on a new Postgres store on
 * the same database and schema keeps editing the same log message, with every
 * entry and the run record's sequence continuing where it stopped. On a real
 * Postgres (test/cluster/servers.ts).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SimulatedClock } from 'xstate';
import { createPostgresStore } from '../../src/store/postgres/store.js';
import { createMemorySurface } from '../../src/testing/memory-surface.js';
import { type RunningPostgres, startPostgres } from '../cluster/servers.js';
import { SPACE, startRuntime } from '../runtime/runtime.helpers.js';

let server: RunningPostgres;
beforeAll(async () => {
  server = await startPostgres();
});
afterAll(() => server?.stop());

/**
 * firstProcessWithPendingEntry (runtime.helpers.ts) for a store that answers later: the log is
 * posted with one entry (its post-by-client-id lookup is a real round trip, so it is waited for,
 * not advanced through) and a second entry waits in the debounce window when the runtime stops.
 */
async function firstProcessWithPendingEntry(opts: Parameters<typeof startRuntime>[0]) {
  const first = await startRuntime(opts);
  const root = first.userMessage('u1');
  first.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1' });
  first.send({ type: 'tool_call', turnId: 'T1', callId: 'c1', tool: 'Read', input: { path: 'one.ts' } });
  await vi.waitFor(
    async () => {
      await first.advance(100);
      expect(first.surface.calls.filter((c) => c.op === 'create' && c.status < 300)).toHaveLength(1);
      expect(first.runtime.turn('T1')?.state).not.toMatch(/posting/);
    },
    { timeout: 10_000, interval: 20 },
  );
  first.send({ type: 'tool_call', turnId: 'T1', callId: 'c2', tool: 'Read', input: { path: 'two.ts' } });
  await first.advance(100);
  expect(first.runtime.turn('T1')?.state).toBe('debouncing.waiting');
  await first.runtime.stop();
  return root;
}

describe('runtime restore from Postgres', () => {
  for (const ending of ['stopped and closed', 'left open (another process still has it)'] as const) {
    it(`keeps editing the same log message after a restart on the same database: first store ${ending}`, async () => {
      const schema = `restore_${ending.split(' ')[0]}`;
      const open = () => createPostgresStore({ url: server.url, schema, poolMax: 4 });
      const clock = new SimulatedClock();
      const surface = createMemorySurface({ platform: 'gchat', now: () => clock.now() });
      const firstStore = open();
      // Pending when the process goes away: an entry waiting in the debounce window.
      const root = await firstProcessWithPendingEntry({ clock, store: firstStore, surface });
      if (ending === 'stopped and closed') await firstStore.close();

      const secondStore = open();
      // The first store's last tick reaches the database on its own (its writes are not awaited).
      await vi.waitFor(
        async () => expect((await secondStore.events('T1')).map((e) => e.seq)).toEqual([1, 2, 3]),
        {
          timeout: 10_000,
          interval: 20,
        },
      );
      expect((await secondStore.liveTurns()).map((t) => t.turnId)).toEqual(['T1']);
      const second = await startRuntime({ clock, store: secondStore, surface });
      expect(second.runtime.turn('T1')?.state).toBe('debouncing.waiting');
      await second.advance(1000); // the re-armed window fires: the pending entry is edited in
      second.send({
        type: 'tool_call',
        turnId: 'T1',
        callId: 'c3',
        tool: 'Read',
        input: { path: 'three.ts' },
      });
      second.send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' });
      await second.advance(2000); // the final edit waits out the space's spacing

      const creates = surface.calls.filter((c) => c.op === 'create' && c.status < 300);
      expect(creates).toHaveLength(1);
      expect(creates[0]?.thread).toBe(root.threadId);
      const updates = surface.calls.filter((c) => c.op === 'update' && c.status < 300);
      expect(new Set(updates.map((u) => u.messageId))).toEqual(new Set([creates[0]?.messageId]));
      const text = surface.messages(SPACE).find((m) => m.id === creates[0]?.messageId)?.text ?? '';
      expect(text).toMatch(/one\.ts[\s\S]*two\.ts[\s\S]*three\.ts/);
      await second.runtime.stop();
      await secondStore.flush();
      const events = await secondStore.events('T1');
      expect(events.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
      expect(events.map((e) => e.type)).toEqual([
        'turn_started',
        'tool_call',
        'tool_call',
        'tool_call',
        'turn_ended',
      ]);
      await secondStore.close();
      if (ending !== 'stopped and closed') await firstStore.close();

      const reopened = open();
      await vi.waitFor(async () => expect(await reopened.turnSummary('T1')).toBeDefined(), {
        timeout: 10_000,
        interval: 20,
      });
      expect(await reopened.liveTurns()).toEqual([]);
      expect(await reopened.turnSummary('T1')).toMatchObject({
        outcome: 'ok',
        logMessages: [{ messageId: creates[0]?.messageId }],
      });
      await reopened.close();
    });
  }
});
