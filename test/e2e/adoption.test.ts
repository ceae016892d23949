/**
 * Issue 26 item 2 (merged turns) on all three platforms, through the
 * official clients and the emulators: a follow-up the host folds into the
 * running turn (`messages_adopted`, by inbound ref or by message id) gets
 * 👀, then the turn's final reaction; the log shows a line for it (who and
 * the first words, redacted); the answer goes once; the turn's view lists
 * its roots; adopting a message another live turn answers is refused with a
 * clear error (kept as a dead letter).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { EmulatedMessage, RecordedCall } from '../../src/emulators/types.js';
import type { Runtime } from '../../src/runtime/types.js';
import { startDiscordE2E } from './discord/harness.js';
import { startGchatE2E } from './gchat/harness.js';
import { startSlackE2E } from './slack/harness.js';

interface Harness {
  runtime: Runtime;
  send(event: Record<string, unknown>, space?: string): void;
  userMessage(ref: string): Promise<{ messageId: string; threadId: string }>;
  advance(ms: number): Promise<void>;
  calls(): RecordedCall[];
  all(): EmulatedMessage[];
  space: string;
  stop(): Promise<void>;
}

const PLATFORMS: Record<string, () => Promise<Harness>> = {
  gchat: async () => {
    const e = await startGchatE2E();
    return Object.assign(e, { all: () => e.messages(), space: 'gchat:spaces/AAAA' }) as unknown as Harness;
  },
  slack: async () => {
    const e = await startSlackE2E();
    return Object.assign(e, { all: () => e.messages(), space: 'slack:C0E2ESLACK' }) as unknown as Harness;
  },
  discord: async () => {
    const e = await startDiscordE2E();
    const channel = '1800000000000000001';
    return Object.assign(e, {
      all: () => e.emulator.state.messages(channel),
      space: `discord:${channel}`,
    }) as unknown as Harness;
  },
};

let e: Harness | undefined;
afterEach(async () => {
  await e?.stop();
  e = undefined;
});

const emojiOn = (e: Harness, id: string) =>
  (e.all().find((m) => m.id === id)?.reactions ?? []).map((r) => r.emoji);
const shown = (m: EmulatedMessage) => [m.text, m.card?.text ?? ''].join('\n');
const SECRET = `ghp_${'a1B2c3D4e5'.repeat(3)}123456`;

describe.each(Object.keys(PLATFORMS))('%s: a follow-up joins the running turn', (platform) => {
  it('by ref: 👀 then ✅ on both messages, a log line for it, one answer, the view lists both roots', async () => {
    e = await PLATFORMS[platform]!();
    const first = await e.userMessage('u1');
    e.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1' });
    e.send({ type: 'tool_call', turnId: 'T1', callId: 'c1', tool: 'Read', input: { path: 'a.ts' } });
    await e.advance(1500);
    const followUp = await e.userMessage('u2');
    e.send({ type: 'messages_adopted', turnId: 'T1', refs: ['u2'] });
    await e.advance(1500);
    expect(emojiOn(e, followUp.messageId)).toEqual(['👀']);
    expect(e.runtime.turn('T1')?.roots?.map((r) => r.messageId)).toEqual([
      first.messageId,
      followUp.messageId,
    ]);
    expect(e.all().some((m) => shown(m).includes('joined this turn'))).toBe(true);

    e.send({ type: 'answer', turnId: 'T1', text: 'Both done.' });
    e.send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' });
    // Advisory writes: they wait for tokens no frame is owed (Slack's budget is the tightest).
    await e.advance(15_000);
    expect(emojiOn(e, first.messageId)).toEqual(['✅']);
    expect(emojiOn(e, followUp.messageId)).toEqual(['✅']);
    const answers = e
      .calls()
      .filter((c) => c.op === 'create' && c.status < 300 && c.text?.includes('Both done.'));
    expect(answers).toHaveLength(1);
  });

  it('by message id with its text: the log shows who and the first words, redacted', async () => {
    e = await PLATFORMS[platform]!();
    await e.userMessage('u1');
    e.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1' });
    const followUp = await e.userMessage('u2');
    e.send({
      type: 'messages_adopted',
      turnId: 'T1',
      messages: [
        {
          messageId: followUp.messageId,
          text: `also check staging with ${SECRET} and the rest of it please`,
        },
      ],
    });
    await e.advance(2000);
    const line = e
      .all()
      .map(shown)
      .find((text) => text.includes('joined this turn'));
    expect(line).toContain('also check staging with');
    expect(line).not.toContain(SECRET);
    expect(emojiOn(e, followUp.messageId)).toEqual(['👀']);
  });

  it("adopting another live turn's message is refused with a clear error, and nothing is adopted", async () => {
    e = await PLATFORMS[platform]!();
    await e.userMessage('u1');
    const other = await e.userMessage('u2');
    e.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1' });
    e.send({ type: 'turn_started', turnId: 'T2', rootRef: 'u2' });
    await e.advance(500);
    const byRef = e.runtime.ingest({ type: 'messages_adopted', space: e.space, turnId: 'T1', refs: ['u2'] });
    expect(byRef).toMatchObject({
      ok: false,
      error: expect.stringMatching(/message u2 belongs to live turn T2/),
    });
    const byId = e.runtime.ingest({
      type: 'messages_adopted',
      space: e.space,
      turnId: 'T1',
      messages: [{ messageId: other.messageId }],
    });
    expect(byId).toMatchObject({ ok: false, error: expect.stringMatching(/belongs to live turn T2/) });
    await e.advance(500);
    expect(e.runtime.turn('T1')?.roots).toHaveLength(1);
  });
});
