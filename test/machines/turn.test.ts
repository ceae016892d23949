/**
 * The turn machine at the actor level, against the memory surface, with a
 * simulated clock. Each test names the reference spec item it proves
 * (docs/test-plan.md).
 */
import { describe, expect, it } from 'vitest';
import { entry, SPACE, settle, startTurn } from './turn.helpers.js';

describe('turn machine: happy path', () => {
  it('spec E2E 1: opens the log in the thread anchored on the user message, at once (no debounce)', async () => {
    const t = startTurn();
    t.actor.send({ type: 'turn.log', entry: entry('tool: Read(src/app.ts)') });
    await settle();
    const creates = t.surface.calls.filter((c) => c.op === 'create');
    expect(creates).toHaveLength(1);
    expect(creates[0]?.thread).toBe(t.root.threadId);
    expect(creates[0]?.text).toContain('tool: Read(src/app.ts)');
    expect(t.state()).toEqual({ opened: 'live' });
    expect(t.actor.getSnapshot().context.current?.messageId).toBe(creates[0]?.messageId);
  });

  it('spec E2E 2: edits the same log message on later entries, after the debounce window', async () => {
    const t = startTurn();
    t.actor.send({ type: 'turn.log', entry: entry('tool: one') });
    await settle();
    t.actor.send({ type: 'turn.log', entry: entry('tool: two') });
    await t.advance(999);
    expect(t.surface.calls.filter((c) => c.op === 'update')).toHaveLength(0);
    await t.advance(1);
    const updates = t.surface.calls.filter((c) => c.op === 'update');
    expect(updates).toHaveLength(1);
    expect(updates[0]?.messageId).toBe(t.actor.getSnapshot().context.current?.messageId);
    expect(updates[0]?.text).toMatch(/tool: one[\s\S]*tool: two/);
  });

  it('spec E2E 3: coalesces a burst inside the window into one edit with every entry in order', async () => {
    const t = startTurn();
    t.actor.send({ type: 'turn.log', entry: entry('tool: first') });
    await settle();
    for (const s of ['a', 'b', 'c']) {
      t.actor.send({ type: 'turn.log', entry: entry(`tool: burst ${s}`) });
      await t.advance(200);
    }
    await t.advance(1000);
    const updates = t.surface.calls.filter((c) => c.op === 'update');
    expect(updates).toHaveLength(1);
    expect(updates[0]?.text).toMatch(/burst a[\s\S]*burst b[\s\S]*burst c/);
  });

  it('never postpones an edit past one window under continuous activity (no starvation)', async () => {
    const t = startTurn();
    t.actor.send({ type: 'turn.log', entry: entry('tool: first') });
    await settle();
    for (let i = 0; i < 10; i++) {
      t.actor.send({ type: 'turn.log', entry: entry(`tool: step ${i}`) });
      await t.advance(300);
    }
    // 3 s of activity every 300 ms: an edit at least every window, never one at the very end only.
    expect(t.surface.calls.filter((c) => c.op === 'update').length).toBeGreaterThanOrEqual(2);
  });

  it('spec E2E 5: flushes the pending entries at once on turn_ended', async () => {
    const t = startTurn();
    t.actor.send({ type: 'turn.log', entry: entry('tool: one') });
    await settle();
    t.actor.send({ type: 'turn.log', entry: entry('tool: two') });
    t.actor.send({ type: 'turn.end', outcome: 'ok' });
    await settle();
    const updates = t.surface.calls.filter((c) => c.op === 'update');
    expect(updates).toHaveLength(1);
    expect(updates[0]?.text).toContain('tool: two');
    expect(t.actor.getSnapshot().status).toBe('done');
    // Nothing is ever sent after the end.
    const before = t.surface.calls.length;
    await t.advance(10_000);
    expect(t.surface.calls.length).toBe(before);
  });

  it('spec E2E 19: a turn that ends with no log entries opens no thread', async () => {
    const t = startTurn();
    t.actor.send({ type: 'turn.end', outcome: 'ok' });
    await settle();
    expect(t.writes()).toHaveLength(0);
    expect(t.actor.getSnapshot().status).toBe('done');
  });
});

describe('turn machine: errors as transitions', () => {
  it('issue 9 item 6: one 503 on the first thread post is retried: one threaded log message, none top-level', async () => {
    const t = startTurn();
    t.surface.fail({ op: 'create', status: 503, times: 1 });
    t.actor.send({ type: 'turn.log', entry: entry('tool: one') });
    await settle();
    expect(t.state()).toEqual({ opened: 'retryingFirstPost' });
    await t.advance(500); // firstPostRetry: the edit retry delay, doubling per failure
    t.actor.send({ type: 'turn.log', entry: entry('tool: two') });
    await t.advance(1000);
    const creates = t.surface.calls.filter((c) => c.op === 'create' && c.status < 300);
    expect(creates).toHaveLength(1);
    expect(creates[0]?.thread).toBe(t.root.threadId);
    expect(t.actor.getSnapshot().context.degradedReason).toBeNull();
    const updates = t.surface.calls.filter((c) => c.op === 'update' && c.status < 300);
    expect(updates.at(-1)?.text).toMatch(/tool: one[\s\S]*tool: two/);
  });

  // Issue 22.6: a retried create reuses its client id (Google Chat's requestId), so a create that landed
  // but whose answer was lost is returned, not made twice; the next message takes the next id.
  it('issue 22.6: a first thread post retried after a 503 keeps its clientId (T1:1 twice, not T1:1 then T1:2)', async () => {
    const t = startTurn();
    t.surface.fail({ op: 'create', status: 503, times: 1 });
    t.actor.send({ type: 'turn.log', entry: entry('tool: one') });
    await settle();
    await t.advance(500); // firstPostRetry
    const creates = t.surface.calls.filter((c) => c.op === 'create');
    expect(creates.map((c) => c.status)).toEqual([503, 200]);
    expect(creates.map((c) => (c.details as { clientId?: string }).clientId)).toEqual(['T1:1', 'T1:1']);
  });

  it('issue 22.6: a rate-limited create is sent again under the same clientId', async () => {
    const t = startTurn();
    t.surface.fail({ op: 'create', status: 429, times: 1, retryAfterS: 2 });
    t.actor.send({ type: 'turn.log', entry: entry('tool: one') });
    await settle();
    await t.advance(2000);
    const creates = t.surface.calls.filter((c) => c.op === 'create');
    expect(creates.map((c) => c.status)).toEqual([429, 200]);
    expect(creates.map((c) => (c.details as { clientId?: string }).clientId)).toEqual(['T1:1', 'T1:1']);
  });

  it('spec E2E 15: a first thread post failing on every attempt (3, backing off) degrades the turn to top-level', async () => {
    const t = startTurn();
    t.surface.fail({ op: 'create', status: 500, times: 3 });
    t.actor.send({ type: 'turn.log', entry: entry('tool: one') });
    await settle();
    await t.advance(500);
    expect(t.state()).toEqual({ opened: 'retryingFirstPost' });
    await t.advance(999); // the second retry waits twice as long
    expect(t.surface.calls.filter((c) => c.op === 'create')).toHaveLength(2);
    await t.advance(1);
    expect(t.state()).toMatchObject({ degraded: expect.anything() });
    t.actor.send({ type: 'turn.log', entry: entry('tool: two') });
    await t.advance(1000);
    const creates = t.surface.calls.filter((c) => c.op === 'create' && c.status < 300);
    expect(creates.length).toBeGreaterThanOrEqual(1);
    expect(creates.every((c) => c.thread === null)).toBe(true);
    const texts = creates.map((c) => c.text).join('\n');
    expect(texts).toContain('tool: one');
    expect(texts).toContain('tool: two');
  });

  it('issue 9 item 6: a degraded turn keeps ONE top-level log message, edited in place as entries arrive', async () => {
    const t = startTurn();
    t.surface.fail({ op: 'create', status: 503, times: 3 });
    t.actor.send({ type: 'turn.log', entry: entry('tool: one') });
    await settle();
    await t.advance(500);
    await t.advance(1000);
    expect(t.state()).toMatchObject({ degraded: expect.anything() });
    for (const s of ['two', 'three', 'four']) {
      t.actor.send({ type: 'turn.log', entry: entry(`tool: ${s}`) });
      await t.advance(1000);
      await t.advance(1000);
    }
    t.actor.send({ type: 'turn.log', entry: entry('tool: five') });
    t.actor.send({ type: 'turn.end', outcome: 'ok' });
    await t.advance(1000);
    expect(t.actor.getSnapshot().status).toBe('done');
    const creates = t.surface.calls.filter((c) => c.op === 'create' && c.status < 300);
    expect(creates).toHaveLength(1);
    expect(creates[0]?.thread).toBeNull();
    const updates = t.surface.calls.filter((c) => c.op === 'update' && c.status < 300);
    expect(updates.length).toBeGreaterThanOrEqual(1);
    expect(updates.every((u) => u.messageId === creates[0]?.messageId)).toBe(true);
    expect(updates.at(-1)?.text).toMatch(/tool: one[\s\S]*tool: three[\s\S]*tool: five/);
  });

  it('spec E2E 17: a 404 on edit opens a new log message with the pending entries', async () => {
    const t = startTurn();
    t.actor.send({ type: 'turn.log', entry: entry('tool: one') });
    await settle();
    const first = t.actor.getSnapshot().context.current!.messageId;
    t.surface.deleteMessage(first);
    t.actor.send({ type: 'turn.log', entry: entry('tool: two') });
    await t.advance(1000);
    const creates = t.surface.calls.filter((c) => c.op === 'create' && c.status < 300);
    expect(creates).toHaveLength(2);
    expect(creates[1]?.thread).toBe(t.root.threadId);
    expect(creates[1]?.text).toContain('tool: two');
    expect(creates[1]?.text).not.toContain('tool: one');
  });

  it('spec E2E 16: an edit failing twice finalizes the message; the next entry opens a fresh one in the same thread', async () => {
    const t = startTurn();
    t.actor.send({ type: 'turn.log', entry: entry('tool: one') });
    await settle();
    t.surface.fail({ op: 'update', status: 503, times: 2 });
    t.actor.send({ type: 'turn.log', entry: entry('tool: two') });
    await t.advance(1000); // first edit fails
    await t.advance(500); // the one retry fails
    expect(t.state()).toBe('idle');
    t.actor.send({ type: 'turn.log', entry: entry('tool: three') });
    await settle();
    const creates = t.surface.calls.filter((c) => c.op === 'create' && c.status < 300);
    expect(creates).toHaveLength(2);
    expect(creates[1]?.thread).toBe(t.root.threadId);
    expect(creates[1]?.text).toMatch(/tool: two[\s\S]*tool: three/);
  });

  it('spec E2E 15 (found by the model): the end arriving while the first thread post fails still posts the log top-level and ends the turn', async () => {
    const t = startTurn();
    t.surface.pause();
    t.actor.send({ type: 'turn.log', entry: entry('tool: one') });
    t.actor.send({ type: 'turn.end', outcome: 'ok' });
    // Every attempt of the first thread post fails (3, then it degrades).
    t.surface.fail({ op: 'create', status: 500, times: 3 });
    t.surface.resume();
    await settle();
    await t.advance(500);
    await t.advance(1000);
    expect(t.actor.getSnapshot().status).toBe('done');
    const creates = t.surface.calls.filter((c) => c.op === 'create' && c.status < 300);
    expect(creates).toHaveLength(1);
    expect(creates[0]?.thread).toBeNull();
    expect(creates[0]?.text).toContain('tool: one');
    expect(t.actor.getSnapshot().context.degradedReason).toMatch(/^thread post failed/);
  });

  it('a 429 on edit waits the Retry-After, then sends the newest frame', async () => {
    const t = startTurn();
    t.actor.send({ type: 'turn.log', entry: entry('tool: one') });
    await settle();
    t.surface.fail({ op: 'update', status: 429, times: 1, retryAfterS: 5 });
    t.actor.send({ type: 'turn.log', entry: entry('tool: two') });
    await t.advance(1000);
    t.actor.send({ type: 'turn.log', entry: entry('tool: three') });
    await t.advance(4999);
    expect(t.surface.calls.filter((c) => c.op === 'update' && c.status < 300)).toHaveLength(0);
    await t.advance(1);
    const ok = t.surface.calls.filter((c) => c.op === 'update' && c.status < 300);
    expect(ok).toHaveLength(1);
    expect(ok[0]?.text).toContain('tool: three');
  });

  it('(found by the model) an end received while a rollover waits out a 429 is kept when the next frame no longer rolls over (hybrid)', async () => {
    const t = startTurn({ settings: { strategy: 'hybrid', maxChars: 100 } });
    t.actor.send({ type: 'turn.log', entry: entry('tool: short one') });
    await settle();
    // A line of exactly 100 chars: beside the dropped marker it cannot fit, so the frame rolls over.
    t.actor.send({ type: 'turn.log', entry: entry(`tool: ${'x'.repeat(82)}`) });
    t.surface.fail({ op: 'update', status: 429, times: 1, retryAfterS: 2 });
    await t.advance(1000);
    expect(t.state()).toEqual({ 'rolling-over': 'finalizeRateLimited' });
    // Now the hybrid drops the earlier entries instead: the next frame fits.
    t.actor.send({ type: 'turn.log', entry: entry('tool: short two') });
    t.actor.send({ type: 'turn.end', outcome: 'ok' });
    await t.advance(2000);
    expect(t.actor.getSnapshot().status).toBe('done');
    const writes = t.writes().filter((c) => c.status < 300);
    expect(writes.at(-1)?.text).toContain('tool: short two');
  });
});

describe('turn machine: the terminal frame retry', () => {
  it('a transiently failed terminal frame is retried after the edit retry delay (settings.editRetryMs), not a fixed one', async () => {
    const t = startTurn({ settings: { editRetryMs: 2000 } });
    t.actor.send({ type: 'turn.log', entry: entry('tool: one') });
    await settle();
    t.actor.send({ type: 'turn.log', entry: entry('tool: two') });
    t.surface.fail({ op: 'update', status: 500, times: 1 });
    t.actor.send({ type: 'turn.end', outcome: 'ok' });
    await settle();
    const updates = () => t.surface.calls.filter((c) => c.op === 'update');
    expect(updates().map((c) => c.status)).toEqual([500]);
    await t.advance(1999);
    expect(updates()).toHaveLength(1);
    expect(t.actor.getSnapshot().status).toBe('active');
    await t.advance(1);
    expect(updates().map((c) => c.status)).toEqual([500, 200]);
    expect(t.actor.getSnapshot().status).toBe('done');
    expect(t.writes().at(-1)?.text).toContain('tool: two');
  });
});

describe('turn machine: rollover', () => {
  it('spec E2E 9: rolls over into a new message in the same thread; the first ends with the continuation marker', async () => {
    const t = startTurn({ settings: { maxChars: 200 } });
    t.actor.send({ type: 'turn.log', entry: entry(`tool: ${'a'.repeat(60)}`) });
    await settle();
    for (let i = 0; i < 4; i++)
      t.actor.send({ type: 'turn.log', entry: entry(`tool: ${String(i).repeat(60)}`) });
    await t.advance(1000);
    const creates = t.surface.calls.filter((c) => c.op === 'create' && c.status < 300);
    expect(creates.length).toBeGreaterThanOrEqual(2);
    expect(creates.every((c) => c.thread === t.root.threadId)).toBe(true);
    const firstId = creates[0]?.messageId;
    const finalOfFirst = t.surface.messages(SPACE).find((m) => m.id === firstId)?.text;
    expect(finalOfFirst).toMatch(/…log continues$/);
    for (const c of t.surface.calls) expect((c.text ?? '').length).toBeLessThanOrEqual(200);
  });
});

describe('turn machine: shutdown flush and proactive turns', () => {
  it('turn.flush sends the pending frame at once, then the turn goes on (not ended)', async () => {
    const t = startTurn();
    t.actor.send({ type: 'turn.log', entry: entry('tool: one') });
    await settle();
    t.actor.send({ type: 'turn.log', entry: entry('tool: two') });
    t.actor.send({ type: 'turn.flush' });
    await settle();
    const updates = t.surface.calls.filter((c) => c.op === 'update');
    expect(updates).toHaveLength(1);
    expect(updates[0]?.text).toContain('tool: two');
    expect(t.actor.getSnapshot().status).toBe('active');
    expect(t.state()).toEqual({ opened: 'live' });
    t.actor.send({ type: 'turn.log', entry: entry('tool: three') });
    await t.advance(1000);
    expect(t.surface.calls.filter((c) => c.op === 'update')).toHaveLength(2);
  });

  it('turn.flush with nothing pending sends nothing', async () => {
    const t = startTurn();
    t.actor.send({ type: 'turn.log', entry: entry('tool: one') });
    await settle();
    t.actor.send({ type: 'turn.flush' });
    await t.advance(5000);
    expect(t.writes()).toHaveLength(1);
  });

  it('a proactive turn posts its 🕒 header top-level, then threads the log under it', async () => {
    const t = startTurn({ input: { anchor: null, header: '🕒 Nightly report' } });
    t.actor.send({ type: 'turn.log', entry: entry('tool: gather') });
    await settle();
    const creates = t.surface.calls.filter((c) => c.op === 'create');
    expect(creates.map((c) => [c.text, c.thread])).toEqual([
      ['🕒 Nightly report', null],
      [expect.stringContaining('tool: gather'), creates[0]?.messageId],
    ]);
    expect(t.actor.getSnapshot().context.degradedReason).toBeNull();
  });

  it('a proactive turn whose header post fails logs top-level instead', async () => {
    const t = startTurn({ input: { anchor: null, header: '🕒 Nightly report' } });
    t.surface.fail({ op: 'create', status: 403, times: 1 });
    t.actor.send({ type: 'turn.log', entry: entry('tool: gather') });
    await settle(); // the header post fails; the entry waits one window, then goes top-level
    await t.advance(1000);
    expect(t.actor.getSnapshot().context.degradedReason).toContain('header post failed');
    const ok = t.surface.calls.filter((c) => c.op === 'create' && c.status < 300);
    expect(ok.map((c) => c.thread)).toEqual([null]);
    expect(ok[0]?.text).toContain('tool: gather');
  });
});

describe('turn machine: shutdown flush and proactive turns, found by the model', () => {
  it('(found by the model) a proactive turn whose header post fails after its end was received ends (it waited top-level for a turn.end already received)', async () => {
    const t = startTurn({ input: { anchor: null, header: '🕒 Nightly report' } });
    t.surface.fail({ op: 'create', status: 500, times: 1 });
    t.actor.send({ type: 'turn.end', outcome: 'ok' }); // while the header post is in flight
    await settle();
    await t.advance(60_000);
    expect(t.actor.getSnapshot().status).toBe('done');
    expect(t.surface.calls.filter((c) => c.op === 'create' && c.status < 300)).toHaveLength(0);
    expect(t.actor.getSnapshot().context.degradedReason).toMatch(/^header post failed/);
  });
  it('(found by the model) after a shutdown flush a top-level log goes on in the same message (no entry posted twice)', async () => {
    const t = startTurn({ input: { anchor: null } });
    t.actor.send({ type: 'turn.log', entry: entry('tool: flushed') });
    t.actor.send({ type: 'turn.flush' });
    await settle();
    t.actor.send({ type: 'turn.log', entry: entry('tool: after the flush') });
    await t.advance(1000);
    const creates = t.surface.calls.filter((c) => c.op === 'create' && c.status < 300);
    expect(creates.map((c) => c.thread)).toEqual([null]);
    expect(creates[0]?.text).toContain('tool: flushed');
    const updates = t.surface.calls.filter((c) => c.op === 'update' && c.status < 300);
    expect(updates.map((u) => u.messageId)).toEqual([creates[0]?.messageId]);
    expect(updates[0]?.text).toMatch(/tool: flushed[\s\S]*tool: after the flush/);
  });
  it('(found by the model) a shutdown flush that failed for good leaves the end its own terminal attempts (its failures were counted against the end)', async () => {
    const t = startTurn({ settings: { terminalAttempts: 1 } });
    t.actor.send({ type: 'turn.log', entry: entry('tool: one') });
    await settle();
    t.actor.send({ type: 'turn.log', entry: entry('tool: two') });
    t.surface.fail({ op: 'update', status: 500, times: 2 });
    t.actor.send({ type: 'turn.flush' });
    await settle();
    await t.advance(500); // the one retry fails too: the flush gives up, the entry stays pending
    expect(t.state()).toEqual({ debouncing: 'waiting' });
    expect(t.actor.getSnapshot().context.deadLetters).toEqual([]);
    t.surface.fail({ op: 'update', status: 500, times: 1 });
    t.actor.send({ type: 'turn.end', outcome: 'ok' });
    await settle();
    await t.advance(500); // the end's terminal frame fails once, and is retried
    expect(t.actor.getSnapshot().status).toBe('done');
    expect(t.actor.getSnapshot().context.deadLetters).toEqual([]);
    expect(t.writes().at(-1)?.text).toContain('tool: two');
  });
});

describe('turn machine: one line per tool call', () => {
  const call = (callId: string, text: string) =>
    entry(text, { callId, status: 'pending', messageRole: 'tool_call' });
  const result = (callId: string, outcome: string) =>
    entry(`Grep — ${outcome}`, { callId, status: 'ok', outcome, messageRole: 'tool_result' });

  it('edits the shown call line into its result: a completion alone is something new to send', async () => {
    const t = startTurn();
    t.actor.send({ type: 'turn.log', entry: call('a', 'Grep("TODO")') });
    await settle();
    expect(t.writes()).toHaveLength(1);
    await t.advance(5000);
    t.actor.send({ type: 'turn.log', entry: result('a', '7 matches') });
    await t.advance(1000);
    const writes = t.writes();
    expect(writes).toHaveLength(2);
    expect(writes[1]?.op).toBe('update');
    // The headline first (`⏳ Agent activity · 6s · …`), then the one log line.
    expect((writes[1]?.text ?? '').split('\n').slice(1)).toEqual(['• 12:00:00  ✓ Grep("TODO") — 7 matches']);
    t.actor.send({ type: 'turn.end', outcome: 'ok' });
    await t.advance(1000);
    expect(t.actor.getSnapshot().status).toBe('done');
    expect(t.actor.getSnapshot().context.deadLetters).toEqual([]);
    expect(t.surface.calls.filter((c) => c.op === 'create')).toHaveLength(1);
  });

  it('shows a completion that arrives while the edit showing its call is in flight', async () => {
    const t = startTurn();
    t.actor.send({ type: 'turn.log', entry: call('a', 'Grep("TODO")') });
    await settle();
    t.actor.send({ type: 'turn.log', entry: call('b', 'Grep("FIXME")') });
    t.surface.pause();
    await t.advance(1000); // the edit showing b pending is sent, and held
    t.actor.send({ type: 'turn.log', entry: result('b', '2 matches') });
    t.surface.resume();
    await settle();
    expect(t.writes().at(-1)?.text).toContain('⋯ Grep("FIXME")');
    await t.advance(1000);
    expect((t.writes().at(-1)?.text ?? '').split('\n').slice(1)).toEqual([
      '• 12:00:00  ⋯ Grep("TODO")',
      '• 12:00:00  ✓ Grep("FIXME") — 2 matches',
    ]);
  });
});
