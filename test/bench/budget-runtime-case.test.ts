/**
 * The budget bench's end-to-end case (bench/budget.bench.ts, `runtimeCase`)
 * claims to measure steady-state edit traffic. A turn posts its card on its
 * first event, and the posts draw from the same budget as the edits, so they
 * must all happen before the measured window, or the window measures posts:
 * at 1,000 turns on the default Google Chat budget it showed 0 edits. Here
 * the same squeeze at a small scale: 40 turns on a tenth of that budget,
 * 10 s measured (with the posts inside the window: 40 posts, 0 edits).
 */
import { describe, expect, it } from 'vitest';
import { runtimeCase } from '../../bench/budget.bench.js';

const TURNS = 40;

describe('budget bench: the runtime end to end', () => {
  it('posts every card before the measured window, and the window sees edits', async () => {
    const r = await runtimeCase(TURNS, {
      // Posts may now draw on the reserve (issue 24 item 2: a quiet space's first post never waits), so
      // all 40 go out at once and the bucket refills above its reserve before edits flow: 30 s measured.
      simulatedMs: 30_000,
      config: { budgets: { gchat: { ratePerMinute: 300 } } },
      progress: false,
    });
    expect(r.capped).toBe(false);
    expect(r.events).toBeGreaterThan(0);
    expect(r.warmupPosts).toBe(TURNS);
    expect(r.posts).toBe(0);
    expect(r.edits).toBeGreaterThan(0);
  });
});
