/**
 * A turn whose root cannot be found (a wrong or missing rootRef) costs at
 * most one notification for its log: a top-level header for the turn, the
 * log threaded under it, and the reason in the turn's warnings
 * (GET /v1/turns/:id). Before: 15 tool calls in 5 bursts made 5 top-level
 * notifying messages and `warnings: []`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type GchatE2E, landed, startGchatE2E } from './harness.js';

let e: GchatE2E;
afterEach(async () => {
  await e.stop();
});

async function fifteenCallsInFiveBursts(turnId: string): Promise<void> {
  for (let burst = 0; burst < 5; burst++) {
    for (let i = 0; i < 3; i++) {
      const n = burst * 3 + i;
      e.send({ type: 'tool_call', turnId, callId: `c${n}`, tool: 'Read', input: { path: `f${n}.ts` } });
    }
    await e.advance(3000);
  }
}

describe('gchat E2E: a turn whose root cannot be found', () => {
  it.each([
    ['a wrong rootRef', { rootRef: 'never-seen' }],
    ['no root at all', {}],
  ])(
    '%s: one notification for the log, the log threaded under a header, the reason in warnings',
    async (_, start) => {
      e = await startGchatE2E();
      await e.userMessage('u1');
      e.send({ type: 'turn_started', turnId: 'T1', ...start });
      await fifteenCallsInFiveBursts('T1');
      e.send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' });
      await e.advance(3000);

      const creates = landed(e.creates());
      expect(creates.filter((c) => c.notifies)).toHaveLength(1);
      const [header, ...logs] = creates;
      expect(header?.thread).toBeNull();
      expect(logs.length).toBeGreaterThan(0);
      expect(new Set(logs.map((c) => c.thread)).size).toBe(1);
      expect(logs.every((c) => c.thread !== null)).toBe(true);
      const shown = e
        .messages()
        .map((m) => m.text)
        .join('\n');
      for (let n = 0; n < 15; n++) expect(shown).toContain(`f${n}.ts`);
      const view = e.runtime.turn('T1');
      expect(view?.warnings?.join('\n')).toMatch(/root message|no root message/);
    },
  );
});
