/**
 * docs/test-plan.md, error handling (15–17):
 * Google Chat failures injected at the emulator (`/_emulator/faults`, a
 * person deleting the log message) reach the runtime as the surface's
 * errors and take the turn machine's error transitions.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type GchatE2E, landed, startGchatE2E } from './harness.js';

let e: GchatE2E;
afterEach(async () => {
  await e.stop();
});

const tool = (callId: string, path: string) => ({
  type: 'tool_call',
  turnId: 'T1',
  callId,
  tool: 'Read',
  input: { path },
});

async function startedTurn() {
  e = await startGchatE2E();
  const root = await e.userMessage('u1');
  e.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1' });
  return root;
}

describe('gchat E2E: error handling', () => {
  it('15 (issue 9 item 6): one 503 on the thread-log create is retried: one threaded log message, none top-level', async () => {
    await startedTurn();
    await e.faults([{ op: 'create', status: 503, times: 1 }]);
    e.send(tool('c1', 'one.ts'));
    await e.quiet();
    await e.advance(500); // firstPostRetry
    e.send(tool('c2', 'two.ts'));
    await e.advance(1500);
    e.send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' });
    await e.advance(2000);
    const creates = e.creates();
    expect(creates[0]).toMatchObject({
      status: 503,
      details: expect.objectContaining({ rejectedBy: 'fault' }),
    });
    const landedCreates = landed(creates.slice(1));
    expect(landedCreates).toHaveLength(1);
    expect(landedCreates[0]?.thread).not.toBeNull();
    expect(landedCreates.filter((c) => c.thread === null)).toHaveLength(0);
    const shown = [...landedCreates, ...landed(e.updates())].map((c) => c.text).join('\n');
    expect(shown).toContain('one.ts');
    expect(shown).toContain('two.ts');
    expect(e.runtime.turn('T1')).toMatchObject({ state: 'ended', degraded: false });
  });

  it('15: falls back to top-level when every attempt of the thread-log create fails: one top-level message, edited', async () => {
    await startedTurn();
    // Each failed create is sent twice with its client id (an uncertain create is tried once more at once).
    await e.faults([{ op: 'create', status: 500, times: 6 }]);
    e.send(tool('c1', 'one.ts'));
    await e.quiet();
    await e.advance(500);
    await e.advance(1000);
    e.send(tool('c2', 'two.ts'));
    await e.advance(1500);
    e.send(tool('c3', 'three.ts'));
    await e.advance(1500);
    e.send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' });
    await e.advance(2000);
    const creates = e.creates();
    expect(creates.slice(0, 6).map((c) => c.status)).toEqual([500, 500, 500, 500, 500, 500]);
    const later = landed(creates.slice(6));
    expect(later).toHaveLength(1);
    expect(later[0]).toMatchObject({ status: 200, thread: null });
    expect(later[0]?.details).not.toHaveProperty('messageReplyOption');
    const updates = landed(e.updates());
    expect(updates.length).toBeGreaterThanOrEqual(1);
    expect(updates.every((u) => u.messageId === later[0]?.messageId)).toBe(true);
    expect(updates.at(-1)?.text).toMatch(/one\.ts[\s\S]*two\.ts[\s\S]*three\.ts/);
    const turn = e.runtime.turn('T1');
    expect(turn).toMatchObject({ state: 'ended', degraded: true });
    // The error is kept with the turn (GET /v1/turns/:id), as the surface named it.
    expect(turn?.warnings).toEqual([
      expect.stringMatching(/thread post failed: .*spaces\.messages\.create .*HTTP 500/),
    ]);
  });

  it('16: finalizes and re-creates on edit failure (an edit failing twice)', async () => {
    const root = await startedTurn();
    e.send(tool('c1', 'one.ts'));
    await e.quiet();
    const first = e.creates()[0]?.messageId;
    await e.faults([{ op: 'update', status: 503, times: 2 }]);
    e.send(tool('c2', 'two.ts'));
    await e.advance(1500); // the edit fails (after the space's spacing)
    await e.advance(500); // its one retry fails
    expect(e.updates().map((c) => [c.messageId, c.status])).toEqual([
      [first, 503],
      [first, 503],
    ]);
    e.send(tool('c3', 'three.ts'));
    await e.advance(2500); // every write, creates too, waits for the space's spacing (1 s plus the budget margin)
    const creates = landed(e.creates());
    expect(creates).toHaveLength(2);
    expect(creates[1]).toMatchObject({ thread: root.threadId });
    expect(creates[1]?.details?.messageReplyOption).toBe('REPLY_MESSAGE_FALLBACK_TO_NEW_THREAD');
    expect(creates[1]?.text).toMatch(/two\.ts[\s\S]*three\.ts/);
    expect(e.updates()).toHaveLength(2); // no further edit of the finalized message
  });

  it('17: recovers from a 404 on edit by opening a new log message', async () => {
    const root = await startedTurn();
    e.send(tool('c1', 'one.ts'));
    await e.quiet();
    const first = e.creates()[0]!.messageId!;
    await e.personDeletes(first);
    e.send(tool('c2', 'two.ts'));
    await e.advance(2500); // every write, creates too, waits for the space's spacing (1 s plus the budget margin)
    expect(e.updates().map((c) => [c.messageId, c.status])).toEqual([[first, 404]]);
    const creates = landed(e.creates());
    expect(creates).toHaveLength(2);
    expect(creates[1]).toMatchObject({ thread: root.threadId });
    expect(creates[1]?.text).toContain('two.ts');
    expect(creates[1]?.text).not.toContain('one.ts');
  });
});
