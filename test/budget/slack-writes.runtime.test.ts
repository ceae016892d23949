// spec: issue 11 item 4 "the budget with Slack's limits" — through the runtime: a Slack turn's first
// post (chat.postMessage) is not counted against chat.update, so thirty turns starting at once in thirty
// channels all show their card at once, while their edits still share the 50 a minute. Simulated clock.
import { describe, expect, it } from 'vitest';
import { startRuntime } from '../runtime/runtime.helpers.js';

const CHANNELS = 30;
const spaceOf = (i: number) => `slack:C0POST${String(i).padStart(4, '0')}`;

describe('runtime on Slack: posts and edits drawn from their own limits', () => {
  it('30 turns starting at once in 30 channels: every card is posted within the debounce and a second', async () => {
    const h = await startRuntime({ platform: 'slack', space: spaceOf(0) });
    for (let i = 0; i < CHANNELS; i++) {
      const space = spaceOf(i);
      const person = h.surface.inbound({ space, text: `please ${i}` });
      const result = h.runtime.ingest({
        type: 'turn_started',
        space,
        turnId: `T${i}`,
        root: { messageId: person.messageId },
      });
      expect(result.ok).toBe(true);
      // The card is posted with the turn's first entry.
      h.runtime.ingest({
        type: 'tool_call',
        space,
        turnId: `T${i}`,
        callId: 'c0',
        tool: 'Read',
        input: { path: 'a.ts' },
      });
    }
    await h.advance(1500);
    const creates = h.surface.calls.filter((c) => c.op === 'create' && c.status < 300);
    // Before posts had their own limit, they waited for chat.update tokens: 3 at once, then one every ~2 s.
    expect(creates).toHaveLength(CHANNELS);
    await h.runtime.stop();
  });

  it('their edits share chat.update: all of its 45 a minute used, at most 50 in any 60 s, while all 30 log every second', async () => {
    const h = await startRuntime({ platform: 'slack', space: spaceOf(0) });
    for (let i = 0; i < CHANNELS; i++) {
      const space = spaceOf(i);
      const person = h.surface.inbound({ space, text: `please ${i}` });
      h.runtime.ingest({
        type: 'turn_started',
        space,
        turnId: `T${i}`,
        root: { messageId: person.messageId },
      });
    }
    for (let second = 0; second < 240; second++) {
      for (let i = 0; i < CHANNELS; i++) {
        h.runtime.ingest({
          type: 'tool_call',
          space: spaceOf(i),
          turnId: `T${i}`,
          callId: `c${second}`,
          tool: 'Read',
          input: { path: `file-${second}.ts` },
        });
      }
      await h.advance(1000);
    }
    const t0 = h.surface.calls[0]!.at;
    const updates = h.surface.calls
      .filter((c) => c.op === 'update' && c.status < 300)
      .map((c) => c.at - t0)
      .sort((a, b) => a - b);
    let most = 0;
    for (let end = 0, start = 0; end < updates.length; end++) {
      while (updates[start]! <= updates[end]! - 60_000) start++;
      most = Math.max(most, end - start + 1);
    }
    // The whole allowance is used once the cards are live: 45 a minute (50 less the margin), not 33 or fewer.
    expect(updates.filter((at) => at >= 60_000 && at < 240_000).length).toBeGreaterThanOrEqual(0.9 * 45 * 3);
    expect(most).toBeLessThanOrEqual(50);
    await h.runtime.stop();
  });
});
