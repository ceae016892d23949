/**
 * Issue 21.4 (space part), model-based: random runs of the space machine's
 * typed events (`space.inbound`, `.turnStarted`, `.entry`, `.turnEnded`,
 * `.stopTurn`, `.flush`) against a model of which turns are live, on the
 * memory surface with the simulated clock. After every step: the live turns
 * are the model's, each in its own slot with its actor, no slot held by a
 * turn that is not live, the warnings the model predicts (a second start, an
 * unknown end) and no others, and the space never fails.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AnyActorRef } from 'xstate';
import { startCrashingSpace } from './space.helpers.js';
import { SPACE, settle } from './turn.helpers.js';

const TURNS = ['T1', 'T2', 'T3'] as const;
const turnId = fc.constantFrom(...TURNS, 'GHOST');

type Command =
  | { kind: 'inbound'; ref: string }
  | { kind: 'start'; turnId: string }
  | { kind: 'entry'; turnId: string }
  | { kind: 'end'; turnId: string }
  | { kind: 'stop'; turnId: string }
  | { kind: 'flush' };

const command: fc.Arbitrary<Command> = fc.oneof(
  fc.constantFrom('u1', 'u2').map((ref) => ({ kind: 'inbound' as const, ref })),
  fc.constantFrom(...TURNS).map((t) => ({ kind: 'start' as const, turnId: t })),
  turnId.map((t) => ({ kind: 'entry' as const, turnId: t })),
  turnId.map((t) => ({ kind: 'end' as const, turnId: t })),
  turnId.map((t) => ({ kind: 'stop' as const, turnId: t })),
  fc.constant({ kind: 'flush' as const }),
);

async function run(commands: Command[]): Promise<void> {
  const s = startCrashingSpace('nobody', 'unused');
  const root = s.surface.inbound({ space: SPACE, text: 'hi' });
  const live = new Set<string>();
  const expected: string[] = [];
  let call = 0;
  for (const c of commands) {
    switch (c.kind) {
      case 'inbound':
        s.send({ type: 'inbound', messageId: root.messageId, threadId: root.threadId, ref: c.ref });
        break;
      case 'start':
        if (live.has(c.turnId)) expected.push(`turn ${c.turnId} started twice; the second start is ignored`);
        live.add(c.turnId);
        s.send({ type: 'turn_started', turnId: c.turnId, rootRef: 'u1' });
        break;
      case 'entry':
        s.send({ type: 'tool_call', turnId: c.turnId, callId: `c${++call}`, tool: 'Read' });
        break;
      case 'end':
        if (!live.has(c.turnId)) expected.push(`turn_ended for unknown turn ${c.turnId}`);
        live.delete(c.turnId);
        s.send({ type: 'turn_ended', turnId: c.turnId, outcome: 'ok' });
        break;
      case 'stop':
        s.space.send({ type: 'space.stopTurn', turnId: c.turnId, user: { id: 'users/a', name: 'A' } });
        break;
      case 'flush':
        s.space.send({ type: 'space.flush', turnIds: [...TURNS, 'GHOST'], strays: true });
        break;
    }
    // An ended turn sends its final frame, then finishes and leaves the space.
    s.clock.increment(5_000);
    await settle();

    const snapshot = s.space.getSnapshot();
    const { turns, turnSlots, warnings } = snapshot.context;
    expect(snapshot.status).toBe('active');
    expect(Object.keys(turns).sort()).toEqual([...live].sort());
    for (const [id, record] of Object.entries(turns)) {
      expect(record.mode).toBe('live');
      expect(record.slot).not.toBeNull();
      expect(turnSlots[record.slot ?? -1]).toBe(id);
      const child: AnyActorRef | undefined = snapshot.children[`turn:${record.slot}`];
      expect(child?.getSnapshot().context.turnId).toBe(id);
    }
    expect(turnSlots.filter((t) => t !== null).sort()).toEqual([...live].sort());
    expect(warnings).toEqual(expected);
  }
}

describe('space machine, model-based', () => {
  it('random runs of typed events keep the live turns, their slots and the warnings as the model says', async () => {
    await fc.assert(fc.asyncProperty(fc.array(command, { minLength: 1, maxLength: 14 }), run), {
      numRuns: 40,
      seed: 2126,
    });
  });
});
