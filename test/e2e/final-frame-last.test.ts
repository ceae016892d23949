// Issue 22.1: "The final frame is the last write, always." A progress edit that is slow to answer (held by the
// emulator until released) must not land after the turn's final frame and overwrite it: before the fix the
// arrival order was `create ⏳, update ✅, update ⏳` and the turn showed ⏳ forever, on all three platforms.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { RecordedCall } from '../../src/emulators/types.js';
import { startDiscordE2E } from './discord/harness.js';
import { startGchatE2E } from './gchat/harness.js';
import { settle } from './shared/calls-in-flight.js';
import type { E2EBasics } from './shared/platform-e2e.js';
import { startSlackE2E } from './slack/harness.js';

type Harness = E2EBasics<import('../../src/emulators/core/index.js').EmulatorServer> & {
  userMessage(ref: string): Promise<{ messageId: string }>;
  advance(ms: number): Promise<void>;
};

const PLATFORMS: { id: string; start: () => Promise<Harness>; fakeDate: boolean }[] = [
  { id: 'gchat', start: () => startGchatE2E(), fakeDate: false },
  { id: 'slack', start: () => startSlackE2E(), fakeDate: false },
  { id: 'discord', start: () => startDiscordE2E(), fakeDate: true },
];

let e: Harness | undefined;
afterEach(async () => {
  await e?.emulatorCall('release', {});
  await e?.stop();
  e = undefined;
});

/** Landed writes to one message, in the order the platform applied them (Slack refuses with 200 + error). */
const landedOn = (calls: RecordedCall[], messageId: string) =>
  calls.filter(
    (c) => c.messageId === messageId && c.status < 300 && c.details?.error === undefined && c.op === 'update',
  );

/** What the message's headline (its first line) says: ended ✅, or still running (⏳, Slack's spinner). */
const icon = (c: RecordedCall) => ((c.text ?? '').split('\n')[0]?.includes('✅') ? '✅' : 'running');

describe.each(PLATFORMS)(
  '$id E2E: a slow progress edit never lands after the final frame',
  ({ start, fakeDate }) => {
    it('the held ⏳ edit lands first and the ✅ frame last: the turn ends showing ✅', async () => {
      e = await start();
      const h = e;
      /** One step of the simulated clock without waiting for calls in flight (one is held on purpose). */
      const step = async () => {
        h.clock.increment(100);
        if (fakeDate) vi.setSystemTime(h.clock.now());
        await settle();
      };
      await h.userMessage('u1');
      h.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1', title: 'Late edit' });
      h.send({ type: 'tool_call', turnId: 'T1', callId: 'c1', tool: 'Read', input: { path: 'a.ts' } });
      await h.advance(3000);
      const logId = h.runtime.turn('T1')?.logMessages[0]?.messageId;
      expect(logId).toBeDefined();

      // The next progress edit is held by the platform: sent, not yet applied.
      await h.faults([{ op: 'update', hold: true, times: 1 }]);
      h.send({ type: 'tool_result', turnId: 'T1', callId: 'c1', tool: 'Read', ok: true });
      await vi.waitFor(
        async () => {
          await step();
          expect(h.emulator.state.faultInjector.list()).toEqual([]);
        },
        { timeout: 10_000, interval: 1 },
      );

      h.send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' });
      const finalLanded = () => landedOn(h.calls(), logId!).some((c) => icon(c) === '✅');
      const heldEditStillAwaited = () =>
        [...h.inFlight].some((c) => c.method === 'edit' && !c.abandoned) &&
        (h.runtime.turn('T1')?.state ?? '').startsWith('flushing');
      // Release once the ✅ frame has landed (it overtook the held edit) or waits behind the held edit.
      await vi.waitFor(
        async () => {
          await step();
          expect(finalLanded() || heldEditStillAwaited()).toBe(true);
        },
        { timeout: 10_000, interval: 1 },
      );
      await h.emulatorCall('release', {});
      await h.advance(3000);

      const writes = landedOn(h.calls(), logId!).map(icon);
      expect(writes.at(-1)).toBe('✅');
      expect(writes.slice(-2)).toEqual(['running', '✅']);
      expect(h.runtime.turn('T1')).toMatchObject({ state: 'ended', outcome: 'ok' });
    });
  },
);
