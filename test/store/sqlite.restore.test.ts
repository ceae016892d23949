/**
 * The persistence seam on a database FILE (mirrors test/runtime/restore.test.ts,
 * which uses one memory store object for both runtimes): a runtime stopped
 * mid-turn, and a second runtime on a new SQLite store opened on the same file
 * keeps editing the same log message, with every entry and the run record's
 * sequence continuing where it stopped.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { createSqliteStore } from '../../src/store/sqlite.js';
import { createMemorySurface } from '../../src/testing/memory-surface.js';
import { firstProcessWithPendingEntry, SPACE, startRuntime } from '../runtime/runtime.helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'turnlog-restore-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('runtime restore from a SQLite file', () => {
  for (const ending of ['stopped and closed', 'abandoned without close (a crash)'] as const) {
    it(`keeps editing the same log message after a restart on the same file: first process ${ending}`, async () => {
      const path = join(dir, `${ending.split(' ')[0]}.db`);
      const clock = new SimulatedClock();
      const surface = createMemorySurface({ platform: 'gchat', now: () => clock.now() });
      const firstStore = createSqliteStore({ path });
      // Pending when the process goes away: an entry waiting in the debounce window.
      const root = await firstProcessWithPendingEntry({ clock, store: firstStore, surface });
      if (ending === 'stopped and closed') firstStore.close();

      const secondStore = createSqliteStore({ path });
      expect(secondStore.liveTurns().map((t) => t.turnId)).toEqual(['T1']);
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
      await second.advance(2000); // the final edit waits out the space's spacing (1 s plus the budget margin)

      const creates = surface.calls.filter((c) => c.op === 'create' && c.status < 300);
      expect(creates).toHaveLength(1);
      expect(creates[0]?.thread).toBe(root.threadId);
      const updates = surface.calls.filter((c) => c.op === 'update' && c.status < 300);
      expect(new Set(updates.map((u) => u.messageId))).toEqual(new Set([creates[0]?.messageId]));
      const text = surface.messages(SPACE).find((m) => m.id === creates[0]?.messageId)?.text ?? '';
      expect(text).toMatch(/one\.ts[\s\S]*two\.ts[\s\S]*three\.ts/);
      // The sequence continues where it stopped, and the turn's end reached the file.
      const events = secondStore.events('T1');
      expect(events.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
      expect(events.map((e) => e.type)).toEqual([
        'turn_started',
        'tool_call',
        'tool_call',
        'tool_call',
        'turn_ended',
      ]);
      await second.runtime.stop();
      secondStore.close();
      if (ending !== 'stopped and closed') firstStore.close();

      const reopened = createSqliteStore({ path });
      expect(reopened.liveTurns()).toEqual([]);
      expect(reopened.turnSummary('T1')).toMatchObject({
        outcome: 'ok',
        logMessages: [{ messageId: creates[0]?.messageId }],
      });
      reopened.close();
    });
  }
});
