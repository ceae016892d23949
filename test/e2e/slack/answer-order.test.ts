// spec: issue 11 item 2 "terminal frames show ✅ … and the total time" and "the answer is posted as its own
// message" — the order a person sees when the answer and `turn_ended` arrive together (one POST /v1/events
// body, one `ingestBatch`): the card's final ✅ frame lands first, the answer after it, delayed by no more
// than the channel's spacing (1 s plus the budget's margin). Events sent one by one keep their order: the
// answer, sent first, lands first (docs/events.md, "The answer and the final frame").
import { afterEach, describe, expect, it } from 'vitest';
import { type SlackE2E, SPACE, START_MS, startSlackE2E } from './harness.js';

let e: SlackE2E | undefined;
afterEach(async () => {
  await e?.stop();
  e = undefined;
});

/** A turn whose card is live, then its answer and its end; the times (ms) the ✅ frame and the answer landed. */
async function finish(together: boolean) {
  e = await startSlackE2E();
  const root = await e.userMessage('u1');
  e.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1', title: 'Fix the build' });
  e.send({ type: 'tool_call', turnId: 'T1', callId: 'c1', tool: 'Read', input: { path: 'a.ts' } });
  await e.advance(5000);
  const at = e.clock.now();
  const answer = { space: SPACE, type: 'answer', turnId: 'T1', text: 'All done.' };
  const end = { space: SPACE, type: 'turn_ended', turnId: 'T1', outcome: 'ok' };
  if (together) expect(e.runtime.ingestBatch([answer, end]).every((r) => r.ok)).toBe(true);
  else for (const event of [answer, end]) expect(e.runtime.ingest(event).ok).toBe(true);
  await e.advance(5000);
  const card = e.messages().find((m) => m.thread === root.messageId);
  const final = e
    .updates()
    .find((c) => c.messageId === card?.id && c.status < 300 && (c.text ?? '').startsWith('✅'));
  const posted = e.creates().find((c) => c.status < 300 && c.text === 'All done.');
  expect(card?.text).toMatch(/^✅ \*Fix the build\*/);
  expect(final).toBeDefined();
  expect(posted).toBeDefined();
  return { finalAt: final!.at - at, answerAt: posted!.at - at, finalSeq: final!.seq, answerSeq: posted!.seq };
}

describe('slack E2E: the final ✅ frame and the answer', () => {
  it('arriving together: the card shows ✅ first, the answer follows within the channel’s spacing', async () => {
    const { finalAt, answerAt, finalSeq, answerSeq } = await finish(true);
    expect(finalSeq).toBeLessThan(answerSeq);
    expect(finalAt).toBeLessThanOrEqual(answerAt);
    // 1 s between writes to a channel, plus the budget's 10 % margin, plus one 100 ms step of the clock.
    expect(answerAt).toBeLessThanOrEqual(1112 + 100);
    expect(e!.runtime.turn('T1')).toMatchObject({ state: 'ended', degraded: false });
  });

  it('sent one by one, the answer first: it lands first, the ✅ frame one spacing later', async () => {
    const { finalAt, answerAt, finalSeq, answerSeq } = await finish(false);
    expect(answerSeq).toBeLessThan(finalSeq);
    expect(answerAt).toBeLessThanOrEqual(100);
    expect(finalAt).toBeLessThanOrEqual(1112 + 100);
  });

  it('two answers and the end in one batch: ✅ first, then both answers in their order', async () => {
    e = await startSlackE2E();
    const root = await e.userMessage('u1');
    e.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1' });
    e.send({ type: 'tool_call', turnId: 'T1', callId: 'c1', tool: 'Read', input: { path: 'a.ts' } });
    await e.advance(5000);
    const results = e.runtime.ingestBatch([
      { space: SPACE, type: 'answer', turnId: 'T1', text: 'First.' },
      { space: SPACE, type: 'tool_call', turnId: 'T1', callId: 'c2', tool: 'Read', input: { path: 'b.ts' } },
      { space: SPACE, type: 'answer', turnId: 'T1', text: 'Second.' },
      { space: SPACE, type: 'turn_ended', turnId: 'T1', outcome: 'ok' },
    ]);
    expect(results.every((r) => r.ok)).toBe(true);
    await e.advance(6000);
    const card = e.messages().find((m) => m.thread === root.messageId);
    expect(card?.text).toMatch(/^✅[\s\S]*b\.ts/);
    const writes = e
      .calls()
      .filter((c) => c.status < 300 && (c.op === 'create' || c.op === 'update'))
      .filter((c) => c.at > START_MS + 5000);
    expect(writes.map((c) => (c.op === 'update' ? c.text?.slice(0, 1) : c.text))).toEqual([
      '✅',
      'First.',
      'Second.',
    ]);
  });
});
