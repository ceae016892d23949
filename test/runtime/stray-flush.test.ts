/**
 * Issue 9 · a graceful stop with `flush` delivers the stray log (item 7's
 * coalesced top-level notes and warnings) before it resolves, within its
 * bound, as it does a turn's pending frame: strays waiting for the budget, or
 * for a retry after a failed write, go out at once through a terminal slot,
 * and the next runtime does not show them again.
 */
import { describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { createMemoryStore } from '../../src/store/memory.js';
import { createMemorySurface } from '../../src/testing/memory-surface.js';
import { count, type Harness, spaceText, startRuntime, stray, topLevelCreates } from './runtime.helpers.js';

/** `stop({flush: true})` with the simulated clock kept moving (the budget spaces writes 1 s apart on it). */
async function stopWithFlush(h: Harness, timeoutMs = 5000) {
  let stopped = false;
  const stopping = h.runtime.stop({ flush: true, timeoutMs }).finally(() => {
    stopped = true;
  });
  for (let steps = 0; !stopped && steps < 1000; steps++) await h.advance(100);
  return stopping;
}

describe('runtime: stop({flush: true}) and the stray log', () => {
  it('strays waiting for the budget are shown before stop resolves, in the same message, once', async () => {
    const clock = new SimulatedClock();
    const store = createMemoryStore();
    const surface = createMemorySurface({ platform: 'gchat', now: () => clock.now() });
    const first = await startRuntime({ clock, store, surface });
    stray(first, 'stray one');
    await first.advance(100);
    expect(topLevelCreates(surface)).toHaveLength(1);
    // The space's channel is busy for a second after the post: these wait for the budget.
    stray(first, 'stray two');
    stray(first, 'stray three');
    expect(count(spaceText(surface), 'stray two')).toBe(0);

    expect(await stopWithFlush(first)).toEqual({ flushed: true });
    const text = spaceText(surface);
    for (const s of ['stray one', 'stray two', 'stray three']) expect(count(text, s)).toBe(1);
    expect(topLevelCreates(surface)).toHaveLength(1);

    // The next runtime has nothing left to show: no write, nothing twice.
    const calls = surface.calls.length;
    const second = await startRuntime({ clock, store, surface });
    await second.advance(5_000);
    expect(surface.calls.slice(calls).filter((c) => c.op === 'create' || c.op === 'update')).toEqual([]);
    await second.runtime.stop();
  });

  it('strays waiting out a retry after a failed write go out at once, not after the back-off', async () => {
    const clock = new SimulatedClock();
    const surface = createMemorySurface({ platform: 'gchat', now: () => clock.now() });
    const first = await startRuntime({ clock, surface });
    stray(first, 'stray one');
    await first.advance(2_000);
    // The edit fails three times: the writer backs off 2 s, 4 s, then 8 s.
    surface.fail({ op: 'update', status: 503, times: 3 });
    stray(first, 'stray two');
    await first.advance(6_500);
    expect(surface.calls.filter((c) => c.op === 'update' && c.status === 503)).toHaveLength(3);
    expect(count(spaceText(surface), 'stray two')).toBe(0);

    const before = clock.now();
    expect(await stopWithFlush(first)).toEqual({ flushed: true });
    expect(count(spaceText(surface), 'stray two')).toBe(1);
    // Sent through a terminal slot at once (within the channel's spacing), not after the 8 s back-off.
    const edit = surface.calls.find(
      (c) => c.op === 'update' && c.status < 300 && c.text?.includes('stray two'),
    );
    expect(edit?.at).toBeLessThan(before + 4_000);
  });

  it('a write that cannot land is left for the next start: stop resolves at its bound with flushed false', async () => {
    const clock = new SimulatedClock();
    const store = createMemoryStore();
    const surface = createMemorySurface({ platform: 'gchat', now: () => clock.now() });
    const first = await startRuntime({ clock, store, surface });
    stray(first, 'stray one');
    await first.advance(2_000);
    surface.pause();
    stray(first, 'stray two');
    await first.advance(100);
    expect(await first.runtime.stop({ flush: true, timeoutMs: 50 })).toEqual({ flushed: false });
    surface.resume();
    const second = await startRuntime({ clock, store, surface });
    await second.advance(3_000);
    expect(count(spaceText(surface), 'stray two')).toBe(1);
    await second.runtime.stop();
  });
});
