/**
 * docs/test-plan.md, routing & filters (6–8) and
 * config & DM (12–14): the real runtime on the Google Chat surface through
 * googleapis, asserted on the emulator's recorded calls.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type GchatE2E, landed, SPACE, startGchatE2E } from './harness.js';

let e: GchatE2E;
afterEach(async () => {
  await e.stop();
});

const writes = () => e.calls().filter((c) => c.op === 'create' || c.op === 'update');

describe('gchat E2E: routing & filters', () => {
  it('6: drops the user input echo regardless of filters', async () => {
    e = await startGchatE2E();
    await e.userMessage('u1');
    e.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1' });
    e.send({ type: 'input', turnId: 'T1', text: 'please fix the build' });
    await e.advance(2000);
    expect(writes()).toEqual([]);
  });

  it('7: routes a policy request into the turn thread with its cardsV2 payload', async () => {
    e = await startGchatE2E();
    const root = await e.userMessage('u1');
    e.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1' });
    e.send({ type: 'tool_call', turnId: 'T1', callId: 'c1', tool: 'Bash', input: { command: 'ls' } });
    await e.quiet();
    e.send({
      type: 'policy_request',
      turnId: 'T1',
      requestId: 'p1',
      command: 'rm',
      args: ['-rf', '/tmp/cache'],
    });
    await e.advance(2000); // every write, creates too, waits for the space's spacing (1 s plus the budget margin)
    const card = landed(e.creates()).find((c) => c.details?.cards === 1);
    expect(card).toMatchObject({ thread: root.threadId, notifies: true });
    expect(card?.details).toMatchObject({
      messageReplyOption: 'REPLY_MESSAGE_FALLBACK_TO_NEW_THREAD',
      thread: { name: root.threadId },
    });
    const stored = e.emulator.state.context.store.get(card!.messageId!);
    expect(JSON.stringify(stored?.data)).toContain('rm -rf /tmp/cache');
  });

  it('8: honours filters (verbose off hides subagent status updates)', async () => {
    e = await startGchatE2E({ config: { visibility: { filters: { verbose: false } } } });
    await e.userMessage('u1');
    e.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1' });
    e.send({ type: 'subagent', turnId: 'T1', subagentId: 's1', status: 'started', name: 'Explore' });
    await e.advance(2000);
    expect(writes()).toEqual([]);
  });
});

describe('gchat E2E: config & DM', () => {
  it('12: falls back to top-level when threadsDisabled is set on the space', async () => {
    e = await startGchatE2E({ config: { spaces: { [SPACE]: { threadsDisabled: true } } } });
    await e.userMessage('u1');
    e.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1' });
    e.send({ type: 'tool_call', turnId: 'T1', callId: 'c1', tool: 'Read', input: { path: 'a.ts' } });
    await e.advance(100);
    const creates = landed(e.creates());
    expect(creates).toHaveLength(1);
    expect(creates[0]).toMatchObject({ thread: null });
    expect(creates[0]?.details).not.toHaveProperty('messageReplyOption');
    expect(creates[0]?.details).not.toHaveProperty('thread');
  });

  it('13: falls back to top-level when visibility.threads is false globally', async () => {
    e = await startGchatE2E({ config: { visibility: { threads: false } } });
    await e.userMessage('u1');
    e.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1' });
    e.send({ type: 'tool_call', turnId: 'T1', callId: 'c1', tool: 'Read', input: { path: 'a.ts' } });
    await e.advance(100);
    const creates = landed(e.creates());
    expect(creates.map((c) => [c.thread, c.details?.messageReplyOption])).toEqual([[null, undefined]]);
  });

  it('14: DM spaces never open a thread: the log is dropped, only the answer goes top-level', async () => {
    const dm = 'gchat:spaces/dm-alice';
    e = await startGchatE2E({ config: { spaces: { [dm]: { dm: true } } } });
    await e.userMessage('u1', { space: dm });
    e.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1', dm: true }, dm);
    e.send({ type: 'tool_call', turnId: 'T1', callId: 'c1', tool: 'Read' }, dm);
    e.send({ type: 'answer', turnId: 'T1', text: 'done' }, dm);
    e.send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' }, dm);
    await e.advance(2000);
    expect(writes().map((c) => [c.space, c.text, c.thread, c.status])).toEqual([
      ['spaces/dm-alice', 'done', null, 200],
    ]);
    expect(writes()[0]?.details).toMatchObject({ audience: 'direct-message' });
  });
});
