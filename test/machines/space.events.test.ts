/**
 * Issue 21.4 (space part): the space supervisor takes typed events with
 * named guards — `space.inbound`, `space.turnStarted`, `space.turnEnded`,
 * `space.entry` (`spaceEventOf` maps a run event to one), and the events the
 * root sends it instead of reaching past it to a turn: `space.stopTurn` and
 * `space.flush`. Driven on the memory surface with XState's simulated clock.
 */
import { describe, expect, it } from 'vitest';
import type { AnyActorRef, AnyMachineSnapshot } from 'xstate';
import { spaceEventOf } from '../../machines/space.machine.js';
import type { RunEvent } from '../../src/events/schema.js';
import { startCrashingSpace } from './space.helpers.js';
import { SPACE, settle } from './turn.helpers.js';

/** A space whose turns never crash. */
const startSpace = () => startCrashingSpace('nobody', 'unused');

const turnOf = (space: AnyActorRef, slot = 0): AnyMachineSnapshot | undefined =>
  space.getSnapshot().children[`turn:${slot}`]?.getSnapshot();

describe('spaceEventOf', () => {
  it('maps each run event to the typed event its space handles it by', () => {
    const events: RunEvent[] = [
      { type: 'inbound', space: SPACE, messageId: 'm1' },
      { type: 'turn_started', space: SPACE, turnId: 'T1' },
      { type: 'turn_ended', space: SPACE, turnId: 'T1', outcome: 'ok' },
      { type: 'tool_call', space: SPACE, turnId: 'T1', callId: 'c1', tool: 'Read' },
      { type: 'answer', space: SPACE, turnId: 'T1', text: 'done' },
      { type: 'note', space: SPACE, text: 'hello' },
    ];
    expect(events.map((event) => spaceEventOf(event).type)).toEqual([
      'space.inbound',
      'space.turnStarted',
      'space.turnEnded',
      'space.entry',
      'space.entry',
      'space.entry',
    ]);
    // The run event rides along unchanged.
    expect(spaceEventOf(events[3] as RunEvent).event).toBe(events[3]);
  });
});

describe('space machine: typed events', () => {
  it('space.inbound keeps an anchor a later turn starts under (by its ref)', async () => {
    const s = startSpace();
    const root = s.surface.inbound({ space: SPACE, text: 'hi' });
    s.send({ type: 'inbound', messageId: root.messageId, threadId: root.threadId, ref: 'r1' });
    expect(s.space.getSnapshot().context.anchors).toEqual([
      { messageId: root.messageId, threadId: root.threadId, ref: 'r1' },
    ]);
    s.send({ type: 'turn_started', turnId: 'T1', rootRef: 'r1' });
    expect(s.space.getSnapshot().context.turns.T1).toMatchObject({
      mode: 'live',
      anchor: { rootMessageId: root.messageId, threadId: root.threadId },
    });
  });

  it('space.turnStarted twice and space.turnEnded for an unknown turn are warnings, nothing else', async () => {
    const s = startSpace();
    s.send({ type: 'turn_started', turnId: 'T1', root: { messageId: 'm1', threadId: 't1' } });
    s.send({ type: 'turn_started', turnId: 'T1', root: { messageId: 'm1', threadId: 't1' } });
    s.send({ type: 'turn_ended', turnId: 'GHOST', outcome: 'ok' });
    expect(s.space.getSnapshot().context.warnings).toEqual([
      'turn T1 started twice; the second start is ignored',
      'turn_ended for unknown turn GHOST',
    ]);
    expect(s.space.getSnapshot().context.turnSlots).toEqual(['T1']);
    // A live turn's end reaches its actor, which finishes; the space forgets it.
    s.send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' });
    await s.clock.increment(10_000);
    await settle();
    expect(s.space.getSnapshot().context.turns.T1).toBeUndefined();
    expect(s.space.getSnapshot().context.turnSlots).toEqual([]);
  });

  it('space.entry goes to a live turn’s log, and top-level (the stray log) without one', async () => {
    const s = startSpace();
    const root = s.surface.inbound({ space: SPACE, text: 'hi' });
    s.send({
      type: 'turn_started',
      turnId: 'T1',
      root: { messageId: root.messageId, threadId: root.threadId },
    });
    s.send({ type: 'tool_call', turnId: 'T1', callId: 'c1', tool: 'Read' });
    expect(turnOf(s.space)?.context.entryCount).toBe(1);
    s.send({ type: 'tool_call', turnId: 'NOPE', callId: 'c2', tool: 'Grep' });
    await settle();
    expect(s.warnings).toContain('event for unknown turn NOPE');
    expect(s.surface.messages(SPACE).some((m) => m.thread === null && m.text?.includes('Grep'))).toBe(true);
  });

  it('space.stopTurn tells a live turn who asked to stop; for a turn it does not run, nothing happens', async () => {
    const s = startSpace();
    s.send({ type: 'turn_started', turnId: 'T1', root: { messageId: 'm1', threadId: 't1' } });
    const user = { id: 'users/alice', name: 'Alice' };
    s.space.send({ type: 'space.stopTurn', turnId: 'GHOST', user });
    expect(s.space.getSnapshot().status).toBe('active');
    expect(turnOf(s.space)?.context.stopRequest).toBeNull();
    s.space.send({ type: 'space.stopTurn', turnId: 'T1', user });
    expect(turnOf(s.space)?.context.stopRequest).toEqual({ by: 'Alice' });
  });

  it('space.flush sends a live turn’s pending frame at once, without waiting out its debounce', async () => {
    const s = startSpace();
    const root = s.surface.inbound({ space: SPACE, text: 'hi' });
    s.send({
      type: 'turn_started',
      turnId: 'T1',
      root: { messageId: root.messageId, threadId: root.threadId },
    });
    s.send({ type: 'tool_call', turnId: 'T1', callId: 'c1', tool: 'Read' });
    await s.clock.increment(1500);
    await settle();
    const written = () => s.surface.calls.filter((c) => c.op === 'create' || c.op === 'update').length;
    const before = written();
    expect(before).toBeGreaterThan(0);
    s.send({ type: 'tool_call', turnId: 'T1', callId: 'c2', tool: 'Grep' });
    await settle();
    // Debouncing: nothing goes out until the clock moves…
    expect(written()).toBe(before);
    // …unless the space is asked to flush it (a shutdown).
    s.space.send({ type: 'space.flush', turnIds: ['T1', 'GHOST'], strays: false });
    await settle();
    expect(written()).toBe(before + 1);
    const context = turnOf(s.space)?.context;
    expect(context?.shown).toBe(context?.appended);
  });
});
