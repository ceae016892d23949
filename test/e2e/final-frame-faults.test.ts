// Issue 22.1: "The same happened with 20 % emulator faults: 1 in 10 Discord turns … still read ⏳ Running." With a
// seeded 20 % of creates and edits failing (5xx, or applied with the answer lost) and, as the turns end, 20 % of
// edits slow (held by the emulator until the turns have ended or can go no further), every turn ends showing its
// final frame, on all three platforms; the faults hit the same calls on every run. Before the fix turns ended
// showing ⏳ (their held progress edit landed after the final frame).
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { EmulatorServer } from '../../src/emulators/core/index.js';
import type { RecordedCall } from '../../src/emulators/types.js';
import { startDiscordE2E } from './discord/harness.js';
import { startGchatE2E } from './gchat/harness.js';
import { settle } from './shared/calls-in-flight.js';
import type { E2EBasics } from './shared/platform-e2e.js';
import { startSlackE2E } from './slack/harness.js';

type Harness = E2EBasics<EmulatorServer> & {
  userMessage(ref: string): Promise<{ messageId: string }>;
  advance(ms: number): Promise<void>;
};

const PLATFORMS: { id: string; start: () => Promise<Harness>; fakeDate: boolean }[] = [
  { id: 'gchat', start: () => startGchatE2E(), fakeDate: false },
  { id: 'slack', start: () => startSlackE2E(), fakeDate: false },
  { id: 'discord', start: () => startDiscordE2E(), fakeDate: true },
];

const TURNS = 6;

let e: Harness | undefined;
afterEach(async () => {
  await e?.stop();
  e = undefined;
});

/** What a message shows now: its last landed write (Slack refuses with 200 + error). */
function shownBy(calls: RecordedCall[], messageId: string): string {
  const landed = calls.filter(
    (c) =>
      c.messageId === messageId &&
      c.status < 300 &&
      c.details?.error === undefined &&
      (c.op === 'create' || c.op === 'update'),
  );
  return (landed.at(-1)?.text ?? '').split('\n')[0] ?? '';
}

describe.each(PLATFORMS)(
  '$id E2E: under 20 % faults every turn ends showing its final frame',
  ({ start, fakeDate }) => {
    it(`${TURNS} turns, seeded faults on creates and edits: each log's headline reads ✅`, async () => {
      e = await start();
      const h = e;
      await h.faults([
        { op: 'update', status: 503, rate: 0.1, seed: 7 },
        { op: 'update', status: 502, applied: true, rate: 0.1, seed: 11 },
        { op: 'create', status: 500, rate: 0.2, seed: 5 },
      ]);
      for (let t = 1; t <= TURNS; t++) {
        await h.userMessage(`u${t}`);
        h.send({ type: 'turn_started', turnId: `T${t}`, rootRef: `u${t}`, title: `Turn ${t}` });
      }
      for (let step = 0; step < 4; step++) {
        for (let t = 1; t <= TURNS; t++) {
          const callId = `c${t}-${step}`;
          h.send({
            type: 'tool_call',
            turnId: `T${t}`,
            callId,
            tool: 'Read',
            input: { path: `${callId}.ts` },
          });
          h.send({ type: 'tool_result', turnId: `T${t}`, callId, tool: 'Read', ok: true });
        }
        if (step < 3) await h.advance(1500);
      }
      // The last progress edits go out, 20 % of them held, and the turns end while those are still on their way.
      await h.faults([{ op: 'update', hold: true, rate: 0.2, seed: 3 }]);
      const step = async () => {
        h.clock.increment(100);
        if (fakeDate) vi.setSystemTime(h.clock.now());
        await settle();
      };
      await vi.waitFor(
        async () => {
          await step();
          expect(h.emulator.state.faultInjector.holding()).toBeGreaterThan(0);
        },
        { timeout: 20_000, interval: 1 },
      );
      for (let t = 1; t <= TURNS; t++) h.send({ type: 'turn_ended', turnId: `T${t}`, outcome: 'ok' });
      const state = h.emulator.state;
      const allEnded = () =>
        Array.from({ length: TURNS }, (_, i) => h.runtime.turn(`T${i + 1}`)?.state).every(
          (s) => s === 'ended',
        );
      // Every call still awaited is one the emulator holds: the rest waits behind them.
      const onlyHeldLeft = () =>
        h.inFlight.size > 0 &&
        h.inFlight.size === state.faultInjector.holding() &&
        [...h.inFlight].every((c) => !c.abandoned);
      await vi.waitFor(
        async () => {
          await step();
          expect(allEnded() || onlyHeldLeft()).toBe(true);
        },
        { timeout: 20_000, interval: 1 },
      );
      expect(state.faultInjector.holding()).toBeGreaterThan(0);
      await h.emulatorCall('faults', { rules: [] });
      state.faultInjector.clear();
      await h.advance(60_000);

      const faulted = h.calls().filter((c) => c.details?.rejectedBy === 'fault' || c.details?.lostResponse);
      expect(faulted.length).toBeGreaterThan(0);
      for (let t = 1; t <= TURNS; t++) {
        const turn = h.runtime.turn(`T${t}`);
        expect(turn).toMatchObject({ state: 'ended', outcome: 'ok' });
        const last = turn?.logMessages.at(-1)?.messageId;
        expect(last, `T${t} has a log message`).toBeDefined();
        expect(shownBy(h.calls(), last!), `T${t}'s log`).toContain('✅');
      }
    });
  },
);
