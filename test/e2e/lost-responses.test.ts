// Issue 22.6: "A lost response makes duplicates and orphans." The platform applies 20 % of creates and edits and
// answers 502 (seeded, so the same calls are hit every run). 10 turns per platform still end with each answer
// posted once and no log message left showing "running": an uncertain create is reconciled (Slack: the post's
// metadata found with conversations.replies/history; Google Chat: the same requestId; Discord: the same nonce).
import { afterEach, describe, expect, it } from 'vitest';
import type { EmulatorServer } from '../../src/emulators/core/index.js';
import type { RecordedCall } from '../../src/emulators/types.js';
import { startDiscordE2E } from './discord/harness.js';
import { startGchatE2E } from './gchat/harness.js';
import type { E2EBasics } from './shared/platform-e2e.js';
import { startSlackE2E } from './slack/harness.js';

type Harness = E2EBasics<EmulatorServer> & {
  userMessage(ref: string): Promise<{ messageId: string }>;
  advance(ms: number): Promise<void>;
};

const PLATFORMS: { id: string; start: () => Promise<Harness> }[] = [
  { id: 'gchat', start: () => startGchatE2E() },
  { id: 'slack', start: () => startSlackE2E() },
  { id: 'discord', start: () => startDiscordE2E() },
];

const TURNS = 10;

let e: Harness | undefined;
afterEach(async () => {
  await e?.stop();
  e = undefined;
});

const landed = (c: RecordedCall) => c.status < 300 && c.details?.error === undefined;

describe.each(PLATFORMS)('$id E2E: 20 % lost responses make no duplicates and no orphans', ({ start }) => {
  it(`${TURNS} turns: each answer once, every log message ends ✅ (or is deleted)`, async () => {
    e = await start();
    const h = e;
    await h.faults([
      { op: 'create', status: 502, applied: true, rate: 0.2, seed: 9 },
      { op: 'update', status: 502, applied: true, rate: 0.2, seed: 4 },
    ]);
    for (let t = 1; t <= TURNS; t++) {
      await h.userMessage(`u${t}`);
      h.send({ type: 'turn_started', turnId: `T${t}`, rootRef: `u${t}`, title: `Turn ${t}` });
      h.send({
        type: 'tool_call',
        turnId: `T${t}`,
        callId: `c${t}`,
        tool: 'Read',
        input: { path: `${t}.ts` },
      });
    }
    await h.advance(3000);
    for (let t = 1; t <= TURNS; t++) {
      h.send({ type: 'tool_result', turnId: `T${t}`, callId: `c${t}`, tool: 'Read', ok: true });
      h.send({ type: 'answer', turnId: `T${t}`, text: `Answer ${t}.` });
      h.send({ type: 'turn_ended', turnId: `T${t}`, outcome: 'ok' });
    }
    await h.advance(90_000);

    const calls = h.calls();
    expect(calls.filter((c) => c.details?.lostResponse === true).length).toBeGreaterThan(2);
    const deleted = new Set(calls.filter((c) => c.op === 'delete' && landed(c)).map((c) => c.messageId));
    const created = calls.filter((c) => c.op === 'create' && landed(c) && !deleted.has(c.messageId));
    for (let t = 1; t <= TURNS; t++) {
      // A replayed create (Google Chat requestId, Discord nonce) answers with the same message: one message.
      const answers = new Set(
        created.filter((c) => (c.text ?? '').includes(`Answer ${t}.`)).map((c) => c.messageId),
      );
      expect([...answers], `answer ${t}`).toHaveLength(1);
      expect(h.runtime.turn(`T${t}`)).toMatchObject({ state: 'ended' });
    }
    const logs = new Set(created.filter((c) => !(c.text ?? '').includes('Answer ')).map((c) => c.messageId));
    for (const messageId of logs) {
      const writes = calls.filter(
        (c) => c.messageId === messageId && landed(c) && (c.op === 'create' || c.op === 'update'),
      );
      const headline = (writes.at(-1)?.text ?? '').split('\n')[0] ?? '';
      expect(headline, `log message ${messageId}`).toContain('✅');
    }
  });
});
