// spec: issue 11 items 3 and 4 — "all of it goes through the budget": every assistant.threads.setStatus is
// booked with the budget (write kind `status`, Slack's own per-method limit), the one after each frame as
// well as the quiet 90 s refresh. Thirty quiet turns refreshing their status and thirty busy ones whose
// every frame brings a new tool: Slack's setStatus limit (50 a minute per app) is never crossed, no 429,
// and every thread's status is cleared at the end; a status is booked for its turn's card, so the budget
// shares its edits among the turns' cards only.
import { afterEach, describe, expect, it } from 'vitest';
import { type SlackE2E, startSlackE2E } from './harness.js';

let e: SlackE2E | undefined;
afterEach(async () => {
  await e?.stop();
  e = undefined;
});

const SET_STATUS = '/api/assistant.threads.setStatus';
const mostInAnyMinute = (ats: number[]): number => {
  const sorted = [...ats].sort((a, b) => a - b);
  let most = 0;
  for (let end = 0, start = 0; end < sorted.length; end++) {
    while (sorted[start]! <= sorted[end]! - 60_000) start++;
    most = Math.max(most, end - start + 1);
  }
  return most;
};

/** The cards the Slack budget shares its edits among. */
const liveCards = (): number =>
  (
    e!.runtime.actor.system.get('budget:slack')?.getSnapshot() as
      | { context: { budget: { registry: { liveCards: number } } } }
      | undefined
  )?.context.budget.registry.liveCards ?? 0;

describe('slack E2E: assistant status under the budget', () => {
  it('frame statuses and quiet refreshes together stay within setStatus’s own limit; every status is cleared', async () => {
    e = await startSlackE2E();
    const quiet = Array.from({ length: 30 }, (_, i) => ({ turnId: `Q${i}`, space: `slack:C0QUIET${i}` }));
    const busy = Array.from({ length: 30 }, (_, i) => ({ turnId: `B${i}`, space: `slack:C0BUSY${i}` }));
    const roots = new Map<string, string>();
    for (const t of [...quiet, ...busy]) {
      roots.set(t.turnId, (await e.userMessage(`u-${t.turnId}`, { space: t.space })).messageId);
      e.send({ type: 'turn_started', turnId: t.turnId, rootRef: `u-${t.turnId}` }, t.space);
    }
    for (const t of quiet) {
      e.send(
        { type: 'tool_call', turnId: t.turnId, callId: 'long', tool: 'Bash', input: { command: 'make' } },
        t.space,
      );
    }
    for (let second = 0; second < 360; second += 2) {
      for (const t of busy) {
        e.send(
          {
            type: 'tool_call',
            turnId: t.turnId,
            callId: `c${second}`,
            tool: 'Read',
            input: { path: `f${second}.ts` },
          },
          t.space,
        );
      }
      await e.advance(2000);
      // A status is booked for its turn's card: it never adds a card of its own to the fair share.
      expect(liveCards()).toBeLessThanOrEqual(60);
    }
    for (const t of quiet) {
      e.send(
        { type: 'tool_result', turnId: t.turnId, callId: 'long', tool: 'Bash', ok: true, output: 'ok' },
        t.space,
      );
    }
    for (const t of [...quiet, ...busy])
      e.send({ type: 'turn_ended', turnId: t.turnId, outcome: 'ok' }, t.space);
    await e.advance(240_000);

    const calls = e.calls().filter((c) => c.path === SET_STATUS);
    expect(calls.filter((c) => c.status === 429)).toEqual([]);
    expect(mostInAnyMinute(calls.map((c) => c.at))).toBeLessThanOrEqual(50);
    // Statuses were shown, for both kinds of turn.
    const landed = calls.filter((c) => c.status < 300 && c.details?.error === undefined);
    expect(landed.some((c) => c.details?.status === 'running Bash(make)')).toBe(true);
    expect(landed.some((c) => String(c.details?.status).startsWith('running Read('))).toBe(true);
    // Whatever a thread was shown, its last status is the clear.
    for (const t of [...quiet, ...busy]) {
      const mine = landed.filter((c) => c.thread === roots.get(t.turnId));
      if (mine.length > 0) expect(mine.at(-1)?.details?.status).toBe('');
      expect(e.runtime.turn(t.turnId)).toMatchObject({ state: 'ended', degraded: false });
    }
  }, 120_000);
});
