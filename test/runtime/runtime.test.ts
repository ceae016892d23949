/**
 * createRuntime end to end on the memory surface (simulated clock): ingest →
 * space supervisor → turn actor → budget → surface. Tests name the
 * docs/test-plan.md E2E item they prove.
 */
import { describe, expect, it } from 'vitest';
import { createMemoryStore } from '../../src/store/memory.js';
import { SPACE, settle, startRuntime } from './runtime.helpers.js';

describe('runtime: one turn', () => {
  it('spec E2E 1–5: threads the log under the user message, edits it, and posts the answer top-level', async () => {
    const h = await startRuntime();
    const root = h.userMessage('u1');
    h.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1' });
    h.send({ type: 'tool_call', turnId: 'T1', callId: 'c1', tool: 'Read', input: { path: 'src/app.ts' } });
    await settle();
    h.send({
      type: 'tool_result',
      turnId: 'T1',
      callId: 'c1',
      tool: 'Read',
      ok: true,
      output: 'export const x = 1;',
    });
    h.send({ type: 'tool_call', turnId: 'T1', callId: 'c2', tool: 'Grep', input: { pattern: 'TODO' } });
    await h.advance(1000);
    h.send({ type: 'answer', turnId: 'T1', text: 'All done.' });
    h.send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' });
    // The terminal frame waits for its channel slot (1 s spacing, widened by the budget's 10 % margin).
    await h.advance(3000);

    const creates = h.surface.calls.filter((c) => c.op === 'create' && c.status < 300);
    const log = creates.filter((c) => c.thread === root.threadId);
    expect(log).toHaveLength(1);
    const answer = creates.filter((c) => c.thread === null);
    expect(answer.map((c) => c.text)).toEqual(['All done.']);
    const logMessage = h.surface.messages(SPACE).find((m) => m.id === log[0]?.messageId);
    expect(logMessage?.text).toMatch(/Read\(src\/app\.ts\)[\s\S]*Grep\("TODO"\)/);
    expect(h.surface.calls.filter((c) => c.notifies).length).toBe(2); // the log message + the answer
    expect(h.runtime.turn('T1')).toMatchObject({
      state: 'ended',
      outcome: 'ok',
      entries: 3,
      degraded: false,
    });
    await h.runtime.stop();
  });

  it('refuses an event after turn_ended with a clear error and keeps it as a dead letter', async () => {
    const h = await startRuntime();
    h.userMessage('u1');
    h.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1' });
    h.send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' });
    const result = h.runtime.ingest({ space: SPACE, type: 'note', turnId: 'T1', text: 'late' });
    expect(result).toMatchObject({ ok: false, error: expect.stringContaining('T1') });
    const dead = await h.store.deadLetters();
    expect(dead.at(-1)?.reason).toBe(result.ok ? '' : result.error);
    await h.runtime.stop();
  });

  it('spec E2E 18: a new turn in the same space opens its own thread and log message', async () => {
    const h = await startRuntime();
    const r1 = h.userMessage('u1');
    h.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1' });
    h.send({ type: 'tool_call', turnId: 'T1', callId: 'c1', tool: 'Read' });
    h.send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' });
    await h.advance(100);
    const r2 = h.userMessage('u2');
    h.send({ type: 'turn_started', turnId: 'T2', rootRef: 'u2' });
    h.send({ type: 'tool_call', turnId: 'T2', callId: 'c1', tool: 'Write' });
    await h.advance(3000); // every create waits for the space's spacing (1 s plus the budget margin)
    const creates = h.surface.calls.filter((c) => c.op === 'create' && c.status < 300);
    expect(creates.map((c) => c.thread)).toEqual([r1.threadId, r2.threadId]);
    await h.runtime.stop();
  });
});

describe('runtime: offline trace', () => {
  it('TURNLOG_INSPECT-style trace records every actor of a turn (runtime, space, turn, budget)', async () => {
    const { mkdtempSync, readFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { createTraceInspector } = await import('../../src/viz/inspect.js');
    const path = join(mkdtempSync(join(tmpdir(), 'turnlog-trace-')), 'trace.jsonl');
    const trace = createTraceInspector(path);
    const h = await startRuntime({ inspect: trace.inspect });
    h.userMessage('u1');
    h.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1' });
    h.send({ type: 'tool_call', turnId: 'T1', callId: 'c1', tool: 'Read' });
    h.send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' });
    await h.advance(2000);
    await h.runtime.stop();
    trace.close();
    const lines = readFileSync(path, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id?: string; type: string });
    const ids = new Set(lines.map((l) => l.id));
    // The space's first turn runs in its slot 0.
    for (const id of ['space:gchat:spaces/AAAA', 'turn:0', 'budget:gchat'])
      expect(ids.has(id), id).toBe(true);
    expect(lines.some((l) => l.type === '@xstate.snapshot' && l.id === 'turn:0')).toBe(true);
  });
});

describe('runtime: an answer the platform refuses', () => {
  it('is kept as a dead letter in the store, with the reason, and logged as a warning', async () => {
    const store = createMemoryStore();
    const h = await startRuntime({ store });
    const root = h.userMessage('u1');
    h.send({ type: 'turn_started', turnId: 'T1', root });
    h.send({ type: 'tool_call', turnId: 'T1', callId: 'c1', tool: 'Read', input: { path: 'a.ts' } });
    await h.advance(2000);
    h.surface.fail({ op: 'create', status: 400, times: 1 });
    h.send({ type: 'answer', turnId: 'T1', text: 'the answer nobody saw' });
    h.send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' });
    await h.advance(5000);
    expect(await store.deadLetters()).toEqual([
      expect.objectContaining({
        source: 'delivery',
        reason: expect.stringMatching(/^answer: /),
        payload: 'the answer nobody saw',
      }),
    ]);
    expect(h.warnings.some((w) => w.includes('answer not delivered'))).toBe(true);
  });
});
