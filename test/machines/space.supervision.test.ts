/**
 * The space supervisor's supervision (Actor-runtime issue item 2): a crashed
 * turn is restarted from its last persisted snapshot up to 3 times, then its
 * log is degraded to top-level with a visible note; other turns are untouched.
 * A restarted turn keeps its child slot (`turn:<slot>`); one that crashed for
 * good frees it for the next turn.
 */

import { describe, expect, it } from 'vitest';
import type { AnyActorRef, AnyMachineSnapshot } from 'xstate';
import { startCrashingSpace } from './space.helpers.js';
import { SPACE, settle } from './turn.helpers.js';

const startSpace = () => startCrashingSpace('CRASHY', 'bug while posting for CRASHY');

describe('space supervision', () => {
  it('restarts a crashed turn from its snapshot 3 times, then degrades its log to top-level with a note', async () => {
    const s = startSpace();
    const root = s.surface.inbound({ space: SPACE, text: 'hi' });
    s.send({
      type: 'turn_started',
      turnId: 'CRASHY',
      root: { messageId: root.messageId, threadId: root.threadId },
    });
    s.send({
      type: 'turn_started',
      turnId: 'OK',
      root: { messageId: root.messageId, threadId: root.threadId },
    });
    expect(s.space.getSnapshot().context.turnSlots).toEqual(['CRASHY', 'OK']);
    for (let crash = 1; crash <= 3; crash++) {
      s.send({ type: 'tool_call', turnId: 'CRASHY', callId: `b${crash}`, tool: 'BOOM' });
      await settle();
      expect(s.space.getSnapshot().context.turns.CRASHY).toMatchObject({
        mode: 'live',
        restarts: crash,
        slot: 0,
      });
      const child = s.space.getSnapshot().children['turn:0'] as AnyActorRef | undefined;
      expect((child?.getSnapshot() as AnyMachineSnapshot | undefined)?.context.turnId).toBe('CRASHY');
    }
    s.send({ type: 'tool_call', turnId: 'CRASHY', callId: 'b4', tool: 'BOOM' });
    await settle();
    expect(s.space.getSnapshot().context.turns.CRASHY).toMatchObject({ mode: 'crashed', slot: null });
    expect(s.space.getSnapshot().children['turn:0']).toBeUndefined();
    expect(s.space.getSnapshot().context.turnSlots).toEqual([null, 'OK']);
    expect(s.space.getSnapshot().context.warnings).toEqual([
      'turn CRASHY crashed and could not be restarted; its log continues top-level',
    ]);
    // The visible note, then the turn's further entries, go top-level.
    s.send({ type: 'tool_call', turnId: 'CRASHY', callId: 'after', tool: 'StillLogged' });
    await settle();
    // Both in the space's stray log: one top-level message, edited.
    const topLevel = s.surface.messages(SPACE).filter((m) => m.text?.includes('stopped after an error'));
    expect(topLevel).toHaveLength(1);
    expect(topLevel[0]?.text).toContain('StillLogged');
    expect(s.surface.calls.filter((c) => c.op === 'create' && c.thread === null)).toHaveLength(1);
    // The sibling turn was never touched.
    s.send({ type: 'tool_call', turnId: 'OK', callId: 'fine', tool: 'Read' });
    await settle();
    expect(s.surface.calls.filter((c) => c.op === 'create' && c.thread === root.threadId)).toHaveLength(1);
    expect(s.space.getSnapshot().status).toBe('active');
    expect(s.warnings.filter((w) => w.includes('restarting from its last snapshot'))).toHaveLength(3);
    // The crashed turn's slot goes to the next turn.
    s.send({
      type: 'turn_started',
      turnId: 'NEXT',
      root: { messageId: root.messageId, threadId: root.threadId },
    });
    expect(s.space.getSnapshot().context.turns.NEXT).toMatchObject({ mode: 'live', slot: 0 });
    expect(s.space.getSnapshot().context.turnSlots).toEqual(['NEXT', 'OK']);
    // Its end is noted, and the crashed turn's record is forgotten (nothing kept per finished turn).
    s.send({ type: 'turn_ended', turnId: 'CRASHY', outcome: 'error' });
    await settle();
    expect(s.space.getSnapshot().context.turns.CRASHY).toBeUndefined();
    expect(s.space.getSnapshot().context.warnings.at(-1)).toBe(
      'turn CRASHY ended after its log was degraded',
    );
    expect(s.space.getSnapshot().context.turnSlots).toEqual(['NEXT', 'OK']);
  });
});
