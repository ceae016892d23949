// spec: docs/events.md "turnlog stamps a monotonic per-turn seq on every accepted event; an event
// for a turn that has ended is refused with a clear error (not applied)"; `at` "stamped on receipt
// when absent".
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/events/schema.js';
import { TurnSequencer } from '../../src/events/sequence.js';

const SPACE = 'slack:C0123ABCD';
const note = (turnId: string, extra: Partial<RunEvent> = {}): RunEvent =>
  ({ type: 'note', space: SPACE, turnId, text: 'n', ...extra }) as RunEvent;
const ended = (turnId: string, outcome: 'ok' | 'error' | 'stopped' = 'ok'): RunEvent => ({
  type: 'turn_ended',
  space: SPACE,
  turnId,
  outcome,
});
const inbound: RunEvent = { type: 'inbound', space: SPACE, messageId: '1712345678.000100' };

function fakeClock(start = 1_000): () => number {
  let t = start;
  return () => t++;
}

function stamped(result: ReturnType<TurnSequencer['stamp']>): RunEvent {
  if (!result.ok) throw new Error(`expected acceptance, got: ${result.error}`);
  return result.event;
}

describe('TurnSequencer', () => {
  it('numbers each turn from 1, independently of other turns', () => {
    const seq = new TurnSequencer({ now: fakeClock() });
    const seqs = ['A', 'B', 'A', 'A', 'B'].map((t) => stamped(seq.stamp(note(t))).seq);
    expect(seqs).toEqual([1, 1, 2, 3, 2]);
  });

  it('stamps `at` from now() when absent and keeps a host-sent `at`', () => {
    const seq = new TurnSequencer({ now: () => 5_000 });
    expect(stamped(seq.stamp(note('A'))).at).toBe(5_000);
    expect(stamped(seq.stamp(note('A', { at: 42 }))).at).toBe(42);
  });

  it('replaces a host-sent seq', () => {
    const seq = new TurnSequencer({ now: fakeClock() });
    expect(stamped(seq.stamp(note('A', { seq: 99 }))).seq).toBe(1);
  });

  it('does not mutate the event it is given', () => {
    const seq = new TurnSequencer({ now: fakeClock() });
    const event = note('A');
    const copy = structuredClone(event);
    seq.stamp(event);
    expect(event).toEqual(copy);
  });

  it('turn_ended gets the next seq, then every later event of the turn is refused', () => {
    const seq = new TurnSequencer({ now: fakeClock() });
    seq.stamp(note('T1'));
    expect(stamped(seq.stamp(ended('T1'))).seq).toBe(2);
    const toolCall = { type: 'tool_call', space: SPACE, turnId: 'T1', callId: 'c', tool: 'bash' } as RunEvent;
    expect(seq.stamp(toolCall)).toEqual({
      ok: false,
      error: 'turn T1 has ended (outcome ok); event tool_call refused',
    });
    expect(seq.stamp(ended('T1', 'error'))).toEqual({
      ok: false,
      error: 'turn T1 has ended (outcome ok); event turn_ended refused',
    });
    expect(seq.outcomeOf('T1')).toBe('ok');
    expect(seq.lastSeqOf('T1')).toBeUndefined();
  });

  it('inbound events and events without a turnId get `at` but no seq', () => {
    const seq = new TurnSequencer({ now: () => 7 });
    expect(stamped(seq.stamp(inbound))).toEqual({ ...inbound, at: 7 });
    const orphan = { type: 'subagent', space: SPACE, subagentId: 's', status: 'done', seq: 3 } as RunEvent;
    const { seq: _hostSeq, ...orphanWithoutSeq } = orphan;
    expect(stamped(seq.stamp(orphan))).toEqual({ ...orphanWithoutSeq, at: 7 });
  });

  it('endTurn closes a turn the runtime gave up on', () => {
    const seq = new TurnSequencer({ now: fakeClock() });
    seq.stamp(note('T1'));
    seq.endTurn('T1', 'stopped');
    expect(seq.stamp(note('T1'))).toEqual({
      ok: false,
      error: 'turn T1 has ended (outcome stopped); event note refused',
    });
  });

  it('remembers only the newest maxEndedTurns ended turns (bounded memory)', () => {
    const seq = new TurnSequencer({ now: fakeClock(), maxEndedTurns: 3 });
    for (const t of ['T1', 'T2', 'T3', 'T4']) seq.stamp(ended(t));
    expect(seq.snapshot().ended.map(([t]) => t)).toEqual(['T2', 'T3', 'T4']);
    // T1 was forgotten: its id starts a fresh sequence; T2 is still refused.
    expect(stamped(seq.stamp(note('T1'))).seq).toBe(1);
    expect(seq.stamp(note('T2')).ok).toBe(false);
  });

  it('keeps ended-turn memory at the bound under many turns', () => {
    const seq = new TurnSequencer({ now: fakeClock() });
    for (let i = 0; i < 25_000; i++) {
      seq.stamp(note(`T${i}`));
      seq.stamp(ended(`T${i}`));
    }
    const snapshot = seq.snapshot();
    expect(snapshot.ended).toHaveLength(10_000);
    expect(snapshot.open).toHaveLength(0);
    expect(snapshot.ended[0]?.[0]).toBe('T15000');
  });

  it('refuses a maxEndedTurns that is not a positive integer', () => {
    expect(() => new TurnSequencer({ maxEndedTurns: 0 })).toThrow(
      'maxEndedTurns must be a positive integer, got 0',
    );
  });

  it('snapshot → JSON → restore continues every sequence where it stopped', () => {
    const first = new TurnSequencer({ now: fakeClock() });
    first.stamp(note('A'));
    first.stamp(note('A'));
    first.stamp(note('B'));
    first.stamp(ended('C', 'error'));
    const json = JSON.parse(JSON.stringify(first.snapshot()));

    const second = new TurnSequencer({ now: fakeClock() });
    second.stamp(note('A')); // state restore replaces, not merges
    second.restore(json);
    expect(stamped(second.stamp(note('A'))).seq).toBe(3);
    expect(stamped(second.stamp(note('B'))).seq).toBe(2);
    expect(second.stamp(note('C'))).toEqual({
      ok: false,
      error: 'turn C has ended (outcome error); event note refused',
    });
  });

  it('restore trims an oversized ended list to the newest maxEndedTurns', () => {
    const seq = new TurnSequencer({ maxEndedTurns: 2 });
    seq.restore({
      version: 1,
      open: [],
      ended: [
        ['a', 'ok'],
        ['b', 'ok'],
        ['c', 'stopped'],
      ],
    });
    expect(seq.snapshot().ended).toEqual([
      ['b', 'ok'],
      ['c', 'stopped'],
    ]);
  });

  it('restore refuses a malformed snapshot with a message naming the problem', () => {
    const seq = new TurnSequencer();
    expect(() => seq.restore({ version: 2, open: [], ended: [] })).toThrow(
      /^invalid turn sequencer snapshot: version: /,
    );
    expect(() => seq.restore({ version: 1, open: [['A', -1]], ended: [] })).toThrow(/open\.0\.1/);
    expect(() => seq.restore(null)).toThrow(/^invalid turn sequencer snapshot: \(root\): /);
  });

  it('property: per turn, accepted seqs are exactly 1..n in order of receipt', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom('A', 'B', 'C', 'D'), fc.boolean()), { maxLength: 200 }),
        (steps) => {
          const seq = new TurnSequencer({ now: fakeClock() });
          const seen = new Map<string, number[]>();
          const endedTurns = new Set<string>();
          for (const [turnId, end] of steps) {
            const result = seq.stamp(end ? ended(turnId) : note(turnId));
            expect(result.ok).toBe(!endedTurns.has(turnId));
            if (!result.ok) continue;
            if (end) endedTurns.add(turnId);
            seen.set(turnId, [...(seen.get(turnId) ?? []), result.event.seq ?? 0]);
          }
          for (const seqs of seen.values()) expect(seqs).toEqual(seqs.map((_, i) => i + 1));
        },
      ),
    );
  });
});
