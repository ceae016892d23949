/**
 * Discord end to end: the real runtime on the Discord surface through
 * @discordjs/rest against the Discord emulator (Discord's limits on), read
 * back from the emulator as a person sees it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ChannelType } from '../../../src/emulators/discord/index.js';
import {
  CHANNEL,
  type DiscordE2E,
  landed,
  SPACE,
  SUPPRESS_NOTIFICATIONS,
  startDiscordE2E,
} from './harness.js';

let e: DiscordE2E;
afterEach(async () => {
  await e.stop();
});

const tool = (turnId: string, n: number, space = SPACE) =>
  e.send(
    { type: 'tool_call', turnId, callId: `c${n}`, tool: 'Read', input: { path: `src/file-${n}.ts` } },
    space,
  );

const pinged = (c: { details?: Record<string, unknown> }) =>
  expect(c.details?.allowedMentions).toEqual({ parse: [] });

describe('discord E2E: the log in a thread on the person message', () => {
  it("threads the log on the person's message, coalesces a burst, and lands the answer as its own notifying message", async () => {
    e = await startDiscordE2E();
    const root = await e.userMessage('u1');
    e.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1', title: 'Fix the build' });
    tool('T1', 0);
    await e.quiet();
    for (let n = 1; n <= 8; n++) tool('T1', n);
    await e.advance(3000);
    const updatesAfterBurst = landed(e.updates()).length;
    // Eight events in one burst: a couple of edits at most, not eight.
    expect(updatesAfterBurst).toBeGreaterThanOrEqual(1);
    expect(updatesAfterBurst).toBeLessThanOrEqual(3);
    e.send({ type: 'answer', turnId: 'T1', text: 'All green.' });
    e.send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' });
    await e.advance(5000);

    const thread = e.calls().find((c) => c.op === 'thread');
    expect(thread?.path).toBe(`/api/v10/channels/${CHANNEL}/messages/${root.messageId}/threads`);
    const logs = e.thread(root.messageId);
    expect(logs).toHaveLength(1);
    expect(logs[0]?.text).toContain('file-8.ts');
    const top = e.messages().filter((m) => m.id !== root.messageId);
    expect(top.map((m) => m.text)).toEqual(['All green.']);
    const answer = landed(e.creates()).find((c) => c.messageId === top[0]?.id);
    expect(answer?.notifies).toBe(true);
    // Every create and every edit says "ping no one".
    for (const c of [...e.creates(), ...e.updates()]) pinged(c);
    expect(e.calls().filter((c) => c.status === 429)).toEqual([]);
  });

  it('rolls over silently: every log message after the first carries SUPPRESS_NOTIFICATIONS (one buzz per turn)', async () => {
    e = await startDiscordE2E({
      config: { visibility: { threadLog: { maxLogMessageChars: 300, condenseStrategy: 'rollover' } } },
    });
    const root = await e.userMessage('u1');
    e.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1' });
    tool('T1', 0);
    await e.quiet();
    for (let n = 1; n <= 12; n++) {
      tool('T1', n);
      await e.advance(1500);
    }
    e.send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' });
    await e.advance(8000);
    const logCreates = landed(e.creates()).filter((c) => c.path.includes(`/channels/${root.messageId}/`));
    expect(logCreates.length).toBeGreaterThanOrEqual(2);
    expect((logCreates[0]?.details?.flags as number) & SUPPRESS_NOTIFICATIONS).toBe(0);
    for (const later of logCreates.slice(1)) {
      expect((later.details?.flags as number) & SUPPRESS_NOTIFICATIONS).toBe(SUPPRESS_NOTIFICATIONS);
      expect(later.notifies).toBe(false);
    }
    const all = e
      .thread(root.messageId)
      .map((m) => m.text)
      .join('\n');
    for (let n = 0; n <= 12; n++) expect(all).toContain(`file-${n}.ts`);
    expect(e.calls().filter((c) => c.status === 429)).toEqual([]);
  });

  it('posts the policy card in the thread with approve and reject buttons', async () => {
    e = await startDiscordE2E();
    const root = await e.userMessage('u1');
    e.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1' });
    tool('T1', 0);
    e.send({ type: 'policy_request', turnId: 'T1', requestId: 'r1', command: 'rm', args: ['-rf', '/tmp/x'] });
    await e.advance(3000);
    const card = e.thread(root.messageId).find((m) => m.text.includes('rm -rf /tmp/x'));
    expect(card).toBeDefined();
    const create = landed(e.creates()).find((c) => c.messageId === card?.id);
    expect(create?.path).toBe(`/api/v10/channels/${root.messageId}/messages`);
    expect(e.messages().map((m) => m.id)).toEqual([root.messageId]);
  });
});

describe('discord E2E: where threads are not', () => {
  it('a DM drops the log and sends the answer top level', async () => {
    const dm = '1800000000000000999';
    e = await startDiscordE2E({ emulator: { channels: [{ id: dm, type: ChannelType.DM }] } });
    const space = `discord:${dm}`;
    await e.userMessage('u1', { space });
    e.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1', dm: true }, space);
    tool('T1', 0, space);
    e.send({ type: 'answer', turnId: 'T1', text: 'done' }, space);
    e.send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' }, space);
    await e.advance(5000);
    expect(e.calls().filter((c) => c.op === 'thread')).toEqual([]);
    expect(e.messages(dm).map((m) => m.text)).toEqual(['user message u1', 'done']);
  });

  it('a channel that refuses threads (50024: a DM the host did not mark) gets its log top level, once', async () => {
    const dm = '1800000000000000777';
    e = await startDiscordE2E({ emulator: { channels: [{ id: dm, type: ChannelType.DM }] } });
    const space = `discord:${dm}`;
    await e.userMessage('u1', { space });
    e.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1' }, space);
    tool('T1', 0, space);
    await e.advance(2000);
    await e.userMessage('u2', { space });
    e.send({ type: 'turn_started', turnId: 'T2', rootRef: 'u2' }, space);
    tool('T2', 1, space);
    e.send({ type: 'answer', turnId: 'T1', text: 'done' }, space);
    e.send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' }, space);
    e.send({ type: 'turn_ended', turnId: 'T2', outcome: 'ok' }, space);
    await e.advance(5000);
    // Refused once; the second turn goes top level without asking again.
    expect(
      e
        .calls()
        .filter((c) => c.op === 'thread')
        .map((c) => c.status),
    ).toEqual([400]);
    const texts = e.messages(dm).map((m) => m.text);
    expect(texts.some((t) => t.includes('file-0.ts'))).toBe(true);
    expect(texts.some((t) => t.includes('file-1.ts'))).toBe(true);
    expect(texts).toContain('done');
  });
});

describe('discord E2E: failures', () => {
  it('a deleted log (10008 on edit) is replaced by a fresh, silent message', async () => {
    e = await startDiscordE2E();
    const root = await e.userMessage('u1');
    e.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1' });
    tool('T1', 0);
    await e.advance(2000);
    const [first] = e.thread(root.messageId);
    await e.personDeletes(first!.id);
    tool('T1', 1);
    e.send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' });
    await e.advance(8000);
    const live = e.thread(root.messageId).filter((m) => !m.deleted);
    expect(live).toHaveLength(1);
    expect(live[0]?.text).toContain('file-1.ts');
    const repost = landed(e.creates()).find((c) => c.messageId === live[0]?.id);
    expect((repost?.details?.flags as number) & SUPPRESS_NOTIFICATIONS).toBe(SUPPRESS_NOTIFICATIONS);
  });

  it('a 429 on an edit is retried after Retry-After and the terminal frame lands', async () => {
    e = await startDiscordE2E();
    const root = await e.userMessage('u1');
    e.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1' });
    tool('T1', 0);
    await e.advance(2000);
    await e.faults([{ op: 'update', status: 429, times: 1, retryAfterS: 2 }]);
    tool('T1', 1);
    e.send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' });
    await e.advance(10_000);
    expect(e.updates().filter((c) => c.status === 429)).toHaveLength(1);
    const [log] = e.thread(root.messageId);
    expect(log?.text).toContain('file-1.ts');
  });
});

describe('discord E2E: hostile text pings no one', () => {
  it('@everyone, role and user mentions and masked links in every field reach no one', async () => {
    e = await startDiscordE2E();
    const hostile =
      '@everyone @here <@123456789012345678> <@&223456789012345678> [docs](https://evil.example)';
    const root = await e.userMessage('u1');
    e.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1', title: hostile });
    e.send({
      type: 'tool_call',
      turnId: 'T1',
      callId: 'c1',
      tool: hostile,
      input: { command: hostile },
      summary: hostile,
    });
    e.send({ type: 'tool_result', turnId: 'T1', callId: 'c1', tool: hostile, ok: false, output: hostile });
    e.send({ type: 'note', turnId: 'T1', text: hostile });
    e.send({
      type: 'policy_request',
      turnId: 'T1',
      requestId: 'r1',
      command: hostile,
      args: [hostile],
      title: hostile,
    });
    e.send({ type: 'answer', turnId: 'T1', text: hostile });
    e.send({ type: 'turn_ended', turnId: 'T1', outcome: 'error' });
    await e.advance(8000);
    const seen = [...e.messages(), ...e.thread(root.messageId)].filter((m) => m.id !== root.messageId);
    expect(seen.length).toBeGreaterThanOrEqual(2);
    for (const m of seen) {
      // Inside a code block nothing renders: the rest is what could link or ping.
      const rendered = m.text.replace(/```[\s\S]*?```/g, '');
      expect(rendered).not.toMatch(/\]\(https?:/);
      expect(m.text).not.toMatch(/(^|[^\u200B])@(everyone|here)/);
      expect(m.text).not.toMatch(/<@[!&]?\d/);
    }
    for (const c of [...e.creates(), ...e.updates()]) pinged(c);
  });
});

describe('discord E2E: load', () => {
  it('16 concurrent turns in 4 channels see no 429 and all land their terminal frame', async () => {
    e = await startDiscordE2E();
    const channels = [0, 1, 2, 3].map((i) => `18000000000000001${i}0`);
    const roots: string[] = [];
    for (let t = 0; t < 16; t++) {
      const space = `discord:${channels[t % 4]}`;
      const root = await e.userMessage(`u${t}`, { space });
      roots.push(root.messageId);
      e.send({ type: 'turn_started', turnId: `T${t}`, rootRef: `u${t}` }, space);
    }
    for (let round = 0; round < 5; round++) {
      for (let t = 0; t < 16; t++) tool(`T${t}`, round, `discord:${channels[t % 4]}`);
      await e.advance(1000);
    }
    for (let t = 0; t < 16; t++) {
      const space = `discord:${channels[t % 4]}`;
      e.send({ type: 'answer', turnId: `T${t}`, text: `answer ${t}` }, space);
      e.send({ type: 'turn_ended', turnId: `T${t}`, outcome: 'ok' }, space);
    }
    await e.advance(60_000);
    expect(e.calls().filter((c) => c.status === 429)).toEqual([]);
    expect(e.errors).toEqual([]);
    for (const root of roots) {
      const [log] = e.thread(root, channels[roots.indexOf(root) % 4]);
      expect(log?.text).toContain('file-4.ts');
    }
    for (let t = 0; t < 16; t++) {
      expect(e.messages(channels[t % 4]).some((m) => m.text === `answer ${t}`)).toBe(true);
    }
  });

  it("waits for what Discord's headers say (a channel allowing 2 edits per 5 s) instead of sending a refused call", async () => {
    e = await startDiscordE2E({
      emulator: {
        limits: [
          { op: 'create', scope: 'space', limit: 5, windowS: 5 },
          { op: 'update', scope: 'space', limit: 2, windowS: 5 },
          { op: '*', scope: 'global', limit: 50, windowS: 1 },
        ],
      },
    });
    const root = await e.userMessage('u1');
    e.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1' });
    tool('T1', 0);
    await e.quiet();
    for (let n = 1; n <= 10; n++) {
      tool('T1', n);
      await e.advance(1100);
    }
    e.send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' });
    await e.advance(20_000);
    expect(e.calls().filter((c) => c.status === 429)).toEqual([]);
    // Not even a call the surface refused on the headers' word: the actors waited instead.
    expect(e.errors).toEqual([]);
    expect(landed(e.updates()).length).toBeGreaterThanOrEqual(3);
    expect(e.thread(root.messageId)[0]?.text).toContain('file-10.ts');
  });
});
