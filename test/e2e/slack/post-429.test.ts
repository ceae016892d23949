// spec: issue 11 item 5 · `ratelimited` / 429 → wait out `Retry-After`, on `chat.postMessage` through the real
// runtime: the 👀 ack card's post and the answer's post each answered 429 once (the emulator's fault
// injection); the runtime writes nothing until Retry-After has passed, posts again, and nothing is lost or
// posted twice: one card in the person's thread, one answer, and no 429 after the injected ones.
import { afterEach, describe, expect, it } from 'vitest';
import { landed, type SlackE2E, startSlackE2E } from './harness.js';

let e: SlackE2E | undefined;
afterEach(async () => {
  await e?.stop();
  e = undefined;
});

const RETRY_AFTER_S = 5;

describe('slack E2E: 429 on chat.postMessage', () => {
  it('the ack card’s post: Retry-After is waited out, then one card lands in the thread', async () => {
    e = await startSlackE2E();
    const root = await e.userMessage('u1');
    await e.faults([{ op: 'create', status: 429, retryAfterS: RETRY_AFTER_S, times: 1 }]);
    e.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1', title: 'Fix the build' });
    e.send({ type: 'tool_call', turnId: 'T1', callId: 'c1', tool: 'Read', input: { path: 'one.ts' } });
    await e.advance(1000);
    const refused = e.calls().filter((c) => c.status === 429);
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatchObject({ op: 'create', thread: root.messageId });
    await e.advance(RETRY_AFTER_S * 1000 + 3000);
    // Nothing written to Slack while Retry-After ran.
    const writes = e.calls().filter((c) => c.op === 'create' || c.op === 'update');
    expect(
      writes.filter((c) => c.at > refused[0]!.at && c.at < refused[0]!.at + RETRY_AFTER_S * 1000),
    ).toEqual([]);
    const cards = landed(e.creates());
    expect(cards).toHaveLength(1);
    expect(cards[0]).toMatchObject({ thread: root.messageId });
    e.send({ type: 'tool_call', turnId: 'T1', callId: 'c2', tool: 'Read', input: { path: 'two.ts' } });
    e.send({ type: 'answer', turnId: 'T1', text: 'All done.' });
    e.send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' });
    await e.advance(10_000);
    expect(e.calls().filter((c) => c.status === 429)).toHaveLength(1);
    const thread = e.messages().filter((m) => m.thread === root.messageId);
    expect(thread).toHaveLength(1);
    expect(thread[0]?.text).toMatch(/^✅ \*Fix the build\*[\s\S]*one\.ts[\s\S]*two\.ts/);
    expect(e.messages().filter((m) => m.text === 'All done.')).toHaveLength(1);
    expect(e.runtime.turn('T1')).toMatchObject({ state: 'ended', degraded: false });
  });

  it('the answer’s post: Retry-After is waited out, then the answer lands once, and the card ends ✅', async () => {
    e = await startSlackE2E();
    const root = await e.userMessage('u1');
    e.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1', title: 'Fix the build' });
    e.send({ type: 'tool_call', turnId: 'T1', callId: 'c1', tool: 'Read', input: { path: 'one.ts' } });
    await e.advance(3000);
    expect(landed(e.creates())).toHaveLength(1);
    await e.faults([{ op: 'create', status: 429, retryAfterS: RETRY_AFTER_S, times: 1 }]);
    e.send({ type: 'answer', turnId: 'T1', text: 'All done.' });
    e.send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' });
    await e.advance(1500);
    const refused = e.calls().filter((c) => c.status === 429);
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatchObject({ op: 'create', thread: null });
    await e.advance(RETRY_AFTER_S * 1000 + 5000);
    const writes = e.calls().filter((c) => c.op === 'create' || c.op === 'update');
    expect(
      writes.filter((c) => c.at > refused[0]!.at && c.at < refused[0]!.at + RETRY_AFTER_S * 1000),
    ).toEqual([]);
    expect(e.calls().filter((c) => c.status === 429)).toHaveLength(1);
    const answers = landed(e.creates()).filter((c) => c.thread === null);
    expect(answers).toHaveLength(1);
    expect(answers[0]).toMatchObject({ notifies: true });
    expect(e.messages().filter((m) => m.text === 'All done.')).toHaveLength(1);
    const thread = e.messages().filter((m) => m.thread === root.messageId);
    expect(thread).toHaveLength(1);
    expect(thread[0]?.text).toMatch(/^✅ \*Fix the build\*/);
    expect(e.runtime.turn('T1')).toMatchObject({ state: 'ended', degraded: false });
    expect(e.runtime.turn('T1')?.warnings ?? []).toEqual([]);
  });

  it('the whole turn arrives while the ack card waits out Retry-After: one card, ✅, one answer', async () => {
    e = await startSlackE2E();
    const root = await e.userMessage('u1');
    await e.faults([{ op: 'create', status: 429, retryAfterS: RETRY_AFTER_S, times: 1 }]);
    e.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1', title: 'Fix the build' });
    await e.advance(500);
    expect(e.calls().filter((c) => c.status === 429)).toHaveLength(1);
    e.send({ type: 'tool_call', turnId: 'T1', callId: 'c1', tool: 'Read', input: { path: 'one.ts' } });
    e.send({ type: 'answer', turnId: 'T1', text: 'All done.' });
    e.send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' });
    await e.advance(RETRY_AFTER_S * 1000 + 10_000);
    const refused = e.calls().filter((c) => c.status === 429);
    expect(refused).toHaveLength(1);
    const writes = e.calls().filter((c) => c.op === 'create' || c.op === 'update');
    expect(
      writes.filter((c) => c.at > refused[0]!.at && c.at < refused[0]!.at + RETRY_AFTER_S * 1000),
    ).toEqual([]);
    const thread = e.messages().filter((m) => m.thread === root.messageId);
    expect(thread).toHaveLength(1);
    expect(thread[0]?.text).toMatch(/^✅ \*Fix the build\*[\s\S]*one\.ts/);
    expect(e.messages().filter((m) => m.text === 'All done.')).toHaveLength(1);
    expect(e.runtime.turn('T1')).toMatchObject({ state: 'ended', degraded: false });
  });

  it('a 429 on the second part of a long answer: every part lands once, in order', async () => {
    e = await startSlackE2E();
    await e.userMessage('u1');
    e.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1' });
    await e.advance(2000);
    const text = ['A', 'B', 'C'].map((c) => c.repeat(35_000)).join('');
    e.send({ type: 'answer', turnId: 'T1', text });
    e.send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' });
    const answers = () => landed(e!.creates()).filter((c) => c.thread === null);
    for (let i = 0; i < 100 && answers().length === 0; i++) await e.advance(100);
    expect(answers()).toHaveLength(1);
    await e.faults([{ op: 'create', status: 429, retryAfterS: RETRY_AFTER_S, times: 1 }]);
    await e.advance(60_000);
    const refused = e.calls().filter((c) => c.status === 429);
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatchObject({ op: 'create', thread: null });
    expect(
      answers()
        .map((c) => c.text)
        .join(''),
    ).toBe(text);
    expect(
      answers().every((c) => c.at >= refused[0]!.at + RETRY_AFTER_S * 1000 || c.at < refused[0]!.at),
    ).toBe(true);
    expect(e.runtime.turn('T1')).toMatchObject({ outcome: 'ok', deadLetters: 0, degraded: false });
  });
});
