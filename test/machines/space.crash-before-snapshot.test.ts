/**
 * Space supervision (Actor-runtime issue item 2; docs/architecture.md §Supervision):
 * a turn that crashes before its first persisted snapshot cannot be restarted
 * "from its last persisted snapshot", so the supervisor must not take the
 * restart branch for it (`canRestart` requires a snapshot). It takes the
 * crashed-for-good branch instead: the errored child is stopped, its slot is
 * freed, the crash is warned about and noted top-level, and its later entries
 * go top-level. Nothing is lost: a turn with no snapshot had no entry applied.
 */

import { describe, expect, it } from 'vitest';
import { startCrashingSpace } from './space.helpers.js';
import { SPACE, settle } from './turn.helpers.js';

/** A space whose turn EARLY throws in its first step (a proactive turn choosing its `heading`). */
const startSpace = () => startCrashingSpace('EARLY', 'bug in the entry action');

describe('space supervision: a turn that crashes before its first snapshot', () => {
  it('is not "restarted" from a snapshot it does not have: its child is stopped, its slot freed, the crash noted', async () => {
    const s = startSpace();
    s.send({ type: 'turn_started', turnId: 'EARLY', title: 'nightly report' });
    await settle();

    const context = s.space.getSnapshot().context;
    expect(context.turns.EARLY).toMatchObject({ mode: 'crashed', slot: null, restarts: 0 });
    expect(context.turnSlots).toEqual([]);
    expect(s.space.getSnapshot().children['turn:0']).toBeUndefined();
    expect(context.warnings).toEqual([
      'turn EARLY crashed and could not be restarted; its log continues top-level',
    ]);
    expect(s.warnings.filter((w) => w.includes('restarting'))).toEqual([]);

    // The crash note and the turn's later entries go top-level; the next turn takes the freed slot.
    s.send({ type: 'tool_call', turnId: 'EARLY', callId: 'c1', tool: 'StillLogged' });
    const root = s.surface.inbound({ space: SPACE, text: 'hi' });
    s.send({
      type: 'turn_started',
      turnId: 'NEXT',
      root: { messageId: root.messageId, threadId: root.threadId },
    });
    await settle();
    // Both in the space's stray log: one top-level message, edited.
    const topLevel = s.surface.messages(SPACE).filter((m) => m.text?.includes('stopped after an error'));
    expect(topLevel).toHaveLength(1);
    expect(topLevel[0]?.text).toContain('StillLogged');
    expect(s.space.getSnapshot().context.turns.NEXT).toMatchObject({ mode: 'live', slot: 0 });

    s.send({ type: 'turn_ended', turnId: 'EARLY', outcome: 'error' });
    await settle();
    expect(s.space.getSnapshot().context.turns.EARLY).toBeUndefined();
    expect(s.space.getSnapshot().status).toBe('active');
    s.space.stop();
  });
});
