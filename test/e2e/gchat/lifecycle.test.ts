/**
 * docs/test-plan.md, lifecycle & state (18–19)
 * and subagent propagation (20–22), through the real runtime, the Google
 * Chat surface and googleapis.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type GchatE2E, landed, startGchatE2E } from './harness.js';

let e: GchatE2E;
afterEach(async () => {
  await e.stop();
});

const textOf = (messageId: string | null | undefined) =>
  e.messages().find((m) => m.id === messageId)?.text ?? '';

describe('gchat E2E: lifecycle & state', () => {
  it('18: a new turn after turn_ended opens its own thread and log message', async () => {
    e = await startGchatE2E();
    const r1 = await e.userMessage('u1');
    e.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1' });
    e.send({ type: 'tool_call', turnId: 'T1', callId: 'c1', tool: 'Read' });
    e.send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' });
    await e.advance(100);
    const r2 = await e.userMessage('u2');
    e.send({ type: 'turn_started', turnId: 'T2', rootRef: 'u2' });
    e.send({ type: 'tool_call', turnId: 'T2', callId: 'c1', tool: 'Write' });
    await e.advance(3000); // every write, creates too, waits for the space's spacing (1 s plus the budget margin)
    const creates = landed(e.creates());
    expect(creates.map((c) => c.thread)).toEqual([r1.threadId, r2.threadId]);
    expect(creates[0]?.messageId).not.toBe(creates[1]?.messageId);
    // T1's only edit is its own terminal frame (its headline says done); T2 never edits T1's message.
    expect(e.updates().map((u) => [u.messageId, u.text?.split('\n')[0]])).toEqual([
      [creates[0]?.messageId, '✅ Agent activity · 1s'],
    ]);
  });

  it('19: a turn_ended with no thread-log events opens no thread and surfaces no error', async () => {
    e = await startGchatE2E();
    await e.userMessage('u1');
    e.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1' });
    e.send({ type: 'answer', turnId: 'T1', text: 'Nothing to do.' });
    e.send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' });
    await e.advance(2000);
    // Only the answer is posted (the root's reactions, issue 26, are no message and open no thread).
    const messages = e.calls().filter((c) => c.op !== 'reaction');
    expect(messages.map((c) => [c.op, c.status, c.thread, c.text])).toEqual([
      ['create', 200, null, 'Nothing to do.'],
    ]);
    expect(e.calls().every((c) => c.thread === null)).toBe(true);
    expect(e.runtime.turn('T1')).toMatchObject({ state: 'ended', logMessages: [], degraded: false });
    expect(e.warnings).toEqual([]);
  });
});

describe('gchat E2E: subagent propagation', () => {
  it('20: groups parent-agent and subagent activity into one thread and one log message', async () => {
    e = await startGchatE2E();
    const root = await e.userMessage('u1');
    e.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1' });
    e.send({ type: 'tool_call', turnId: 'T1', callId: 'c1', tool: 'Read', input: { path: 'parent.ts' } });
    await e.quiet();
    e.send({ type: 'subagent', turnId: 'T1', subagentId: 's1', status: 'started', name: 'Explore' });
    e.send({
      type: 'tool_call',
      turnId: 'T1',
      subagentId: 's1',
      callId: 'c2',
      tool: 'Grep',
      input: { pattern: 'child' },
    });
    e.send({ type: 'subagent', turnId: 'T1', subagentId: 's1', status: 'done', name: 'Explore' });
    e.send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' });
    await e.advance(2000); // every write, creates too, waits for the space's spacing (1 s plus the budget margin)
    const creates = landed(e.creates());
    expect(creates).toHaveLength(1);
    expect(creates[0]?.thread).toBe(root.threadId);
    expect(textOf(creates[0]?.messageId)).toMatch(
      /parent\.ts[\s\S]*Explore started[\s\S]*child[\s\S]*Explore done/,
    );
  });

  it('21: propagates the turn through nested subagents: one thread, one log message', async () => {
    e = await startGchatE2E();
    const root = await e.userMessage('u1');
    e.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1' });
    e.send({ type: 'subagent', turnId: 'T1', subagentId: 's1', status: 'started', name: 'Plan' });
    await e.quiet();
    const nested = { turnId: 'T1', subagentId: 's2', parentSubagentId: 's1' };
    e.send({ type: 'subagent', ...nested, status: 'started', name: 'Search' });
    e.send({ type: 'tool_call', ...nested, callId: 'g', tool: 'Grep', input: { pattern: 'grandchild' } });
    e.send({ type: 'subagent', ...nested, status: 'done', name: 'Search' });
    e.send({ type: 'subagent', turnId: 'T1', subagentId: 's1', status: 'done', name: 'Plan' });
    e.send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' });
    await e.advance(2000); // every write, creates too, waits for the space's spacing (1 s plus the budget margin)
    const creates = landed(e.creates());
    expect(creates.map((c) => c.thread)).toEqual([root.threadId]);
    const [headline, ...lines] = textOf(creates[0]?.messageId).split('\n');
    expect(headline).toBe('✅ Agent activity · 1s');
    expect(lines).toHaveLength(5);
    expect(lines[2]).toContain('grandchild');
  });

  it('22: activity from a subagent without a turnId goes top-level with a warning, never a second thread', async () => {
    e = await startGchatE2E();
    const root = await e.userMessage('u1');
    e.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1' });
    e.send({ type: 'tool_call', turnId: 'T1', callId: 'c1', tool: 'Read' });
    await e.quiet();
    e.send({ type: 'tool_call', subagentId: 's9', callId: 'c2', tool: 'Orphan' });
    await e.advance(2000); // every write, creates too, waits for the space's spacing (1 s plus the budget margin)
    const creates = landed(e.creates());
    expect(creates.map((c) => c.thread)).toEqual([root.threadId, null]);
    expect(creates[1]?.details).not.toHaveProperty('messageReplyOption');
    expect(creates[1]?.text).toContain('Orphan');
    expect(e.warnings.some((w) => w.includes('has no turnId'))).toBe(true);
  });
});
