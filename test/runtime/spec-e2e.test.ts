/**
 * The reference spec's E2E plan (docs/test-plan.md "E2E test
 * plan") at the actor level: the real runtime (ingest → space → turn →
 * budget) on the memory surface, simulated clock. Each test is named by the
 * spec's number and title.
 */
import { describe, expect, it } from 'vitest';
import { type Harness, SPACE, settle, startRuntime } from './runtime.helpers.js';

const ok = <T extends { status: number }>(calls: T[]): T[] => calls.filter((c) => c.status < 300);

describe('spec E2E: routing & filters', () => {
  it('6: drops the user input echo regardless of filters', async () => {
    const h = await startRuntime();
    h.userMessage('u1');
    h.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1' });
    h.send({ type: 'input', turnId: 'T1', text: 'please fix the build' });
    await h.advance(2000);
    expect(h.surface.calls.filter((c) => c.op === 'create' || c.op === 'update')).toHaveLength(0);
    await h.runtime.stop();
  });

  it('7: routes a policy request into the turn thread with its card', async () => {
    const h = await startRuntime();
    const root = h.userMessage('u1');
    h.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1' });
    h.send({ type: 'tool_call', turnId: 'T1', callId: 'c1', tool: 'Bash', input: { command: 'ls' } });
    h.send({
      type: 'policy_request',
      turnId: 'T1',
      requestId: 'p1',
      command: 'rm',
      args: ['-rf', '/tmp/cache'],
    });
    await h.advance(2000); // every write waits for the space's spacing (1 s plus the budget margin)
    const creates = ok(h.surface.calls.filter((c) => c.op === 'create'));
    expect(creates).toHaveLength(2);
    const card = creates.find((c) => c.text?.includes('rm -rf /tmp/cache'));
    expect(card?.thread).toBe(root.threadId);
    expect(card?.notifies).toBe(true);
    await h.runtime.stop();
  });

  it('8: honours filters (verbose off hides subagent status updates)', async () => {
    const h = await startRuntime({ config: { visibility: { filters: { verbose: false } } } });
    h.userMessage('u1');
    h.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1' });
    h.send({ type: 'subagent', turnId: 'T1', subagentId: 's1', status: 'started', name: 'Explore' });
    await h.advance(2000);
    expect(h.surface.calls.filter((c) => c.op === 'create' || c.op === 'update')).toHaveLength(0);
    await h.runtime.stop();
  });
});

describe('spec E2E: roll-over & length', () => {
  let sent = 0;
  /** `n` tool calls with distinct, numbered paths (numbering runs on across bursts of a test). */
  const burst = (h: Awaited<ReturnType<typeof startRuntime>>, n: number) => {
    for (const end = sent + n; sent < end; sent++) {
      h.send({
        type: 'tool_call',
        turnId: 'T1',
        callId: `c${sent}`,
        tool: 'Read',
        input: { path: `src/${'x'.repeat(40)}-${sent}.ts` },
      });
    }
  };

  it('9: rolls over to a new log message in the same thread under the rollover strategy', async () => {
    sent = 0;
    const h = await startRuntime({
      // 290: the headline's room (~90) comes out of it, leaving the log lines the spec's 200.
      config: { visibility: { threadLog: { maxLogMessageChars: 290, condenseStrategy: 'rollover' } } },
    });
    const root = h.userMessage('u1');
    h.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1' });
    burst(h, 1);
    await settle();
    burst(h, 6);
    h.send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' });
    await h.advance(5000);
    const creates = ok(h.surface.calls.filter((c) => c.op === 'create'));
    expect(creates.length).toBeGreaterThanOrEqual(2);
    expect(creates.every((c) => c.thread === root.threadId)).toBe(true);
    const messages = h.surface
      .messages(SPACE)
      .filter((m) => m.thread === root.threadId && m.id !== root.messageId);
    expect(messages[0]?.text.endsWith('…log continues')).toBe(true);
    const all = messages.map((m) => m.text).join('\n');
    for (let i = 0; i < 7; i++) expect(all).toContain(`-${i}.ts`);
    for (const m of messages) expect(m.text.length).toBeLessThanOrEqual(290);
    await h.runtime.stop();
  });

  it('10: drop-earliest keeps one message and drops old entries', async () => {
    const h = await startRuntime({
      config: { visibility: { threadLog: { maxLogMessageChars: 200, condenseStrategy: 'drop-earliest' } } },
    });
    h.userMessage('u1');
    h.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1' });
    burst(h, 1);
    await settle();
    for (let round = 0; round < 4; round++) {
      burst(h, 3);
      await h.advance(1000);
    }
    h.send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' });
    // The terminal frame (its headline says done) waits its turn in the space's pacing.
    await h.advance(2000);
    expect(ok(h.surface.calls.filter((c) => c.op === 'create'))).toHaveLength(1);
    const updates = ok(h.surface.calls.filter((c) => c.op === 'update'));
    expect(updates.length).toBeGreaterThanOrEqual(2);
    // Under the headline, the first line says how many entries were dropped.
    expect(updates.at(-1)?.text).toMatch(/^✅ Agent activity · \d+s\n• …\d+ earlier entries dropped/);
    await h.runtime.stop();
  });

  it('11: aggressive-truncate keeps every entry with shortened summaries', async () => {
    // Three 300-char summaries overflow 400 chars as formatted and fit once cut to 100 each (with their line
    // prefixes); 500 leaves those 400 after the headline's room (~90).
    const h = await startRuntime({
      config: {
        visibility: { threadLog: { maxLogMessageChars: 500, condenseStrategy: 'aggressive-truncate' } },
      },
    });
    h.userMessage('u1');
    h.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1' });
    for (let i = 0; i < 3; i++) {
      h.send({
        type: 'tool_result',
        turnId: 'T1',
        callId: `c${i}`,
        tool: 'Bash',
        // A failure always says why (a success's long summary is not previewed at all).
        ok: false,
        summary: `${i}${'y'.repeat(300)}`,
      });
    }
    h.send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' });
    await h.advance(5000);
    expect(ok(h.surface.calls.filter((c) => c.op === 'create'))).toHaveLength(1);
    expect(h.runtime.turn('T1')?.state).toBe('ended');
    const last = ok(h.surface.calls.filter((c) => c.op === 'create' || c.op === 'update')).at(-1)?.text ?? '';
    expect(last.length).toBeLessThanOrEqual(500);
    expect(last.split('\n')).toHaveLength(4); // the headline and three lines
    expect(last.split('\n')[0]).toMatch(/^✅ Agent activity · \d+s$/);
    expect(last).toContain('…[truncated]');
    await h.runtime.stop();
  });
});

describe('spec E2E: config & DM', () => {
  it('12: falls back to top-level when threadsDisabled is set on the space', async () => {
    const h = await startRuntime({ config: { spaces: { [SPACE]: { threadsDisabled: true } } } });
    h.userMessage('u1');
    h.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1' });
    h.send({ type: 'tool_call', turnId: 'T1', callId: 'c1', tool: 'Read', input: { path: 'a.ts' } });
    await h.advance(100);
    const creates = ok(h.surface.calls.filter((c) => c.op === 'create'));
    expect(creates).toHaveLength(1);
    expect(creates[0]?.thread).toBeNull();
    await h.runtime.stop();
  });

  it('13: falls back to top-level when visibility.threads is false globally', async () => {
    const h = await startRuntime({ config: { visibility: { threads: false } } });
    h.userMessage('u1');
    h.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1' });
    h.send({ type: 'tool_call', turnId: 'T1', callId: 'c1', tool: 'Read', input: { path: 'a.ts' } });
    await h.advance(100);
    const creates = ok(h.surface.calls.filter((c) => c.op === 'create'));
    expect(creates.map((c) => c.thread)).toEqual([null]);
    await h.runtime.stop();
  });

  it('14: DM spaces never open a thread: the log is dropped, the answer goes top-level', async () => {
    const h = await startRuntime({ config: { spaces: { [SPACE]: { dm: true } } } });
    h.userMessage('u1');
    h.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1', dm: true });
    h.send({ type: 'tool_call', turnId: 'T1', callId: 'c1', tool: 'Read' });
    h.send({ type: 'answer', turnId: 'T1', text: 'done' });
    h.send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' });
    await h.advance(2000);
    const creates = ok(h.surface.calls.filter((c) => c.op === 'create' || c.op === 'update'));
    expect(creates.map((c) => [c.text, c.thread])).toEqual([['done', null]]);
    await h.runtime.stop();
  });
});

describe('spec E2E: subagents', () => {
  it('20: groups parent and subagent activity into one thread and one log message', async () => {
    const h = await startRuntime();
    const root = h.userMessage('u1');
    h.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1' });
    h.send({ type: 'tool_call', turnId: 'T1', callId: 'c1', tool: 'Read', input: { path: 'parent.ts' } });
    await settle();
    h.send({ type: 'subagent', turnId: 'T1', subagentId: 's1', status: 'started', name: 'Explore' });
    h.send({
      type: 'tool_call',
      turnId: 'T1',
      subagentId: 's1',
      callId: 'c2',
      tool: 'Grep',
      input: { pattern: 'child' },
    });
    h.send({ type: 'subagent', turnId: 'T1', subagentId: 's1', status: 'done', name: 'Explore' });
    h.send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' });
    await h.advance(2000); // every write waits for the space's spacing (1 s plus the budget margin)
    const creates = ok(h.surface.calls.filter((c) => c.op === 'create'));
    expect(creates).toHaveLength(1);
    expect(creates[0]?.thread).toBe(root.threadId);
    const text = h.surface.messages(SPACE).find((m) => m.id === creates[0]?.messageId)?.text ?? '';
    expect(text).toMatch(/parent\.ts[\s\S]*Explore started[\s\S]*child[\s\S]*Explore done/);
    await h.runtime.stop();
  });

  it('21: keeps a 2-level subagent tree in the same thread and log message', async () => {
    const h = await startRuntime();
    h.userMessage('u1');
    h.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1' });
    h.send({ type: 'subagent', turnId: 'T1', subagentId: 's1', status: 'started', name: 'Plan' });
    await settle();
    h.send({
      type: 'subagent',
      turnId: 'T1',
      subagentId: 's2',
      parentSubagentId: 's1',
      status: 'started',
      name: 'Search',
    });
    h.send({
      type: 'tool_call',
      turnId: 'T1',
      subagentId: 's2',
      parentSubagentId: 's1',
      callId: 'g',
      tool: 'Grep',
    });
    h.send({
      type: 'subagent',
      turnId: 'T1',
      subagentId: 's2',
      parentSubagentId: 's1',
      status: 'done',
      name: 'Search',
    });
    h.send({ type: 'subagent', turnId: 'T1', subagentId: 's1', status: 'done', name: 'Plan' });
    h.send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' });
    await h.advance(2000); // every write waits for the space's spacing (1 s plus the budget margin)
    const creates = ok(h.surface.calls.filter((c) => c.op === 'create'));
    expect(creates).toHaveLength(1);
    const text = h.surface.messages(SPACE).find((m) => m.id === creates[0]?.messageId)?.text ?? '';
    const [headline, ...lines] = text.split('\n');
    expect(headline).toBe('✅ Agent activity · 1s');
    expect(lines).toHaveLength(5);
    await h.runtime.stop();
  });

  it('22: activity from a subagent without a turnId goes top-level with a warning, never a second thread', async () => {
    const h = await startRuntime();
    const root = h.userMessage('u1');
    h.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1' });
    h.send({ type: 'tool_call', turnId: 'T1', callId: 'c1', tool: 'Read' });
    await settle();
    h.send({ type: 'tool_call', subagentId: 's9', callId: 'c2', tool: 'Orphan' });
    await h.advance(2000); // every write waits for the space's spacing (1 s plus the budget margin)
    const creates = ok(h.surface.calls.filter((c) => c.op === 'create'));
    expect(creates.map((c) => c.thread)).toEqual([root.threadId, null]);
    expect(creates[1]?.text).toContain('Orphan');
    expect(h.warnings.some((w) => w.includes('has no turnId'))).toBe(true);
    await h.runtime.stop();
  });
});

describe('runtime: anchors, unknown turns, many turns', () => {
  it('an event for an unknown turn goes top-level with a warning', async () => {
    const h = await startRuntime();
    h.send({ type: 'tool_call', turnId: 'NOPE', callId: 'c1', tool: 'Read' });
    await h.advance(100);
    const creates = ok(h.surface.calls.filter((c) => c.op === 'create'));
    expect(creates.map((c) => c.thread)).toEqual([null]);
    expect(h.warnings.some((w) => w.includes('unknown turn NOPE'))).toBe(true);
    await h.runtime.stop();
  });

  it('a turn whose user wrote inside an existing thread reuses that thread', async () => {
    const h = await startRuntime();
    const first = h.surface.inbound({ space: SPACE, text: 'earlier discussion' });
    const reply = h.userMessage('u2', { threadId: first.threadId });
    h.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u2' });
    h.send({ type: 'tool_call', turnId: 'T1', callId: 'c1', tool: 'Read' });
    await h.advance(100);
    const creates = ok(h.surface.calls.filter((c) => c.op === 'create'));
    expect(reply.threadId).toBe(first.threadId);
    expect(creates[0]?.thread).toBe(first.threadId);
    await h.runtime.stop();
  });

  it('a turn whose anchor is not among the recent inbound messages logs under a top-level header, with a warning', async () => {
    const h = await startRuntime();
    h.send({ type: 'turn_started', turnId: 'T1', rootRef: 'never-seen' });
    h.send({ type: 'tool_call', turnId: 'T1', callId: 'c1', tool: 'Read' });
    h.send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' });
    await h.advance(2000);
    const creates = ok(h.surface.calls.filter((c) => c.op === 'create'));
    expect(creates.map((c) => c.thread)).toEqual([null, creates[0]?.messageId]);
    expect(creates[0]?.text).toBe('🧵 Agent activity (turn T1)');
    expect(creates[1]?.text).toContain('Read');
    expect(h.warnings.some((w) => w.includes('never-seen'))).toBe(true);
    expect(h.runtime.turn('T1')?.warnings?.some((w) => w.includes('never-seen'))).toBe(true);
    await h.runtime.stop();
  });

  it('ten concurrent turns in one space: no 429 reaches a user and every final frame lands', async () => {
    const h = await startRuntime();
    const roots = Array.from({ length: 10 }, (_, i) => h.userMessage(`u${i}`));
    for (let i = 0; i < 10; i++) h.send({ type: 'turn_started', turnId: `T${i}`, rootRef: `u${i}` });
    for (let step = 0; step < 20; step++) {
      for (let i = 0; i < 10; i++) {
        h.send({
          type: 'tool_call',
          turnId: `T${i}`,
          callId: `c${step}`,
          tool: 'Read',
          input: { path: `f${step}.ts` },
        });
      }
      await h.advance(250);
    }
    for (let i = 0; i < 10; i++) h.send({ type: 'turn_ended', turnId: `T${i}`, outcome: 'ok' });
    await h.advance(60_000);
    expect(h.surface.calls.filter((c) => c.status === 429)).toHaveLength(0);
    for (let i = 0; i < 10; i++) {
      const messages = h.surface
        .messages(SPACE)
        .filter((m) => m.thread === roots[i]?.threadId && m.id !== roots[i]?.messageId);
      expect(messages).toHaveLength(1);
      expect(messages[0]?.text).toContain('f19.ts');
      expect(h.runtime.turn(`T${i}`)?.state).toBe('ended');
    }
    await h.runtime.stop();
  });
});

/** A proactive turn: a title and no root, one tool call, its end. */
function runNightlyAudit(h: Harness): void {
  h.send({ type: 'turn_started', turnId: 'CRON', title: 'Nightly dependency audit' });
  h.send({ type: 'tool_call', turnId: 'CRON', callId: 'c1', tool: 'Bash', input: { command: 'npm audit' } });
  h.send({ type: 'turn_ended', turnId: 'CRON', outcome: 'ok' });
}

describe('proactive turns (the spec’s deferred cron item)', () => {
  it('a turn with a title and no root posts a 🕒 header top-level and threads its log under it', async () => {
    const h = await startRuntime();
    runNightlyAudit(h);
    await h.advance(2000);
    const creates = ok(h.surface.calls.filter((c) => c.op === 'create'));
    expect(creates.map((c) => c.text)).toEqual([
      '🕒 Nightly dependency audit',
      expect.stringContaining('npm audit'),
    ]);
    expect(creates[0]?.thread).toBeNull();
    expect(creates[1]?.thread).toBe(creates[0]?.messageId);
    expect(h.warnings).toEqual([]);
    await h.runtime.stop();
  });

  it('with visibility.jobs top-level, its log goes top-level and no header is posted', async () => {
    const h = await startRuntime({ config: { visibility: { jobs: 'top-level' } } });
    runNightlyAudit(h);
    await h.advance(2000);
    const creates = ok(h.surface.calls.filter((c) => c.op === 'create'));
    expect(creates.map((c) => [c.thread, c.text?.includes('npm audit')])).toEqual([[null, true]]);
    await h.runtime.stop();
  });
});
