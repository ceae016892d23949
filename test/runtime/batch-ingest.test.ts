/**
 * Batch-aware ingest (issue #14 item 4): `ingestBatch` accepts or refuses
 * each event on its own (per-line errors, dead letters), applies the
 * accepted ones in order with the outcome of one `ingest` each, and a run of
 * entries for a live turn reaches its space once and its turn once.
 */
import { describe, expect, it } from 'vitest';
import { type InspectionEvent, SimulatedClock } from 'xstate';
import { createMemorySurface } from '../../src/testing/memory-surface.js';
import { type Harness, SPACE, settle, startRuntime } from './runtime.helpers.js';

const entries = (turnId: string, from: number, n: number, space = SPACE) =>
  Array.from({ length: n }, (_, i) => ({
    space,
    type: 'tool_call',
    turnId,
    callId: `c${from + i}`,
    tool: 'Read',
    input: { path: `file${from + i}.ts` },
  }));

/** A whole turn: the person's message, the start, entries, an answer and the end. */
function wholeTurn(h: Harness): Record<string, unknown>[] {
  const root = h.surface.inbound({ space: SPACE, text: 'please look' });
  return [
    { space: SPACE, type: 'inbound', messageId: root.messageId, threadId: root.threadId, ref: 'u1' },
    { space: SPACE, type: 'turn_started', turnId: 'T1', rootRef: 'u1' },
    ...entries('T1', 1, 6),
    { space: SPACE, type: 'answer', turnId: 'T1', text: 'All six files read.' },
    { space: SPACE, type: 'turn_ended', turnId: 'T1', outcome: 'ok' },
  ];
}

async function texts(h: Harness): Promise<string[]> {
  await h.advance(5000);
  return h.surface.messages(SPACE).map((m) => m.text.replace(/\d\d:\d\d:\d\d/g, 'HH:MM:SS'));
}

describe('runtime.ingestBatch', () => {
  it('answers per event: a refused one gets its error and a dead letter, the others are applied in order', async () => {
    const h = await startRuntime();
    const root = h.userMessage('u1');
    h.send({ type: 'turn_started', turnId: 'T1', root });
    const results = h.runtime.ingestBatch([
      ...entries('T1', 1, 2),
      { space: SPACE, type: 'tool_call', turnId: 'T1', tool: 'Read', ok: 'yes', callId: 7 },
      '{"type": "note", "space": "gchat:spaces/AAAA", "turnId": "T1", "text": "as a JSON line"}',
      '{not json',
    ]);
    expect(results.map((r) => r.ok)).toEqual([true, true, false, true, false]);
    expect(results[2]).toMatchObject({ ok: false, error: expect.stringMatching(/callId/) });
    expect(results[4]).toMatchObject({ ok: false, error: expect.stringMatching(/invalid JSON/) });
    const seqs = results.flatMap((r) => (r.ok ? [r.event.seq] : []));
    expect(seqs).toEqual([2, 3, 4]);
    expect(await h.store.deadLetters()).toHaveLength(2);
    await settle();
    expect(h.runtime.turn('T1')?.entries).toBe(3);
    await h.runtime.stop();
  });

  it('a whole turn as one batch shows what the same events one by one show', async () => {
    const one = await startRuntime({ clock: new SimulatedClock() });
    for (const event of wholeTurn(one)) expect(one.runtime.ingest(event).ok).toBe(true);
    const batch = await startRuntime({ clock: new SimulatedClock() });
    expect(batch.runtime.ingestBatch(wholeTurn(batch)).every((r) => r.ok)).toBe(true);
    const shown = await texts(batch);
    expect(shown).toEqual(await texts(one));
    expect(shown.some((t) => t.includes('file6.ts'))).toBe(true);
    expect(batch.runtime.turn('T1')).toMatchObject({ state: 'ended', outcome: 'ok', entries: 6 });
    await one.runtime.stop();
    await batch.runtime.stop();
  });

  it('entries for a live turn reach its space in one event and its turn in one event', async () => {
    const seen: InspectionEvent[] = [];
    const h = await startRuntime({ inspect: (event) => seen.push(event) });
    const root = h.userMessage('u1');
    h.send({ type: 'turn_started', turnId: 'T1', root });
    // The first post asks the budget first: let it land, so the batch finds the log live.
    h.send({ type: 'note', turnId: 'T1', text: 'started' });
    await h.advance(1000);
    seen.length = 0;
    h.runtime.ingestBatch(entries('T1', 1, 20));
    const received = (id: string) =>
      seen
        .filter((e) => e.type === '@xstate.event' && (e.actorRef as { id?: string }).id === id)
        .map((e) => (e as { event: { type: string } }).event.type);
    expect(received(`space:${SPACE}`)).toEqual(['space.events']);
    expect(received('turn:0')).toEqual(['turn.log']);
    expect(h.runtime.turn('T1')?.entries).toBe(21); // the note, then the batch
    await h.runtime.stop();
  });

  it('entries of two spaces in one batch each reach their own space, in order', async () => {
    const other = 'gchat:spaces/BBBB';
    const h = await startRuntime({ surface: createMemorySurface({ platform: 'gchat' }) });
    h.runtime.ingestBatch([
      { space: SPACE, type: 'turn_started', turnId: 'T1', root: { messageId: 'm1', threadId: 't1' } },
      { space: other, type: 'turn_started', turnId: 'T2', root: { messageId: 'm2', threadId: 't2' } },
      ...entries('T1', 1, 3),
      ...entries('T2', 1, 4, other),
    ]);
    await settle();
    expect(h.runtime.turn('T1')).toMatchObject({ space: SPACE, entries: 3 });
    expect(h.runtime.turn('T2')).toMatchObject({ space: other, entries: 4 });
    await h.runtime.stop();
  });
});
