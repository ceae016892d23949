// spec: issue 11 items 5 and 7 — Slack's failures through the real runtime: a deleted card (message_not_found →
// a new card in the same thread), 429 (Retry-After waited, the final frame lands), a restart mid-turn on
// SQLite (the same card is edited after it), channel_not_found / not_in_channel / is_archived → degraded with
// the reason in the turn's warnings; hostile text and secrets never reach Slack as mentions or secrets (every
// field, the question card and a tool's name included); 16
// concurrent turns in 4 channels see no 429.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSqliteStore } from '../../../src/store/sqlite.js';
import { CHANNEL, landed, type SlackE2E, startSlackE2E } from './harness.js';

let e: SlackE2E | undefined;
const cleanups: (() => void)[] = [];
afterEach(async () => {
  await e?.stop();
  e = undefined;
  for (const cleanup of cleanups.splice(0)) cleanup();
});

const tool = (callId: string, path: string, turnId = 'T1') => ({
  type: 'tool_call',
  turnId,
  callId,
  tool: 'Read',
  input: { path },
});

async function startedTurn(opts?: Parameters<typeof startSlackE2E>[0]) {
  e = await startSlackE2E(opts);
  const root = await e.userMessage('u1');
  e.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1' });
  e.send(tool('c1', 'one.ts'));
  await e.quiet();
  return root;
}

describe('slack E2E: errors', () => {
  it('a card a person deleted (message_not_found) is replaced by a new card in the same thread', async () => {
    const root = await startedTurn();
    const first = landed(e!.creates())[0]!.messageId!;
    await e!.personDeletes(first);
    e!.send(tool('c2', 'two.ts'));
    await e!.advance(1500);
    e!.send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' });
    await e!.advance(1500);
    expect(
      e!
        .updates()
        .filter((c) => c.messageId === first)
        .map((c) => c.details?.error),
    ).toEqual(['message_not_found']);
    const cards = landed(e!.creates());
    expect(cards).toHaveLength(2);
    expect(cards[1]).toMatchObject({ thread: root.messageId });
    expect(e!.messages().find((m) => m.id === cards[1]?.messageId)?.text).toContain('two.ts');
  });

  it('429 on chat.update: Retry-After is waited out and the final frame lands', async () => {
    await startedTurn();
    await e!.faults([{ op: 'update', status: 429, retryAfterS: 5, times: 1 }]);
    e!.send(tool('c2', 'two.ts'));
    await e!.advance(1500);
    e!.send(tool('c3', 'three.ts'));
    e!.send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' });
    await e!.advance(1000);
    const refused = e!.updates().filter((c) => c.status === 429);
    expect(refused).toHaveLength(1);
    expect(landed(e!.updates()).filter((c) => c.at < refused[0]!.at + 5000)).toEqual([]);
    await e!.advance(10_000);
    const card = e!.messages().find((m) => m.id === landed(e!.creates())[0]?.messageId);
    expect(card?.text).toMatch(/one\.ts[\s\S]*two\.ts[\s\S]*three\.ts/);
    expect(e!.runtime.turn('T1')).toMatchObject({ state: 'ended', degraded: false });
  });

  it('a restart mid-turn on SQLite keeps editing the same card', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'turnlog-slack-e2e-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const store = createSqliteStore({ path: join(dir, 'turnlog.db') });
    cleanups.push(() => void store.close());
    await startedTurn({ store });
    const card = landed(e!.creates())[0]!.messageId;
    e!.send(tool('c2', 'two.ts'));
    await e!.stopRuntime();
    await e!.restart();
    e!.send(tool('c3', 'three.ts'));
    e!.send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' });
    await e!.advance(3000);
    expect(landed(e!.creates())).toHaveLength(1);
    expect(new Set(landed(e!.updates()).map((c) => c.messageId))).toEqual(new Set([card]));
    expect(e!.messages().find((m) => m.id === card)?.text).toMatch(/one\.ts[\s\S]*two\.ts[\s\S]*three\.ts/);
  });

  it.each([
    ['channel_not_found', { faults: [{ op: 'create' as const, status: 404 }] }],
    ['not_in_channel', { emulator: { notMember: [CHANNEL] } }],
    ['is_archived', { emulator: { archived: [CHANNEL] } }],
  ])('%s → the turn is degraded with the reason in its warnings', async (code, setup) => {
    e = await startSlackE2E('emulator' in setup ? { emulator: setup.emulator } : {});
    if ('faults' in setup) await e.faults(setup.faults);
    await e.userMessage('u1');
    e.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1' });
    e.send(tool('c1', 'one.ts'));
    e.send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' });
    // At once: the app cannot write there, so nothing is retried (no Retry-After, no backoff to wait out).
    await e.advance(2000);
    const turn = e.runtime.turn('T1');
    expect(turn).toMatchObject({ state: 'ended', degraded: true });
    expect((turn?.warnings ?? []).join('\n')).toContain(`Slack answered ${code}`);
    // The thread post, then the one top-level try: never the terminal frame's ten retries.
    expect(e.creates().length).toBeLessThanOrEqual(2);
    await e.advance(60_000);
    expect(e.creates().length).toBeLessThanOrEqual(2);
  });
});

describe('slack E2E: terminal states ⛔ and ⚠️', () => {
  it('a turn that fails after its policy request was rejected ends ⛔ blocked', async () => {
    await startedTurn();
    e!.send({ type: 'policy_request', turnId: 'T1', requestId: 'p1', command: 'rm', args: ['-rf', 'build'] });
    e!.send({ type: 'policy_decision', turnId: 'T1', requestId: 'p1', decision: 'rejected', command: 'rm' });
    await e!.advance(1500);
    e!.send({ type: 'turn_ended', turnId: 'T1', outcome: 'error' });
    await e!.advance(1500);
    const card = e!.messages().find((m) => m.id === landed(e!.creates())[0]?.messageId);
    expect(card?.text).toMatch(/^⛔ \*/);
  });

  it('the same failure without a rejection ends ❌; an approval does not block', async () => {
    await startedTurn();
    e!.send({ type: 'policy_decision', turnId: 'T1', requestId: 'p1', decision: 'rejected', command: 'rm' });
    e!.send({ type: 'policy_decision', turnId: 'T1', requestId: 'p2', decision: 'approved', command: 'ls' });
    e!.send({ type: 'turn_ended', turnId: 'T1', outcome: 'error' });
    await e!.advance(1500);
    const card = e!.messages().find((m) => m.id === landed(e!.creates())[0]?.messageId);
    expect(card?.text).toMatch(/^❌ \*/);
  });

  it('a turn whose log lost its thread (the thread post failing) ends ⚠️ degraded, not ✅', async () => {
    e = await startSlackE2E();
    // Each failed post is sent twice with its client id (an uncertain create is tried once more at once).
    await e.faults([{ op: 'create', status: 500, times: 6 }]);
    await e.userMessage('u1');
    e.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1' });
    e.send(tool('c1', 'one.ts'));
    await e.advance(5000);
    e.send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' });
    await e.advance(3000);
    expect(e.runtime.turn('T1')).toMatchObject({ state: 'ended', degraded: true });
    const log = landed(e.creates()).at(-1);
    expect(log?.thread ?? null).toBeNull();
    expect(e.messages().find((m) => m.id === log?.messageId)?.text).toMatch(/^⚠️ \*/);
  });
});

const HOSTILE = '<!channel> <!here> <!everyone> <@U0123ABCD> <!subteam^S0TEAM|@team> & <b> >';
const SECRET = 'xoxb-123456789012-1234567890123-abcdefghijklmnopqrstuvwx';

describe('slack E2E: hostile text and secrets', () => {
  it('in every field: no mention fires and no secret reaches Slack', async () => {
    e = await startSlackE2E();
    await e.userMessage('u1');
    e.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1', title: `${HOSTILE} ${SECRET}` });
    e.send({
      type: 'tool_call',
      turnId: 'T1',
      callId: 'c1',
      tool: 'Bash',
      input: { command: `echo ${HOSTILE} ${SECRET}` },
      summary: HOSTILE,
    });
    e.send({
      type: 'tool_result',
      turnId: 'T1',
      callId: 'c1',
      tool: 'Bash',
      ok: true,
      output: `${HOSTILE} ${SECRET}`,
    });
    e.send({ type: 'assistant', turnId: 'T1', text: `${HOSTILE} ${SECRET}` });
    e.send({ type: 'note', turnId: 'T1', text: `${HOSTILE} ${SECRET}` });
    e.send({ type: 'subagent', turnId: 'T1', subagentId: 's1', status: 'started', name: HOSTILE });
    e.send({ type: 'command', turnId: 'T1', command: HOSTILE, output: SECRET, exitCode: 1 });
    e.send({
      type: 'policy_request',
      turnId: 'T1',
      requestId: 'p1',
      command: HOSTILE,
      args: [SECRET],
      title: HOSTILE,
    });
    e.send({
      type: 'question',
      turnId: 'T1',
      questionId: 'q1',
      title: `${HOSTILE} ${SECRET}`,
      question: `${HOSTILE} ${SECRET}`,
      options: [`${HOSTILE} ${SECRET}`, { label: HOSTILE, value: SECRET }],
    });
    e.send({ type: 'tool_call', turnId: 'T1', callId: 'c2', tool: `${HOSTILE} @here`, input: { q: SECRET } });
    await e.advance(1500);
    e.send({ type: 'answer', turnId: 'T1', text: `${HOSTILE} ${SECRET}` });
    e.send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' });
    await e.advance(3000);

    const writes = e.calls().filter((c) => c.op === 'create' || c.op === 'update');
    expect(writes.length).toBeGreaterThanOrEqual(3);
    expect(writes.flatMap((c) => c.mentions)).toEqual([]);
    const stored = e.messages().map((m) => m.text);
    expect(stored.join('\n')).not.toContain(SECRET);
    expect(JSON.stringify(e.calls())).not.toContain(SECRET);
    // Nor the turn's own view (warnings, dead letters).
    expect(JSON.stringify(e.runtime.turn('T1'))).not.toContain(SECRET);
    // The question's card and buttons landed, as text.
    expect(e.messages().some((m) => (m.buttons ?? []).length === 2)).toBe(true);
    // The hostile text is there, as text.
    expect(stored.join('\n')).toContain('channel');
  });
});

describe('slack E2E: 16 concurrent turns in 4 channels', () => {
  it('see no 429, and every final frame lands', async () => {
    e = await startSlackE2E();
    const channels = ['C0LOADAAA1', 'C0LOADAAA2', 'C0LOADAAA3', 'C0LOADAAA4'].map((c) => `slack:${c}`);
    const turns = Array.from({ length: 16 }, (_, i) => ({ turnId: `T${i}`, space: channels[i % 4]! }));
    const roots: { messageId: string }[] = [];
    for (const t of turns) roots.push(await e.userMessage(`u-${t.turnId}`, { space: t.space }));
    for (const t of turns)
      e.send({ type: 'turn_started', turnId: t.turnId, rootRef: `u-${t.turnId}` }, t.space);
    for (let step = 0; step < 20; step++) {
      for (const t of turns) e.send(tool(`c${step}`, `f${step}.ts`, t.turnId), t.space);
      await e.advance(1000);
    }
    for (const t of turns) e.send({ type: 'turn_ended', turnId: t.turnId, outcome: 'ok' }, t.space);
    await e.advance(120_000);
    const writes = e.calls().filter((c) => c.op === 'create' || c.op === 'update');
    expect(writes.filter((c) => c.status === 429)).toEqual([]);
    for (const [i, t] of turns.entries()) {
      expect(e.runtime.turn(t.turnId)).toMatchObject({ state: 'ended', degraded: false });
      const cards = e
        .messages(t.space.slice('slack:'.length))
        .filter((m) => m.thread === roots[i]?.messageId);
      expect(cards).toHaveLength(1);
      expect(cards[0]?.text).toContain('f19.ts');
    }
  });
});

describe('slack E2E: a deleted thread parent', () => {
  it('the log goes top-level under one header when the person deleted their message before the card', async () => {
    e = await startSlackE2E();
    const root = await e.userMessage('u1', { text: 'please fix the build' });
    await e.personDeletes(root.messageId);
    e.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1', title: 'Fix the build' });
    e.send(tool('c1', 'one.ts'));
    await e.advance(3000);
    e.send(tool('c2', 'two.ts'));
    await e.advance(3000);
    e.send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' });
    await e.advance(3000);
    // Slack refuses the reply to the deleted parent once; the turn says why and goes top-level.
    expect(e.creates().filter((c) => c.details?.error === 'thread_not_found')).toHaveLength(1);
    const turn = e.runtime.turn('T1');
    expect(turn).toMatchObject({ state: 'ended', degraded: true });
    expect((turn?.warnings ?? []).join('\n')).toContain('thread_not_found');
    const topLevel = landed(e.creates()).filter((c) => c.thread === null);
    const texts = topLevel.map((c) => e!.messages().find((m) => m.id === c.messageId)?.text ?? '');
    // One top-level message: its header says what it answers, the log follows in it; nothing in the dead thread.
    expect(texts).toHaveLength(1);
    expect(texts[0]).toMatch(/one\.ts[\s\S]*two\.ts/);
    expect(landed(e.creates()).filter((c) => c.thread === root.messageId)).toEqual([]);
  });
});
