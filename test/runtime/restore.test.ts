/**
 * Persistence seam (Actor-runtime issue item 6): a runtime stopped mid-turn
 * and a new one created on the same store keeps editing the same log
 * message, with no lost entry and no duplicate log message; pending timers
 * are re-armed by `turn.recover`.
 */

import { describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { createMemoryStore } from '../../src/store/memory.js';
import { createMemorySurface } from '../../src/testing/memory-surface.js';
import { firstProcessWithPendingEntry, SPACE, startRuntime } from './runtime.helpers.js';

describe('runtime restore from the store', () => {
  it('keeps editing the same log message after a restart, with every entry', async () => {
    const clock = new SimulatedClock();
    const store = createMemoryStore();
    const surface = createMemorySurface({ platform: 'gchat', now: () => clock.now() });
    // Pending when the process goes away: an entry waiting in the debounce window.
    const root = await firstProcessWithPendingEntry({ clock, store, surface });
    expect((await store.liveTurns()).map((t) => t.turnId)).toEqual(['T1']);

    const second = await startRuntime({ clock, store, surface });
    expect(second.runtime.turn('T1')?.state).toBe('debouncing.waiting');
    await second.advance(1000); // the re-armed window fires: the pending entry is edited in
    second.send({ type: 'tool_call', turnId: 'T1', callId: 'c3', tool: 'Read', input: { path: 'three.ts' } });
    second.send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' });
    await second.advance(2000); // the final edit waits out the space's spacing (1 s plus the budget margin)

    const creates = surface.calls.filter((c) => c.op === 'create' && c.status < 300);
    expect(creates).toHaveLength(1);
    const updates = surface.calls.filter((c) => c.op === 'update' && c.status < 300);
    expect(new Set(updates.map((u) => u.messageId))).toEqual(new Set([creates[0]?.messageId]));
    const text = surface.messages(SPACE).find((m) => m.id === creates[0]?.messageId)?.text ?? '';
    expect(text).toMatch(/one\.ts[\s\S]*two\.ts[\s\S]*three\.ts/);
    expect(creates[0]?.thread).toBe(root.threadId);
    // The sequence continues where it stopped.
    const events = await store.events('T1');
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(await store.liveTurns()).toEqual([]);
    await second.runtime.stop();
  });

  for (const [platform, space] of [
    ['gchat', 'gchat:spaces/AAAA'],
    ['slack', 'slack:C0123'],
  ] as const) {
    it(`${platform}: a post in flight when the process died is not duplicated after the restart (client id)`, async () => {
      const clock = new SimulatedClock();
      const store = createMemoryStore();
      const surface = createMemorySurface({ platform, now: () => clock.now() });
      const first = await startRuntime({ clock, store, surface, platform, space });
      first.userMessage('u1');
      // Paused before the start: on Slack the first post is the 👀 ack card, sent as the turn starts.
      surface.pause();
      first.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1' });
      first.send({ type: 'tool_call', turnId: 'T1', callId: 'c1', tool: 'Read' });
      await first.advance(10);
      // What the store held while the post was in flight…
      const inFlight = structuredClone(await store.loadTurn('T1'));
      if (!inFlight) throw new Error('turn T1 was not persisted');
      expect((inFlight.snapshot as { value: unknown }).value).toEqual({ opened: 'posting' });
      // …the platform accepted the post, but the process died before its next snapshot was saved.
      surface.resume();
      await first.advance(10);
      await first.runtime.stop();
      await store.saveTurn(inFlight);

      const second = await startRuntime({ clock, store, surface, platform, space });
      await second.advance(3000); // on Slack the Read line is an edit of the ack card (1 s per channel)
      const creates = surface.calls.filter((c) => c.op === 'create' && c.status < 300 && c.notifies);
      expect(creates).toHaveLength(1);
      expect(surface.messages(space).filter((m) => m.text.includes('Read'))).toHaveLength(1);
      expect(second.runtime.turn('T1')?.logMessages.map((m) => m.messageId)).toEqual([creates[0]?.messageId]);
      await second.runtime.stop();
    });
  }
});

describe('runtime stop with flush (shutdown)', () => {
  it('sends every live turn’s pending frame, keeps the turn live in the store, and the next runtime goes on', async () => {
    const clock = new SimulatedClock();
    const store = createMemoryStore();
    const surface = createMemorySurface({ platform: 'gchat', now: () => clock.now() });
    const first = await startRuntime({ clock, store, surface });
    first.userMessage('u1');
    first.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1' });
    first.send({ type: 'tool_call', turnId: 'T1', callId: 'c1', tool: 'Read', input: { path: 'one.ts' } });
    await first.advance(100);
    first.send({ type: 'tool_call', turnId: 'T1', callId: 'c2', tool: 'Read', input: { path: 'two.ts' } });
    first.send({ type: 'answer', turnId: 'T1', text: 'almost there' });
    // The budget spaces writes 1 s apart on the (simulated) clock: keep it moving while the flush runs.
    let stopped = false;
    const stopping = first.runtime.stop({ flush: true, timeoutMs: 5000 }).finally(() => {
      stopped = true;
    });
    while (!stopped) await first.advance(100);
    expect(await stopping).toEqual({ flushed: true });

    const log = surface.calls.filter((c) => c.op === 'create' && c.status < 300 && c.thread !== null);
    expect(log).toHaveLength(1);
    expect(surface.messages(SPACE).find((m) => m.id === log[0]?.messageId)?.text).toMatch(
      /one\.ts[\s\S]*two\.ts/,
    );
    expect(surface.calls.some((c) => c.op === 'create' && c.text === 'almost there')).toBe(true);
    expect((await store.liveTurns()).map((t) => t.turnId)).toEqual(['T1']);

    const second = await startRuntime({ clock, store, surface });
    second.send({ type: 'tool_call', turnId: 'T1', callId: 'c3', tool: 'Read', input: { path: 'three.ts' } });
    second.send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' });
    await second.advance(2000);
    expect(
      surface.calls.filter((c) => c.op === 'create' && c.status < 300 && c.thread !== null),
    ).toHaveLength(1);
    expect(surface.messages(SPACE).find((m) => m.id === log[0]?.messageId)?.text).toContain('three.ts');
    await second.runtime.stop();
  });
});
