/**
 * docs/test-plan.md, core happy path (1–5): the
 * real runtime on the Google Chat surface through googleapis, asserted on the
 * emulator's recorded calls (`thread`, `details.messageReplyOption`,
 * `details.updateMask`, `notifies`).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type GchatE2E, landed, startGchatE2E } from './harness.js';

let e: GchatE2E;
afterEach(async () => {
  await e.stop();
});

const toolCall = (callId: string, tool: string, input: Record<string, unknown>) => ({
  type: 'tool_call',
  turnId: 'T1',
  callId,
  tool,
  input,
});

/** A turn anchored on a person's message, with its first log message posted. */
async function openedTurn() {
  e = await startGchatE2E();
  const root = await e.userMessage('u1');
  e.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1' });
  e.send(toolCall('c1', 'Read', { path: 'src/app.ts' }));
  await e.quiet();
  return root;
}

describe('gchat E2E: core happy path', () => {
  it("1: opens a thread anchored on the user's message for the first thread-log event", async () => {
    const root = await openedTurn();
    const creates = landed(e.creates());
    expect(creates).toHaveLength(1);
    const [create] = creates;
    expect(create).toMatchObject({ thread: root.threadId, notifies: true });
    expect(create?.details).toMatchObject({
      messageReplyOption: 'REPLY_MESSAGE_FALLBACK_TO_NEW_THREAD',
      thread: { name: root.threadId },
      threadReply: true,
    });
    expect(create?.text).toContain('⋯ Read(src/app.ts)');
    // The returned message name is kept for the next event.
    expect(e.runtime.turn('T1')?.logMessages).toEqual([
      expect.objectContaining({ messageId: create?.messageId, threadId: root.threadId }),
    ]);
  });

  it('2: edits the same log message on subsequent thread-log events', async () => {
    await openedTurn();
    const logMessage = e.creates()[0]?.messageId;
    e.send(toolCall('c2', 'Grep', { pattern: 'TODO' }));
    await e.advance(1500); // every write, creates too, waits for the space's spacing (1 s plus the budget margin)
    const updates = landed(e.updates());
    expect(updates).toHaveLength(1);
    expect(updates[0]).toMatchObject({ messageId: logMessage, notifies: false });
    expect(updates[0]?.details).toMatchObject({ apiMethod: 'spaces.messages.patch', updateMask: 'text' });
    expect(updates[0]?.text).toMatch(/Read\(src\/app\.ts\)[\s\S]*Grep\("TODO"\)/);
    expect(landed(e.creates())).toHaveLength(1);
  });

  it('3: coalesces bursts of thread-log events into a single edit', async () => {
    await openedTurn();
    e.send(toolCall('c2', 'Grep', { pattern: 'one' }));
    await e.advance(300);
    e.send(toolCall('c3', 'Grep', { pattern: 'two' }));
    await e.advance(300);
    e.send(toolCall('c4', 'Grep', { pattern: 'three' }));
    await e.advance(1500);
    const updates = landed(e.updates());
    expect(updates).toHaveLength(1);
    expect(updates[0]?.text).toMatch(/"one"[\s\S]*"two"[\s\S]*"three"/);
    // Only the first log message buzzed.
    expect(e.calls().filter((c) => c.notifies)).toHaveLength(1);
  });

  it('4: routes the final answer to top-level, not the thread', async () => {
    const root = await openedTurn();
    e.send({ type: 'answer', turnId: 'T1', text: 'All **done**.' });
    e.send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' });
    await e.advance(3000); // every write, creates too, waits for the space's spacing (1 s plus the budget margin)
    const answer = landed(e.creates()).find((c) => c.text?.startsWith('All'));
    expect(answer).toMatchObject({ thread: null, notifies: true, text: 'All *done*.' });
    expect(answer?.details).not.toHaveProperty('messageReplyOption');
    expect(answer?.details).not.toHaveProperty('thread');
    expect(answer?.details?.threadName).not.toBe(root.threadId);
  });

  it('5: flushes pending edits on turn_ended', async () => {
    await openedTurn();
    e.send(toolCall('c2', 'Write', { path: 'src/out.ts' }));
    e.send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' });
    // The end does not wait for the debounce, only for the space's next slot after the first post.
    await e.advance(1200);
    const updates = landed(e.updates());
    expect(updates).toHaveLength(1);
    expect(updates[0]?.text).toContain('Write(src/out.ts)');
    expect(e.runtime.turn('T1')?.state).toBe('ended');
  });
});
