// spec: issue "Loopback emulators" item 6 — Slack through the official @slack/web-api WebClient:
// post, thread, edit, delete, edit-after-delete (message_not_found), idempotent create, over-length, DM without threads.
import { WebAPIPlatformError } from '@slack/web-api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { personPosts, rejectionOf, request, type SlackKit, slackClient, startKit } from './slack-test-kit.js';

const CHANNEL = 'C0TURNLOG1';
const DM = 'D0TURNLOG1';

let kit: SlackKit;

beforeEach(async () => {
  kit = await startKit();
});

afterEach(async () => {
  await kit.emulator.close();
});

/** The Slack error code a rejected WebClient call carries. */
async function slackErrorOf(promise: Promise<unknown>): Promise<string> {
  const error = await rejectionOf(promise);
  expect(error).toBeInstanceOf(WebAPIPlatformError);
  return (error as WebAPIPlatformError).data.error;
}

describe('Slack emulator through WebClient: posting', () => {
  it('posts a message and answers {ok, channel, ts, message} with a Slack ts', async () => {
    const res = await kit.client.chat.postMessage({ channel: CHANNEL, text: 'hello' });
    const auth = await kit.client.auth.test();

    expect(res.ok).toBe(true);
    expect(res.channel).toBe(CHANNEL);
    expect(res.ts).toMatch(/^\d{10}\.\d{6}$/);
    expect(res.message).toMatchObject({ type: 'message', text: 'hello', ts: res.ts, user: auth.user_id });
    expect(res.message?.bot_id).toBe(auth.bot_id);
    expect(kit.emulator.state.messages(CHANNEL)).toEqual([
      expect.objectContaining({ id: res.ts, thread: null, text: 'hello', edits: 0, deleted: false }),
    ]);
  });

  it('hands out unique, increasing ts even when the clock stands still', async () => {
    const first = await kit.client.chat.postMessage({ channel: CHANNEL, text: 'one' });
    const second = await kit.client.chat.postMessage({ channel: CHANNEL, text: 'two' });
    kit.clock.increment(1500);
    const third = await kit.client.chat.postMessage({ channel: CHANNEL, text: 'three' });

    expect(first.ts).toBe('1700000000.000000');
    expect(second.ts).toBe('1700000000.000001');
    expect(third.ts).toBe('1700000001.500000');
  });

  it('has no idempotent create: the same post sent twice makes two messages (Slack takes no request id)', async () => {
    const args = { channel: CHANNEL, text: 'retried after a timeout' };
    const first = await kit.client.chat.postMessage(args);
    const second = await kit.client.chat.postMessage(args);

    expect(second.ts).not.toBe(first.ts);
    expect(kit.emulator.state.messages(CHANNEL).map((message) => message.id)).toEqual([first.ts, second.ts]);
  });

  it('posts a thread reply under a person’s message with thread_ts', async () => {
    const asked = await personPosts(kit.emulator, { space: CHANNEL, text: 'please deploy' });
    const reply = await kit.client.chat.postMessage({
      channel: CHANNEL,
      text: 'on it',
      thread_ts: asked.threadId,
    });

    expect(asked.messageId).toBe(asked.threadId);
    expect(reply.message).toMatchObject({ thread_ts: asked.messageId, parent_user_id: 'U0PERSON01' });
    expect(kit.emulator.state.messages(CHANNEL)).toEqual([
      expect.objectContaining({ id: asked.messageId, thread: null, text: 'please deploy' }),
      expect.objectContaining({ id: reply.ts, thread: asked.messageId, text: 'on it' }),
    ]);
    const call = kit.emulator.state.calls().at(-1);
    expect(call).toMatchObject({
      op: 'create',
      thread: asked.messageId,
      details: { thread_ts: asked.messageId },
    });
  });

  it('files a reply addressed to a reply under the thread’s root, as Slack does', async () => {
    const root = await kit.client.chat.postMessage({ channel: CHANNEL, text: 'root' });
    const first = await kit.client.chat.postMessage({ channel: CHANNEL, text: 'first', thread_ts: root.ts! });
    const second = await kit.client.chat.postMessage({
      channel: CHANNEL,
      text: 'second',
      thread_ts: first.ts!,
    });

    expect(second.message?.thread_ts).toBe(root.ts);
  });

  it('refuses a malformed thread_ts with invalid_thread_ts', async () => {
    expect(
      await slackErrorOf(kit.client.chat.postMessage({ channel: CHANNEL, text: 'x', thread_ts: '' })),
    ).toBe('invalid_thread_ts');
  });

  it('refuses text over 40,000 characters with msg_too_long and accepts exactly 40,000', async () => {
    const code = await slackErrorOf(
      kit.client.chat.postMessage({ channel: CHANNEL, text: 'x'.repeat(40_001) }),
    );
    const fits = await kit.client.chat.postMessage({ channel: CHANNEL, text: 'x'.repeat(40_000) });

    expect(code).toBe('msg_too_long');
    expect(fits.ok).toBe(true);
    expect(kit.emulator.state.messages(CHANNEL)).toHaveLength(1);
  });

  it('refuses a post without text or blocks (no_text) and an unknown channel (channel_not_found)', async () => {
    expect(await slackErrorOf(kit.client.chat.postMessage({ channel: CHANNEL, text: '' }))).toBe('no_text');
    expect(await slackErrorOf(kit.client.chat.postMessage({ channel: '#general', text: 'hi' }))).toBe(
      'channel_not_found',
    );
  });

  it('stores blocks, shows their text, and refuses over 50 blocks or a malformed block with invalid_blocks', async () => {
    const block = {
      type: 'rich_text',
      elements: [{ type: 'rich_text_section', elements: [{ type: 'text', text: '→ ran tests' }] }],
    };
    const posted = await kit.client.chat.postMessage({ channel: CHANNEL, text: 'fallback', blocks: [block] });
    const tooMany = await rejectionOf(
      kit.client.chat.postMessage({
        channel: CHANNEL,
        text: 'x',
        blocks: Array(51).fill({ type: 'divider' }),
      }),
    );
    const malformed = await slackErrorOf(
      kit.client.chat.postMessage({
        channel: CHANNEL,
        text: 'x',
        blocks: [{ type: 'section', text: { type: 'mrkdwn', text: '' } }],
      }),
    );

    expect(posted.message?.blocks).toEqual([block]);
    expect(kit.emulator.state.messages(CHANNEL)[0]).toMatchObject({ text: '→ ran tests' });
    expect((tooMany as WebAPIPlatformError).data).toMatchObject({
      error: 'invalid_blocks',
      errors: [expect.stringContaining('[json-pointer:/blocks]')],
    });
    expect(malformed).toBe('invalid_blocks');
  });
});

describe('Slack emulator through WebClient: editing and deleting', () => {
  it('edits the app’s own message in place: one message, counted edits, new text', async () => {
    const posted = await kit.client.chat.postMessage({ channel: CHANNEL, text: 'working…' });
    kit.clock.increment(2000);
    const updated = await kit.client.chat.update({ channel: CHANNEL, ts: posted.ts!, text: 'done' });

    expect(updated).toMatchObject({ ok: true, channel: CHANNEL, ts: posted.ts, text: 'done' });
    expect(kit.emulator.state.messages(CHANNEL)).toEqual([
      expect.objectContaining({ id: posted.ts, text: 'done', edits: 1, updatedAt: 1_700_000_002_000 }),
    ]);
  });

  it('replaces blocks on an edit with blocks, and drops them on a text-only edit', async () => {
    const section = (text: string) => ({ type: 'section', text: { type: 'mrkdwn', text } });
    const posted = await kit.client.chat.postMessage({
      channel: CHANNEL,
      text: 'f',
      blocks: [section('v1')],
    });
    const withBlocks = await kit.client.chat.update({
      channel: CHANNEL,
      ts: posted.ts!,
      text: 'f',
      blocks: [section('v2')],
    });
    const textOnly = await kit.client.chat.update({ channel: CHANNEL, ts: posted.ts!, text: 'plain v3' });

    expect(withBlocks.message?.blocks).toEqual([section('v2')]);
    expect(textOnly.message?.blocks).toBeUndefined();
    expect(kit.emulator.state.messages(CHANNEL)[0]).toMatchObject({ text: 'plain v3', edits: 2 });
  });

  it('refuses to edit a person’s message or another app’s with cant_update_message', async () => {
    const asked = await personPosts(kit.emulator, { space: CHANNEL, text: 'my words' });
    const otherApp = slackClient(kit.emulator, 'xoxb-another-app');
    const theirs = await otherApp.chat.postMessage({ channel: CHANNEL, text: 'their log' });

    expect(
      await slackErrorOf(kit.client.chat.update({ channel: CHANNEL, ts: asked.messageId, text: 'x' })),
    ).toBe('cant_update_message');
    expect(await slackErrorOf(kit.client.chat.update({ channel: CHANNEL, ts: theirs.ts!, text: 'x' }))).toBe(
      'cant_update_message',
    );
    expect(kit.emulator.state.messages(CHANNEL).map((message) => message.edits)).toEqual([0, 0]);
  });

  it('deletes the app’s message; editing it afterwards is message_not_found', async () => {
    const posted = await kit.client.chat.postMessage({ channel: CHANNEL, text: 'log' });
    const deleted = await kit.client.chat.delete({ channel: CHANNEL, ts: posted.ts! });
    const code = await slackErrorOf(
      kit.client.chat.update({ channel: CHANNEL, ts: posted.ts!, text: 'more log' }),
    );

    expect(deleted).toMatchObject({ ok: true, channel: CHANNEL, ts: posted.ts });
    expect(code).toBe('message_not_found');
    expect(kit.emulator.state.messages(CHANNEL)).toEqual([
      expect.objectContaining({ id: posted.ts, deleted: true, text: 'log' }),
    ]);
  });

  it('answers message_not_found when a person deleted the message (POST /_emulator/delete)', async () => {
    const posted = await kit.client.chat.postMessage({ channel: CHANNEL, text: 'log' });
    kit.emulator.state.deleteMessage(posted.ts!);

    expect(await slackErrorOf(kit.client.chat.update({ channel: CHANNEL, ts: posted.ts!, text: 'x' }))).toBe(
      'message_not_found',
    );
    expect(await slackErrorOf(kit.client.chat.delete({ channel: CHANNEL, ts: posted.ts! }))).toBe(
      'message_not_found',
    );
  });

  it('refuses to delete a person’s message with cant_delete_message', async () => {
    const asked = await personPosts(kit.emulator, { space: CHANNEL, text: 'mine' });
    expect(await slackErrorOf(kit.client.chat.delete({ channel: CHANNEL, ts: asked.messageId }))).toBe(
      'cant_delete_message',
    );
  });

  it('adds a reaction once; the second time is already_reacted', async () => {
    const asked = await personPosts(kit.emulator, { space: CHANNEL, text: 'deploy?' });
    const added = await kit.client.reactions.add({
      channel: CHANNEL,
      timestamp: asked.messageId,
      name: 'eyes',
    });
    const again = await slackErrorOf(
      kit.client.reactions.add({ channel: CHANNEL, timestamp: asked.messageId, name: 'eyes' }),
    );

    expect(added.ok).toBe(true);
    expect(again).toBe('already_reacted');
    expect(kit.emulator.state.calls().map((call) => [call.op, call.details?.name])).toEqual([
      ['inbound', undefined],
      ['reaction', 'eyes'],
      ['reaction', 'eyes'],
    ]);
  });
});

describe('Slack emulator through WebClient: DMs', () => {
  it('reports a D… channel as an IM and a C… channel as a channel (conversations.info)', async () => {
    const dm = await kit.client.conversations.info({ channel: DM });
    const channel = await kit.client.conversations.info({ channel: CHANNEL });

    expect(dm.channel).toMatchObject({ id: DM, is_im: true, is_channel: false });
    expect(channel.channel).toMatchObject({ id: CHANNEL, is_im: false, is_channel: true });
  });

  it('accepts thread_ts in a DM as Slack does, and records the call as a DM', async () => {
    const asked = await personPosts(kit.emulator, { space: DM, text: 'hi bot' });
    const reply = await kit.client.chat.postMessage({
      channel: DM,
      text: 'hello',
      thread_ts: asked.threadId,
    });

    expect(reply.message?.thread_ts).toBe(asked.threadId);
    expect(kit.emulator.state.calls().at(-1)).toMatchObject({ op: 'create', details: { dm: true } });
  });

  it('in strict mode refuses thread_ts in a DM (restricted_action_non_threadable_channel) but takes top-level posts', async () => {
    const strict = await startKit({ strict: true });
    try {
      const asked = await personPosts(strict.emulator, { space: DM, text: 'hi bot' });
      const code = await slackErrorOf(
        strict.client.chat.postMessage({ channel: DM, text: 'hello', thread_ts: asked.threadId }),
      );
      const topLevel = await strict.client.chat.postMessage({ channel: DM, text: 'hello' });

      expect(code).toBe('restricted_action_non_threadable_channel');
      expect(topLevel.ok).toBe(true);
      expect(strict.emulator.state.messages(DM).map((message) => message.thread)).toEqual([null, null]);
    } finally {
      await strict.emulator.close();
    }
  });

  it('in strict mode refuses a thread_ts that names no message (thread_not_found); by default it is kept as an orphan', async () => {
    const strict = await startKit({ strict: true });
    try {
      const ghost = '1600000000.000001';
      const code = await slackErrorOf(
        strict.client.chat.postMessage({ channel: CHANNEL, text: 'x', thread_ts: ghost }),
      );
      const lenient = await kit.client.chat.postMessage({ channel: CHANNEL, text: 'x', thread_ts: ghost });

      expect(code).toBe('thread_not_found');
      expect(lenient.message?.thread_ts).toBe(ghost);
      expect(kit.emulator.state.calls().at(-1)?.details).toMatchObject({ orphanedThread: true });
    } finally {
      await strict.emulator.close();
    }
  });
});

describe('Slack emulator: a person’s messages (POST /_emulator/inbound) and reset', () => {
  it('answers {messageId, threadId} as Slack ts: a new thread, or a reply filed under the thread’s root', async () => {
    const asked = await personPosts(kit.emulator, { space: CHANNEL, text: 'first' });
    const replied = await personPosts(kit.emulator, {
      space: CHANNEL,
      text: 'more',
      threadId: asked.threadId,
    });
    const viaReply = await personPosts(kit.emulator, {
      space: CHANNEL,
      text: 'again',
      threadId: replied.messageId,
    });

    expect(asked).toEqual({ messageId: expect.stringMatching(/^\d{10}\.\d{6}$/), threadId: asked.messageId });
    expect(replied.threadId).toBe(asked.messageId);
    expect(viaReply.threadId).toBe(asked.messageId);
    expect(kit.emulator.state.messages(CHANNEL).map((message) => message.thread)).toEqual([
      null,
      asked.messageId,
      asked.messageId,
    ]);
  });

  it('refuses a space that is not a channel id (400) and a threadId that names no message there (404)', async () => {
    const badSpace = await request(kit.emulator, '/_emulator/inbound', {
      body: { space: 'spaces/AAAA', text: 'x' },
    });
    const badThread = await request(kit.emulator, '/_emulator/inbound', {
      body: { space: CHANNEL, text: 'x', threadId: '1600000000.000000' },
    });

    expect(badSpace).toMatchObject({
      status: 400,
      body: { error: expect.stringContaining('not a Slack channel id') },
    });
    expect(badThread).toMatchObject({
      status: 404,
      body: { error: expect.stringContaining('1600000000.000000') },
    });
  });

  it('forgets messages and reactions on POST /_emulator/reset but never reuses a ts', async () => {
    const before = await kit.client.chat.postMessage({ channel: CHANNEL, text: 'old' });
    await kit.client.reactions.add({ channel: CHANNEL, timestamp: before.ts!, name: 'eyes' });
    await request(kit.emulator, '/_emulator/reset');
    const after = await kit.client.chat.postMessage({ channel: CHANNEL, text: 'new' });

    expect(after.ts! > before.ts!).toBe(true);
    expect(kit.emulator.state.messages(CHANNEL).map((message) => message.text)).toEqual(['new']);
    expect(
      (await kit.client.reactions.add({ channel: CHANNEL, timestamp: after.ts!, name: 'eyes' })).ok,
    ).toBe(true);
  });
});
