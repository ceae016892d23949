// spec: the optional `eventId` on every run event (README "Run events": the host's unique id for the
// event within its turn, or within the space for events outside a turn; a non-empty string of at most
// 200 chars). Parsing accepts it on every type and refuses a bad one with an error naming the field;
// the TurnSequencer applies an event whose (turnId, eventId) it already accepted only once (same seq,
// marked duplicate), also for turn_ended and events of a turn that has just ended; events without an
// eventId are sequenced exactly as before.
import { describe, expect, it } from 'vitest';
import { parseRunEvent } from '../../src/events/parse.js';
import { redactRunEvent } from '../../src/events/redact-event.js';
import { RUN_EVENT_TYPES, type RunEvent } from '../../src/events/schema.js';
import { type StampResult, TurnSequencer } from '../../src/events/sequence.js';

const SPACE = 'slack:C0123ABCD';

/** One valid event of every type. */
const ONE_OF_EACH: Record<string, unknown>[] = [
  { type: 'inbound', space: SPACE, messageId: '1712345678.000100' },
  { type: 'turn_started', space: SPACE, turnId: 'T1' },
  { type: 'input', space: SPACE, turnId: 'T1', text: 'hi' },
  { type: 'tool_call', space: SPACE, turnId: 'T1', callId: 'c1', tool: 'Bash' },
  { type: 'tool_result', space: SPACE, turnId: 'T1', callId: 'c1', tool: 'Bash', ok: true },
  { type: 'assistant', space: SPACE, turnId: 'T1', text: 'hm' },
  { type: 'subagent', space: SPACE, turnId: 'T1', subagentId: 's1', status: 'started' },
  { type: 'policy_request', space: SPACE, turnId: 'T1', requestId: 'r1', command: 'rm' },
  { type: 'policy_decision', space: SPACE, turnId: 'T1', requestId: 'r1', decision: 'approved' },
  { type: 'note', space: SPACE, turnId: 'T1', text: 'n' },
  { type: 'command', space: SPACE, turnId: 'T1', command: 'ls' },
  { type: 'answer', space: SPACE, turnId: 'T1', text: 'done' },
  { type: 'question', space: SPACE, turnId: 'T1', questionId: 'q1', question: 'Which?', options: ['A'] },
  { type: 'turn_ended', space: SPACE, turnId: 'T1', outcome: 'ok' },
  { type: 'messages_adopted', space: SPACE, turnId: 'T1', refs: ['u2'] },
];

describe('parse: eventId', () => {
  it('covers every event type', () => {
    expect(ONE_OF_EACH.map((e) => e.type).sort()).toEqual([...RUN_EVENT_TYPES].sort());
  });

  it.each(ONE_OF_EACH.map((e) => [e.type, e] as const))('%s accepts an eventId and keeps it', (_, event) => {
    const parsed = parseRunEvent({ ...event, eventId: 'host-7f3a' });
    expect(parsed).toEqual({ ok: true, event: expect.objectContaining({ eventId: 'host-7f3a' }) });
  });

  it('accepts 200 chars and refuses 201, naming the field and the limit', () => {
    const note = ONE_OF_EACH[9] as Record<string, unknown>;
    expect(parseRunEvent({ ...note, eventId: 'x'.repeat(200) }).ok).toBe(true);
    expect(parseRunEvent({ ...note, eventId: 'x'.repeat(201) })).toEqual({
      ok: false,
      error: `note.eventId: expected a string of at most 200 chars, got "${'x'.repeat(60)}…"`,
    });
  });

  it.each([
    ['', 'note.eventId: expected a non-empty string, got ""'],
    [42, 'note.eventId: expected a string, got 42'],
    [null, 'note.eventId: expected a string, got null'],
  ])('refuses eventId %j with a clear error', (eventId, error) => {
    const note = ONE_OF_EACH[9] as Record<string, unknown>;
    expect(parseRunEvent({ ...note, eventId })).toEqual({ ok: false, error });
  });

  it('is an id, not free text: redaction leaves it as sent', () => {
    const eventId = 'ghp_0123456789abcdefghijABCDEFGHIJ012345';
    const event = { type: 'note', space: SPACE, turnId: 'T1', text: 'n', eventId } as RunEvent;
    expect(redactRunEvent(event).eventId).toBe(eventId);
  });
});

const ev = (type: string, turnId: string | undefined, fields: Record<string, unknown> = {}): RunEvent =>
  ({ type, space: SPACE, ...(turnId !== undefined ? { turnId } : {}), ...fields }) as RunEvent;
const note = (turnId: string, eventId?: string, text = 'n') =>
  ev('note', turnId, { text, ...(eventId !== undefined ? { eventId } : {}) });
const ended = (turnId: string, eventId?: string) =>
  ev('turn_ended', turnId, { outcome: 'ok', ...(eventId !== undefined ? { eventId } : {}) });

function clock(start = 1_000): () => number {
  let t = start;
  return () => t++;
}

function accepted(result: StampResult): RunEvent {
  if (!result.ok) throw new Error(`expected acceptance, got: ${result.error}`);
  return result.event;
}

describe('TurnSequencer: eventId', () => {
  it('a second event with the same (turnId, eventId) is a duplicate with the first one’s seq and at', () => {
    const seq = new TurnSequencer({ now: clock() });
    const first = accepted(seq.stamp(note('T1', 'e1')));
    const again = seq.stamp(note('T1', 'e1'));
    expect(again).toEqual({ ok: true, duplicate: true, event: { ...first } });
    // The duplicate took no seq: the next event continues from the first copy.
    expect(accepted(seq.stamp(note('T1', 'e2'))).seq).toBe(2);
    expect(seq.lastSeqOf('T1')).toBe(2);
  });

  it('a fresh event is not marked duplicate; the same eventId in another turn is another event', () => {
    const seq = new TurnSequencer({ now: clock() });
    expect(seq.stamp(note('T1', 'e1'))).not.toHaveProperty('duplicate');
    const other = seq.stamp(note('T2', 'e1'));
    expect(other).not.toHaveProperty('duplicate');
    expect(accepted(other).seq).toBe(1);
  });

  it('events without eventId are never duplicates, however alike', () => {
    const seq = new TurnSequencer({ now: clock() });
    const seqs = [1, 2, 3].map(() => seq.stamp(note('T1')));
    expect(seqs.map((r) => [accepted(r).seq, 'duplicate' in r])).toEqual([
      [1, false],
      [2, false],
      [3, false],
    ]);
  });

  it('refuses an eventId reused for another type of event, naming both', () => {
    const seq = new TurnSequencer({ now: clock() });
    seq.stamp(note('T1', 'e1'));
    expect(seq.stamp(ev('assistant', 'T1', { text: 'x', eventId: 'e1' }))).toEqual({
      ok: false,
      error:
        'eventId "e1" of turn T1 was already accepted for a note event (seq 1); this assistant event is refused: give every event its own eventId',
    });
  });

  it('a retried turn_ended is a duplicate, not "turn has ended"', () => {
    const seq = new TurnSequencer({ now: clock() });
    seq.stamp(note('T1', 'e1'));
    const end = accepted(seq.stamp(ended('T1', 'end')));
    expect(seq.stamp(ended('T1', 'end'))).toEqual({ ok: true, duplicate: true, event: end });
  });

  it('a retried batch that ended the turn is all duplicates; a new event after the end is still refused', () => {
    const seq = new TurnSequencer({ now: clock() });
    const batch = [note('T1', 'e1'), note('T1', 'e2'), ended('T1', 'e3')];
    const first = batch.map((e) => accepted(seq.stamp(e)));
    expect(batch.map((e) => seq.stamp(e))).toEqual(
      first.map((event) => ({ ok: true, duplicate: true, event })),
    );
    expect(seq.stamp(note('T1', 'e4'))).toEqual({
      ok: false,
      error: 'turn T1 has ended (outcome ok); event note refused',
    });
    expect(seq.stamp(note('T1'))).toEqual({
      ok: false,
      error: 'turn T1 has ended (outcome ok); event note refused',
    });
  });

  it('forgets the ids of ended turns beyond maxEndedEventIds (oldest turns first), but never their turn_ended', () => {
    const seq = new TurnSequencer({ now: clock(), maxEndedEventIds: 3 });
    for (const turn of ['A', 'B']) {
      seq.stamp(note(turn, `${turn}1`));
      seq.stamp(ended(turn, `${turn}-end`));
    }
    // A's ids were dropped to make room for B's: a retry of A's note is refused like any late event…
    expect(seq.stamp(note('A', 'A1'))).toMatchObject({
      ok: false,
      error: expect.stringMatching(/turn A has ended/),
    });
    // …but its turn_ended is still known, and B's ids are all kept.
    expect(seq.stamp(ended('A', 'A-end'))).toMatchObject({ ok: true, duplicate: true });
    expect(seq.stamp(note('B', 'B1'))).toMatchObject({ ok: true, duplicate: true });
  });

  it('keeps at most maxEventIdsPerTurn ids of a live turn, the most recent ones', () => {
    const seq = new TurnSequencer({ now: clock(), maxEventIdsPerTurn: 2 });
    for (const id of ['e1', 'e2', 'e3']) seq.stamp(note('T1', id));
    expect(seq.stamp(note('T1', 'e3'))).toMatchObject({ ok: true, duplicate: true });
    expect(seq.stamp(note('T1', 'e2'))).toMatchObject({ ok: true, duplicate: true });
    expect(accepted(seq.stamp(note('T1', 'e1'))).seq).toBe(4);
  });

  it('events outside a turn are deduplicated per space, and get no seq', () => {
    const seq = new TurnSequencer({ now: clock() });
    const inbound = ev('inbound', undefined, { messageId: 'm1', eventId: 'i1' });
    const first = accepted(seq.stamp(inbound));
    expect(first).not.toHaveProperty('seq');
    expect(seq.stamp(inbound)).toEqual({ ok: true, duplicate: true, event: first });
    const elsewhere = { ...inbound, space: 'slack:C999' } as RunEvent;
    expect(seq.stamp(elsewhere)).not.toHaveProperty('duplicate');
    // A subagent event that lost its turnId is outside a turn too.
    const orphan = ev('note', undefined, { text: 'n', subagentId: 's1', eventId: 'o1' });
    seq.stamp(orphan);
    expect(seq.stamp(orphan)).toMatchObject({ ok: true, duplicate: true });
  });

  describe('resumeTurn (after a restart, from the run record)', () => {
    it('continues the sequence and knows the ids the turn accepted', () => {
      const before = new TurnSequencer({ now: clock() });
      const record = [note('T1', 'e1'), note('T1'), note('T1', 'e3')].map((e) => accepted(before.stamp(e)));

      const after = new TurnSequencer({ now: clock(9_000) });
      expect(after.knowsTurn('T1')).toBe(false);
      after.resumeTurn('T1', record);
      expect(after.knowsTurn('T1')).toBe(true);
      expect(after.stamp(note('T1', 'e1'))).toEqual({ ok: true, duplicate: true, event: record[0] });
      expect(after.stamp(note('T1', 'e3'))).toEqual({ ok: true, duplicate: true, event: record[2] });
      expect(accepted(after.stamp(note('T1', 'e4'))).seq).toBe(4);
    });

    it('a record with turn_ended: the turn is ended, its events duplicates, new ones refused', () => {
      const before = new TurnSequencer({ now: clock() });
      const record = [note('T1', 'e1'), ended('T1', 'e2')].map((e) => accepted(before.stamp(e)));
      const after = new TurnSequencer({ now: clock() });
      after.resumeTurn('T1', record);
      expect(after.outcomeOf('T1')).toBe('ok');
      expect(after.stamp(note('T1', 'e1'))).toMatchObject({ ok: true, duplicate: true });
      expect(after.stamp(ended('T1', 'e2'))).toMatchObject({ ok: true, duplicate: true });
      expect(after.stamp(note('T1', 'e9'))).toMatchObject({ ok: false });
    });

    it('merges with what the turn already got in this process (never goes back)', () => {
      const seq = new TurnSequencer({ now: clock() });
      seq.stamp(note('T1', 'a'));
      seq.stamp(note('T1', 'b'));
      seq.resumeTurn('T1', [{ ...note('T1', 'old'), seq: 1, at: 5 } as RunEvent]);
      expect(seq.lastSeqOf('T1')).toBe(2);
      for (const id of ['a', 'b', 'old'])
        expect(seq.stamp(note('T1', id))).toMatchObject({ duplicate: true });
    });

    it('an empty record opens the turn at seq 0 (a live turn that had no event yet)', () => {
      const seq = new TurnSequencer({ now: clock() });
      seq.resumeTurn('T1', []);
      expect(seq.lastSeqOf('T1')).toBe(0);
    });
  });

  it('resumeSpace: ids of events outside a turn from the run record', () => {
    const seq = new TurnSequencer({ now: clock() });
    expect(seq.knowsSpace(SPACE)).toBe(false);
    seq.resumeSpace(SPACE, [
      { ...ev('inbound', undefined, { messageId: 'm', eventId: 'i1' }), at: 7 } as RunEvent,
    ]);
    expect(seq.knowsSpace(SPACE)).toBe(true);
    expect(seq.stamp(ev('inbound', undefined, { messageId: 'm', eventId: 'i1' }))).toEqual({
      ok: true,
      duplicate: true,
      event: expect.objectContaining({ at: 7, eventId: 'i1' }),
    });
  });

  describe('resumed ids are bounded and never evict ids accepted by this process', () => {
    const SPACE_B = 'slack:C0B';
    const inboundIn = (space: string, eventId: string, at = 5) =>
      ({ type: 'inbound', space, messageId: `m-${eventId}`, eventId, at }) as RunEvent;
    const retry = (space: string, eventId: string) => ({ ...inboundIn(space, eventId), at: undefined });

    it("a busy space's record resumed after a restart does not evict another space's recent ids", () => {
      const seq = new TurnSequencer({ now: clock(), maxSpaceEventIds: 3 });
      const a1 = ev('note', undefined, { text: 'n', eventId: 'a1' });
      accepted(seq.stamp(a1));
      seq.resumeSpace(
        SPACE_B,
        Array.from({ length: 10 }, (_, i) => inboundIn(SPACE_B, `b${i}`)),
      );
      expect(seq.stamp(a1)).toMatchObject({ ok: true, duplicate: true });
      // B's newest resumed ids are known.
      expect(seq.stamp(retry(SPACE_B, 'b9') as RunEvent)).toMatchObject({ ok: true, duplicate: true });
    });

    it('keeps only the newest maxResumedEventIdsPerSpace ids of a resumed record', () => {
      const seq = new TurnSequencer({ now: clock(), maxResumedEventIdsPerSpace: 2 });
      seq.resumeSpace(
        SPACE_B,
        ['b1', 'b2', 'b3'].map((id) => inboundIn(SPACE_B, id)),
      );
      expect(seq.stamp(retry(SPACE_B, 'b3') as RunEvent)).toMatchObject({ duplicate: true });
      expect(seq.stamp(retry(SPACE_B, 'b2') as RunEvent)).toMatchObject({ duplicate: true });
      expect(seq.stamp(retry(SPACE_B, 'b1') as RunEvent)).not.toHaveProperty('duplicate');
    });

    it('resumed ids of all spaces together are at most maxSpaceEventIds, the earliest resumed go first', () => {
      const seq = new TurnSequencer({ now: clock(), maxSpaceEventIds: 3 });
      const live = ['x1', 'x2', 'x3'].map((id) => inboundIn(SPACE, id));
      for (const event of live) accepted(seq.stamp({ ...event, at: undefined } as RunEvent));
      seq.resumeSpace(
        SPACE_B,
        ['b1', 'b2'].map((id) => inboundIn(SPACE_B, id)),
      );
      seq.resumeSpace(
        'slack:C0C',
        ['c1', 'c2'].map((id) => inboundIn('slack:C0C', id)),
      );
      // The three ids this process accepted were kept through both resumes.
      for (const event of live)
        expect(seq.stamp({ ...event, at: undefined } as RunEvent)).toMatchObject({ duplicate: true });
      for (const id of ['b2', 'c1', 'c2'])
        expect(seq.stamp(retry(id.startsWith('b') ? SPACE_B : 'slack:C0C', id) as RunEvent)).toMatchObject({
          duplicate: true,
        });
      // b1, the earliest resumed, was forgotten (stamped last: a fresh id joins this process's ids).
      expect(seq.stamp(retry(SPACE_B, 'b1') as RunEvent)).not.toHaveProperty('duplicate');
    });

    it('an id accepted here and also in the resumed record is answered with what this process gave it', () => {
      const seq = new TurnSequencer({ now: clock(50) });
      const first = accepted(seq.stamp(retry(SPACE_B, 'b1') as RunEvent));
      seq.resumeSpace(SPACE_B, [inboundIn(SPACE_B, 'b1', 7)]);
      expect(seq.stamp(retry(SPACE_B, 'b1') as RunEvent)).toEqual({
        ok: true,
        duplicate: true,
        event: first,
      });
    });
  });

  it("resumeTurn: an inbound kept in a turn's record is registered with its space (where inbound is deduplicated)", () => {
    const seq = new TurnSequencer({ now: clock() });
    const anchor = { type: 'inbound', space: SPACE, turnId: 'T1', messageId: 'm', eventId: 'i1', at: 7 };
    seq.resumeTurn('T1', [anchor as RunEvent, { ...note('T1', 'e1'), seq: 1, at: 8 } as RunEvent]);
    expect(seq.stamp({ ...anchor, at: undefined } as RunEvent)).toEqual({
      ok: true,
      duplicate: true,
      event: expect.objectContaining({ at: 7, eventId: 'i1' }),
    });
    // The same id on a turnless inbound of the space is the same event (one namespace per space).
    expect(seq.stamp(ev('inbound', undefined, { messageId: 'm', eventId: 'i1' }))).toMatchObject({
      duplicate: true,
    });
    // The space's own record is still to be read, and the turn's sequence is unchanged by the inbound.
    expect(seq.knowsSpace(SPACE)).toBe(false);
    expect(seq.lastSeqOf('T1')).toBe(1);
  });

  it('rejects bad limits', () => {
    expect(() => new TurnSequencer({ maxEventIdsPerTurn: 0 })).toThrow(
      /maxEventIdsPerTurn must be a positive integer/,
    );
    expect(() => new TurnSequencer({ maxEndedEventIds: -1 })).toThrow(
      /maxEndedEventIds must be an integer ≥ 0/,
    );
    expect(() => new TurnSequencer({ maxResumedEventIdsPerSpace: 1.5 })).toThrow(
      /maxResumedEventIdsPerSpace must be a positive integer, got 1.5/,
    );
  });
});
