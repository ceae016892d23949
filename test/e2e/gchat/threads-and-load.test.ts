/**
 * Beyond the numbered plan, on Google Chat end to end: the spec's open
 * question 2 (a user writing inside an existing thread: reuse it), open
 * question 4 (`visibility.finalReplyInThread`), and ten concurrent turns in
 * one space against the per-space quota (60 writes/min).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type GchatE2E, landed, SPACE_NAME, startGchatE2E } from './harness.js';

let e: GchatE2E;
afterEach(async () => {
  await e.stop();
});

describe('gchat E2E: threads', () => {
  it('a turn whose user wrote inside an existing thread logs in that thread', async () => {
    e = await startGchatE2E();
    const earlier = await e.userMessage('u0');
    const reply = await e.userMessage('u1', { threadId: earlier.threadId });
    e.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1' });
    e.send({ type: 'tool_call', turnId: 'T1', callId: 'c1', tool: 'Read' });
    await e.advance(100);
    expect(reply.threadId).toBe(earlier.threadId);
    const [create] = landed(e.creates());
    expect(create).toMatchObject({ thread: earlier.threadId });
    expect(create?.details).toMatchObject({ thread: { name: earlier.threadId }, threadReply: true });
  });

  it('a turn anchored by root message alone (no thread id) finds its thread with one read', async () => {
    e = await startGchatE2E();
    const posted = await e.userMessage('u0');
    e.send({ type: 'turn_started', turnId: 'T1', root: { messageId: posted.messageId } });
    e.send({ type: 'tool_call', turnId: 'T1', callId: 'c1', tool: 'Read' });
    await e.advance(100);
    // The root's 👀 (issue 26) is a reaction, not a read: the log finds its thread with one GET.
    const calls = e.calls().filter((c) => c.op !== 'reaction');
    expect(calls.map((c) => [c.method, c.op, c.thread])).toEqual([
      ['GET', 'other', null],
      ['POST', 'create', posted.threadId],
    ]);
  });

  it('visibility.finalReplyInThread puts the answer in the turn thread', async () => {
    e = await startGchatE2E({ config: { visibility: { finalReplyInThread: true } } });
    const root = await e.userMessage('u1');
    e.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1' });
    e.send({ type: 'tool_call', turnId: 'T1', callId: 'c1', tool: 'Read' });
    await e.quiet();
    e.send({ type: 'answer', turnId: 'T1', text: 'All done.' });
    e.send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' });
    await e.advance(2000);
    const answer = landed(e.creates()).find((c) => c.text === 'All done.');
    expect(answer).toMatchObject({ thread: root.threadId });
    expect(answer?.details?.messageReplyOption).toBe('REPLY_MESSAGE_FALLBACK_TO_NEW_THREAD');
    expect(landed(e.creates()).every((c) => c.thread === root.threadId)).toBe(true);
  });
});

/** Ten turns in one space, each logging one tool call every 250 ms for `steps` rounds, then ending. */
async function tenTurns(steps: number) {
  const roots = [];
  for (let i = 0; i < 10; i++) roots.push(await e.userMessage(`u${i}`));
  for (let i = 0; i < 10; i++) e.send({ type: 'turn_started', turnId: `T${i}`, rootRef: `u${i}` });
  for (let step = 0; step < steps; step++) {
    for (let i = 0; i < 10; i++) {
      e.send({
        type: 'tool_call',
        turnId: `T${i}`,
        callId: `c${step}`,
        tool: 'Read',
        input: { path: `f${step}.ts` },
      });
    }
    await e.advance(250);
  }
  for (let i = 0; i < 10; i++) e.send({ type: 'turn_ended', turnId: `T${i}`, outcome: 'ok' });
  await e.advance(120_000);
  return roots;
}

/** Every turn ended whole: one log message in its thread with every entry, nothing degraded or dead-lettered. */
function expectEveryFinalFrameLanded(roots: { threadId: string }[], steps: number): void {
  for (let i = 0; i < 10; i++) {
    expect(e.runtime.turn(`T${i}`)).toMatchObject({ state: 'ended', degraded: false, deadLetters: 0 });
    const logs = e.messages(SPACE_NAME).filter((m) => m.thread === roots[i]?.threadId);
    expect(logs).toHaveLength(1);
    for (let step = 0; step < steps; step++) expect(logs[0]?.text).toContain(`f${step}.ts`);
  }
}

const writes = () => e.calls().filter((c) => c.op === 'create' || c.op === 'update');

describe('gchat E2E: ten concurrent turns in one space', () => {
  it('with the budget sized to the space (60/min): the space stays under its quota (no 429 at all) and every final frame lands', async () => {
    e = await startGchatE2E({ config: { budgets: { gchat: { ratePerMinute: 60 } } } });
    const roots = await tenTurns(40);
    expect(writes().filter((c) => c.status >= 300)).toEqual([]);
    expectEveryFinalFrameLanded(roots, 40);
  });

  it('with the default budget: any 429 is absorbed (backoff), none reaches a user, every final frame lands', async () => {
    e = await startGchatE2E();
    const roots = await tenTurns(40);
    // Only quota refusals, never another failure; each was retried after the surface's backoff.
    expect(writes().filter((c) => c.status >= 300 && c.status !== 429)).toEqual([]);
    expectEveryFinalFrameLanded(roots, 40);
  });
});

describe('gchat E2E: fifty turns in ten spaces on the default budget', () => {
  it('no write is refused with a 429: the budget keeps its margin under the per-space limit', async () => {
    e = await startGchatE2E();
    const spaces = Array.from({ length: 10 }, (_, s) => `gchat:spaces/LOAD${s}`);
    for (const [s, space] of spaces.entries()) {
      for (let t = 0; t < 5; t++) await e.userMessage(`u${s}-${t}`, { space });
    }
    for (const [s, space] of spaces.entries()) {
      for (let t = 0; t < 5; t++)
        e.send({ type: 'turn_started', turnId: `T${s}-${t}`, rootRef: `u${s}-${t}` }, space);
    }
    for (let step = 0; step < 30; step++) {
      for (const [s, space] of spaces.entries()) {
        for (let t = 0; t < 5; t++) {
          const call = { type: 'tool_call', turnId: `T${s}-${t}`, callId: `c${step}`, tool: 'Read' };
          e.send({ ...call, input: { path: `f${step}.ts` } }, space);
        }
      }
      await e.advance(250);
    }
    for (const [s, space] of spaces.entries()) {
      for (let t = 0; t < 5; t++) e.send({ type: 'turn_ended', turnId: `T${s}-${t}`, outcome: 'ok' }, space);
    }
    await e.advance(120_000);
    expect(writes().length).toBeGreaterThan(100);
    expect(writes().filter((c) => c.status === 429)).toEqual([]);
    for (const [s] of spaces.entries()) {
      for (let t = 0; t < 5; t++) expect(e.runtime.turn(`T${s}-${t}`)).toMatchObject({ state: 'ended' });
    }
  });
});
