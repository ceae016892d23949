// spec: issue 11 item 7 — the seed's end-to-end list on Slack: the real runtime on the Slack surface through
// @slack/web-api against the Slack emulator. The card in the person's thread (thread_ts), bursts coalesced
// into edits, rollover to a new card in the same thread, the policy card in the thread, the answer
// top-level, DMs, threads disabled. Issue 11 item 2 · the 👀 ack card within a second of the turn starting.
import { afterEach, describe, expect, it } from 'vitest';
import { landed, type SlackE2E, START_MS, startSlackE2E } from './harness.js';

let e: SlackE2E;
afterEach(async () => {
  await e.stop();
});

const toolCall = (callId: string, tool: string, input: Record<string, unknown>, turnId = 'T1') => ({
  type: 'tool_call',
  turnId,
  callId,
  tool,
  input,
});

async function openedTurn(config?: Parameters<typeof startSlackE2E>[0]) {
  e = await startSlackE2E(config);
  const root = await e.userMessage('u1');
  e.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1' });
  e.send(toolCall('c1', 'Read', { path: 'src/app.ts' }));
  await e.quiet();
  return root;
}

describe('slack E2E: the card in the person’s thread', () => {
  it('posts one card as a reply to the person’s message (thread_ts) and keeps its ts for edits', async () => {
    const root = await openedTurn();
    await e.advance(2500); // the 👀 ack card went out at once; the first line edits it (1 s per channel)
    const creates = landed(e.creates());
    expect(creates).toHaveLength(1);
    expect(creates[0]).toMatchObject({ thread: root.messageId, path: '/api/chat.postMessage' });
    expect(e.messages().find((m) => m.id === creates[0]?.messageId)?.text).toContain('Read(src/app.ts)');
    expect(e.runtime.turn('T1')?.logMessages).toEqual([
      expect.objectContaining({ messageId: creates[0]?.messageId }),
    ]);
  });

  it('acks a turn with a 👀 card in the person’s thread within a second, before any log line', async () => {
    e = await startSlackE2E();
    const root = await e.userMessage('u1');
    e.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1', title: 'Fix the build' });
    await e.advance(1000);
    const creates = landed(e.creates());
    expect(creates).toEqual([
      expect.objectContaining({ thread: root.messageId, path: '/api/chat.postMessage' }),
    ]);
    expect(creates[0]!.at - START_MS).toBeLessThanOrEqual(1000);
    const ack = e.messages().find((m) => m.id === creates[0]?.messageId);
    expect(ack?.text).toMatch(/^👀 \*Fix the build\* · 0s — thinking \(0s\)$/);
    // The first log line edits the same card: the spinner replaces the 👀.
    e.send(toolCall('c1', 'Read', { path: 'src/app.ts' }));
    await e.advance(2500);
    expect(landed(e.creates())).toHaveLength(1);
    const shown = e.messages().find((m) => m.id === creates[0]?.messageId)?.text ?? '';
    expect(shown).toMatch(/^⠙ \*Fix the build\* · \ds — running Read/);
    expect(shown).toContain('Read(src/app.ts)');
  });

  it('coalesces a burst into one chat.update of the same card; only the first post notifies', async () => {
    await openedTurn();
    const card = e.creates()[0]?.messageId;
    e.send(toolCall('c2', 'Grep', { pattern: 'one' }));
    await e.advance(300);
    e.send(toolCall('c3', 'Grep', { pattern: 'two' }));
    await e.advance(300);
    e.send(toolCall('c4', 'Grep', { pattern: 'three' }));
    await e.advance(2500); // every write, creates too, waits for the space's spacing (1 s plus the budget margin)
    const updates = landed(e.updates());
    expect(updates).toHaveLength(1);
    expect(updates[0]).toMatchObject({ messageId: card, path: '/api/chat.update', notifies: false });
    const shown = e.messages().find((m) => m.id === card)?.text ?? '';
    expect(shown).toMatch(/"one"[\s\S]*"two"[\s\S]*"three"/);
    expect(landed(e.creates())).toHaveLength(1);
  });

  it('rolls a log too long for one card over to a new card in the same thread', async () => {
    const root = await openedTurn({
      config: { visibility: { threadLog: { maxLogMessageChars: 300, condenseStrategy: 'rollover' } } },
    });
    for (let i = 0; i < 12; i++) {
      e.send(toolCall(`r${i}`, 'Read', { path: `src/${'x'.repeat(30)}-${i}.ts` }));
      await e.advance(1200);
    }
    e.send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' });
    await e.advance(2000);
    const cards = landed(e.creates());
    expect(cards.length).toBeGreaterThanOrEqual(2);
    for (const card of cards) expect(card.thread).toBe(root.messageId);
    const shown = e
      .messages()
      .filter((m) => m.thread === root.messageId)
      .map((m) => m.text)
      .join('\n');
    for (let i = 0; i < 12; i++) expect(shown).toContain(`-${i}.ts`);
  });

  it('posts the policy card in the turn’s thread, with approve and reject buttons', async () => {
    const root = await openedTurn();
    e.send({ type: 'policy_request', turnId: 'T1', requestId: 'p1', command: 'rm', args: ['-rf', 'build'] });
    await e.advance(1500);
    const card = e.messages().find((m) => m.buttons !== undefined);
    expect(card).toMatchObject({ thread: root.messageId });
    expect(card?.buttons?.map((b) => b.action)).toEqual(['approve', 'reject']);
    expect(card?.text).toContain('rm -rf build');
  });

  it('posts the final answer top-level as its own message; the card ends ✅', async () => {
    const root = await openedTurn();
    e.send({ type: 'answer', turnId: 'T1', text: 'All **done**.' });
    e.send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' });
    await e.advance(4000); // every write, creates too, waits for the space's spacing (1 s plus the budget margin)
    const answer = landed(e.creates()).find((c) => c.messageId !== e.creates()[0]?.messageId);
    expect(answer).toMatchObject({ thread: null, notifies: true });
    expect(e.messages().find((m) => m.id === answer?.messageId)?.text).toBe('All *done*.');
    expect(e.messages().filter((m) => m.thread === root.messageId)).toHaveLength(1);
    expect(e.messages().find((m) => m.thread === root.messageId)?.text).toMatch(/^✅ \*/);
    expect(e.runtime.turn('T1')).toMatchObject({ state: 'ended', degraded: false });
  });

  it('in a DM, no activity log: only the answer, top-level (docs/events.md, routing)', async () => {
    e = await startSlackE2E();
    const dm = 'slack:D0E2EDIRECT';
    await e.userMessage('u1', { space: dm });
    e.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1', dm: true }, dm);
    e.send(toolCall('c1', 'Read', { path: 'a.ts' }), dm);
    e.send({ type: 'answer', turnId: 'T1', text: 'ok' }, dm);
    e.send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' }, dm);
    await e.advance(2000);
    expect(landed(e.creates())).toEqual([expect.objectContaining({ space: 'D0E2EDIRECT', thread: null })]);
    expect(e.messages('D0E2EDIRECT').map((m) => m.text)).toEqual(['user message u1', 'ok']);
    expect(e.runtime.turn('T1')).toMatchObject({ state: 'ended', degraded: false });
  });

  it('with threads disabled for the channel, the card goes top-level', async () => {
    e = await startSlackE2E({ config: { spaces: { 'slack:C0E2ESLACK': { threadsDisabled: true } } } });
    await e.userMessage('u1');
    e.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1' });
    e.send(toolCall('c1', 'Read', { path: 'a.ts' }));
    e.send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' });
    await e.advance(2000);
    const creates = landed(e.creates());
    expect(creates.length).toBeGreaterThanOrEqual(1);
    for (const create of creates) expect(create.thread).toBeNull();
    expect(e.messages().find((m) => m.id === creates.at(-1)?.messageId)?.text).toContain('Read(a.ts)');
  });
});
