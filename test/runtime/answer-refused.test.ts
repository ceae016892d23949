// spec: issue 9 — "Answers are never lost": an answer the platform still refuses is reported in the turn's view
// and kept as a dead letter, with the turn marked degraded — also when the refusal comes after `turn_ended`,
// once the turn's summary is already written; a refused part of a long answer is kept with the parts after it.
import { afterEach, describe, expect, it } from 'vitest';
import { type Harness, startRuntime } from './runtime.helpers.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.runtime.stop();
  h = undefined;
});

describe('an answer refused after the turn ended', () => {
  it('degrades the ended turn’s view and its stored summary, with the reason and a dead letter', async () => {
    h = await startRuntime();
    const root = h.userMessage('u1');
    h.send({ type: 'turn_started', turnId: 'T1', root });
    h.send({ type: 'note', turnId: 'T1', text: 'working' });
    await h.advance(3_000);
    expect(h.runtime.turn('T1')?.logMessages).toHaveLength(1);

    // From now on the platform refuses every new message: the answer cannot land, the log's edits still do.
    h.surface.fail({ op: 'create', status: 400, times: 1_000 });
    h.send({ type: 'answer', turnId: 'T1', text: 'All done.' });
    h.send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' });
    await h.advance(60_000);

    const view = h.runtime.turn('T1');
    expect(view).toMatchObject({ state: 'ended', outcome: 'ok', degraded: true });
    expect(view?.warnings?.some((w) => /answer not delivered/.test(w))).toBe(true);
    const summary = await h.store.turnSummary('T1');
    expect(summary).toMatchObject({ degraded: true });
    expect(summary?.deadLetters).toBeGreaterThanOrEqual(1);
    const letters = await h.store.deadLetters();
    expect(letters.some((l) => l.reason.startsWith('answer:') && l.payload.includes('All done.'))).toBe(true);
  });

  it('a later part refused for good: the dead letter keeps it and every part after it, none lost', async () => {
    h = await startRuntime();
    const root = h.userMessage('u1');
    const paragraph = (n: number) => `¶${n} ${'lorem ipsum dolor sit amet '.repeat(230).trim()}`;
    h.send({ type: 'turn_started', turnId: 'T1', root });
    h.send({ type: 'answer', turnId: 'T1', text: [1, 2, 3].map(paragraph).join('\n\n') });
    h.send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' });
    const answerCreates = () =>
      h?.surface.calls.filter((c) => c.op === 'create' && (c.text ?? '').includes('¶')) ?? [];
    for (let ms = 0; answerCreates().length < 1 && ms < 30_000; ms += 100) await h.advance(100);
    expect(answerCreates()).toHaveLength(1);
    // Part 1 landed; from now on the platform refuses every new message.
    h.surface.fail({ op: 'create', status: 400, times: 1_000 });
    await h.advance(60_000);

    expect(h.runtime.turn('T1')).toMatchObject({ outcome: 'ok', degraded: true });
    const letter = (await h.store.deadLetters()).find((l) => l.reason.startsWith('answer:'));
    expect(letter?.reason).toMatch(/\(and the 1 part after it, not sent\)$/);
    expect(letter?.payload).not.toContain('¶1 ');
    expect(letter?.payload).toContain(paragraph(2));
    expect(letter?.payload).toContain(paragraph(3));
  });
});
