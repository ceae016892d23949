// spec: issue "Loopback emulators…" — notification accounting on every recorded call: a new message
// notifies the people in the conversation (a thread reply: the thread's members), an edit does not,
// SUPPRESS_NOTIFICATIONS does not, a person's own message does not; `mentions` lists the broad
// mentions that fired, which on Discord depends on `allowed_mentions`.
import { AllowedMentionsTypes } from '@discordjs/core/http-only';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Harness, personSays, recordedCalls, startHarness } from './harness.js';

const CHANNEL = '1300000000000000001';
const SUPPRESS_NOTIFICATIONS = 1 << 12;
const SAFE = { parse: [] as never[] };

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await h.close();
});

const callFor = async (messageId: string, op: string) =>
  (await recordedCalls(h)).filter((call) => call.messageId === messageId && call.op === op);

describe('discord emulator: notifies', () => {
  it('a new top-level message notifies; its edit does not; a silent post does not', async () => {
    const { api } = h.client();
    const loud = await api.channels.createMessage(CHANNEL, { content: 'turn started' });
    await api.channels.editMessage(CHANNEL, loud.id, { content: 'turn started…' });
    const silent = await api.channels.createMessage(CHANNEL, {
      content: 'rollover',
      flags: SUPPRESS_NOTIFICATIONS,
    });
    expect(silent.flags).toBe(SUPPRESS_NOTIFICATIONS);

    const calls = await recordedCalls(h);
    expect(calls.map((call) => [call.op, call.notifies, call.details?.flags])).toEqual([
      ['create', true, 0],
      ['update', false, 0],
      ['create', false, SUPPRESS_NOTIFICATIONS],
    ]);
  });

  it("a person's inbound message notifies no one; the bot's thread reply notifies that person", async () => {
    const { api } = h.client();
    const inbound = await personSays(h, {
      space: CHANNEL,
      text: 'run the tests',
      user: '1400000000000000001',
    });
    const thread = await api.channels.createThread(CHANNEL, { name: 'turn' }, inbound.messageId);
    const reply = await api.channels.createMessage(thread.id, { content: 'log' });
    const silentReply = await api.channels.createMessage(thread.id, {
      content: 'log (rollover)',
      flags: SUPPRESS_NOTIFICATIONS,
    });

    const calls = await recordedCalls(h);
    expect(calls.map((call) => [call.op, call.notifies])).toEqual([
      ['inbound', false],
      ['thread', false],
      ['create', true],
      ['create', false],
    ]);
    expect(calls.find((call) => call.messageId === reply.id)).toMatchObject({
      thread: thread.id,
      space: CHANNEL,
    });
    expect(calls.find((call) => call.messageId === silentReply.id)?.notifies).toBe(false);
  });

  it('a reply in a thread nobody has joined notifies no one (a thread on the bot’s own message)', async () => {
    const { api } = h.client();
    const header = await api.channels.createMessage(CHANNEL, { content: '🕒 nightly job' });
    const thread = await api.channels.createThread(CHANNEL, { name: 'nightly' }, header.id);
    const log = await api.channels.createMessage(thread.id, { content: 'log' });
    expect((await callFor(log.id, 'create'))[0]?.notifies).toBe(false);

    // Once a person posts in the thread, they are a member and later replies reach them.
    await personSays(h, { space: CHANNEL, threadId: thread.id, text: 'watching' });
    const next = await api.channels.createMessage(thread.id, { content: 'log 2' });
    expect((await callFor(next.id, 'create'))[0]?.notifies).toBe(true);
    expect((await api.channels.get(thread.id)) as { member_count?: number }).toMatchObject({
      member_count: 1,
    });
  });

  it('a DM message notifies the recipient', async () => {
    const { api } = h.client();
    const dm = await api.users.createDM('1400000000000000002');
    const posted = await api.channels.createMessage(dm.id, { content: 'hi' });
    expect((await callFor(posted.id, 'create'))[0]).toMatchObject({
      notifies: true,
      space: dm.id,
      thread: null,
    });
  });

  it('a refused call (error, fault or 429) notifies no one', async () => {
    const { api } = h.client();
    await expect(api.channels.createMessage(CHANNEL, { content: '' })).rejects.toThrow();
    await h.raw('POST', '/_emulator/faults', { rules: [{ op: 'create', status: 500, times: 1 }] });
    await expect(api.channels.createMessage(CHANNEL, { content: 'x' })).rejects.toThrow();
    const calls = await recordedCalls(h);
    expect(calls.map((call) => [call.status, call.notifies])).toEqual([
      [400, false],
      [500, false],
    ]);
  });
});

describe('discord emulator: mentions that fire', () => {
  const userText = 'ping @everyone and @here and <@&1500000000000000001>';

  it('with allowed_mentions {parse: []} no broad mention fires, on create and on edit', async () => {
    const { api } = h.client();
    const posted = await api.channels.createMessage(CHANNEL, { content: userText, allowed_mentions: SAFE });
    expect(posted.mention_everyone).toBe(false);
    await api.channels.editMessage(CHANNEL, posted.id, { content: `${userText}!`, allowed_mentions: SAFE });

    const calls = await recordedCalls(h);
    expect(calls.map((call) => call.mentions)).toEqual([[], []]);
    expect(calls.map((call) => call.details?.allowedMentions)).toEqual([SAFE, SAFE]);
    // The client's safe form never let @everyone, @here or a role ping anyone.
    expect(calls.flatMap((call) => call.mentions)).not.toContain('@everyone');
  });

  it('without allowed_mentions Discord parses every mention: @everyone, @here and the role fire', async () => {
    const { api } = h.client();
    const posted = await api.channels.createMessage(CHANNEL, { content: userText });
    expect(posted).toMatchObject({ mention_everyone: true, mention_roles: ['1500000000000000001'] });
    expect((await callFor(posted.id, 'create'))[0]?.mentions).toEqual([
      '@everyone',
      '@here',
      '<@&1500000000000000001>',
    ]);
  });

  it('an edit without allowed_mentions re-parses with the defaults, so the mention comes back', async () => {
    const { api } = h.client();
    const posted = await api.channels.createMessage(CHANNEL, { content: 'hello', allowed_mentions: SAFE });
    const edited = await api.channels.editMessage(CHANNEL, posted.id, { content: 'hello @everyone' });
    expect(edited.mention_everyone).toBe(true);
    const [update] = await callFor(posted.id, 'update');
    expect(update).toMatchObject({
      notifies: false,
      mentions: ['@everyone'],
      details: { allowedMentions: null },
    });
  });

  it("allowed_mentions lets through only what it lists: parse ['everyone'], or one role id", async () => {
    const { api } = h.client();
    const everyone = await api.channels.createMessage(CHANNEL, {
      content: userText,
      allowed_mentions: { parse: [AllowedMentionsTypes.Everyone] },
    });
    const role = await api.channels.createMessage(CHANNEL, {
      content: userText,
      allowed_mentions: { roles: ['1500000000000000001'] },
    });
    expect((await callFor(everyone.id, 'create'))[0]?.mentions).toEqual(['@everyone', '@here']);
    expect((await callFor(role.id, 'create'))[0]?.mentions).toEqual(['<@&1500000000000000001>']);
  });

  it('SUPPRESS_NOTIFICATIONS cannot be added by an edit: the flag is ignored and recorded so', async () => {
    const { api } = h.client();
    const posted = await api.channels.createMessage(CHANNEL, { content: 'loud' });
    const edited = await api.channels.editMessage(CHANNEL, posted.id, {
      content: 'still loud',
      flags: SUPPRESS_NOTIFICATIONS,
    });
    expect(edited.flags).toBe(0);
    const [update] = await callFor(posted.id, 'update');
    expect(update?.details).toMatchObject({
      flags: 0,
      requestedFlags: SUPPRESS_NOTIFICATIONS,
      flagsIgnored: SUPPRESS_NOTIFICATIONS,
    });
    // SUPPRESS_EMBEDS is the one flag an edit may set.
    expect((await api.channels.editMessage(CHANNEL, posted.id, { flags: 1 << 2 })).flags).toBe(1 << 2);
  });
});
