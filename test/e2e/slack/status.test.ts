// spec: issue 11 item 3 — Slack's assistant status through the runtime: the tool in flight is shown under the
// person's message while the turn runs (assistant.threads.setStatus), each call booked with the budget, and
// cleared at the end; a workspace without it is asked once.
import { afterEach, describe, expect, it } from 'vitest';
import { CHANNEL, type SlackE2E, startSlackE2E } from './harness.js';

let e: SlackE2E;
afterEach(async () => {
  await e.stop();
});

const statuses = () =>
  e
    .calls()
    .filter((c) => c.path === '/api/assistant.threads.setStatus')
    .map((c) => c.details?.status ?? c.text);

describe('slack E2E: assistant status', () => {
  it('shows the tool in flight in the person’s thread, and clears it at the end', async () => {
    e = await startSlackE2E();
    const root = await e.userMessage('u1');
    e.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1' });
    e.send({ type: 'tool_call', turnId: 'T1', callId: 'c1', tool: 'Bash', input: { command: 'npm test' } });
    await e.advance(2500); // the 👀 ack card, then the tool's frame as its edit (1 s per channel)
    const set = e.calls().filter((c) => c.path === '/api/assistant.threads.setStatus');
    expect(set.length).toBeGreaterThanOrEqual(1);
    expect(set[0]).toMatchObject({ space: CHANNEL, thread: root.messageId });
    expect(JSON.stringify(set[0])).toContain('npm test');
    e.send({ type: 'tool_result', turnId: 'T1', callId: 'c1', tool: 'Bash', ok: true, output: 'ok' });
    e.send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' });
    await e.advance(3000);
    const all = e.calls().filter((c) => c.path === '/api/assistant.threads.setStatus');
    expect(all.map((c) => c.details?.status)).toEqual(['running Bash(npm test)', '']);
    expect(all[1]).toMatchObject({ thread: root.messageId });
  });

  it('a quiet turn (one long tool) re-sends its status before Slack’s 2-minute expiry, and clears it at the end', async () => {
    e = await startSlackE2E();
    await e.userMessage('u1');
    e.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1' });
    e.send({ type: 'tool_call', turnId: 'T1', callId: 'c1', tool: 'Bash', input: { command: 'npm test' } });
    await e.advance(2500); // the 👀 ack card, then the tool's frame as its edit (1 s per channel)
    const edits = e.updates().length;
    // Five quiet minutes: no event, no frame.
    await e.advance(300_000);
    const set = e.calls().filter((c) => c.path === '/api/assistant.threads.setStatus');
    expect(set.length).toBeGreaterThanOrEqual(4);
    expect(set.every((c) => c.details?.status === 'running Bash(npm test)')).toBe(true);
    // Each refresh came while the thread still showed the status: it never expired.
    expect(set.slice(1).map((c) => c.details?.previous)).toEqual(
      set.slice(1).map(() => 'running Bash(npm test)'),
    );
    const gaps = set.slice(1).map((c, i) => c.at - set[i]!.at);
    expect(Math.max(...gaps)).toBeLessThan(120_000);
    // Refreshing the status is not an edit of the card.
    expect(e.updates()).toHaveLength(edits);
    e.send({ type: 'tool_result', turnId: 'T1', callId: 'c1', tool: 'Bash', ok: true, output: 'ok' });
    e.send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' });
    await e.advance(3000);
    expect(statuses().at(-1)).toBe('');
    const after = statuses().length;
    await e.advance(200_000);
    expect(statuses()).toHaveLength(after);
  });

  it('a workspace without the agent UI is asked once, and the turn is unaffected', async () => {
    e = await startSlackE2E({ emulator: { assistantStatus: 'missing_scope' } });
    await e.userMessage('u1');
    e.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1' });
    for (let i = 0; i < 4; i++) {
      e.send({ type: 'tool_call', turnId: 'T1', callId: `c${i}`, tool: 'Read', input: { path: `f${i}.ts` } });
      await e.advance(1500);
    }
    e.send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' });
    await e.advance(3000);
    expect(statuses()).toHaveLength(1);
    expect(e.runtime.turn('T1')).toMatchObject({ state: 'ended', degraded: false });
  });
});
