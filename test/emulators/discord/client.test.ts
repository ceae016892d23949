// spec: issue "Loopback emulators…" item 6 — through the official client (@discordjs/rest + @discordjs/core):
// post, thread, edit, delete, edit-after-delete (10008), idempotent create (nonce), over-length
// rejection (50035), DM without threads, plus the other refusals turnlog meets.
import { DiscordAPIError } from '@discordjs/rest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Harness, personSays, recordedCalls, START_MS, startHarness } from './harness.js';

const CHANNEL = '1100000000000000001';
const DM = '1100000000000000002';

let h: Harness;
beforeEach(async () => {
  h = await startHarness({ channels: [{ id: DM, type: 1, recipientId: '1200000000000000001' }] });
});
afterEach(async () => {
  await h.close();
});

/** The Discord error a client call was rejected with: HTTP status, JSON code and message. */
async function discordErrorOf(call: Promise<unknown>) {
  const error = await call.then(
    () => {
      throw new Error('expected the call to be rejected');
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DiscordAPIError);
  const { status, code, rawError } = error as DiscordAPIError;
  return { status, code, rawError };
}

describe('discord emulator through @discordjs/core: messages', () => {
  it('posts a message and returns a Discord message object with an increasing snowflake id', async () => {
    const { api } = h.client();
    const first = await api.channels.createMessage(CHANNEL, { content: 'first' });
    h.clock.increment(1500);
    const second = await api.channels.createMessage(CHANNEL, { content: 'second' });

    expect(first).toMatchObject({
      channel_id: CHANNEL,
      content: 'first',
      type: 0,
      flags: 0,
      edited_timestamp: null,
      timestamp: '2025-01-15T12:00:00.000000+00:00',
      author: { bot: true, username: 'turnlog-bot' },
    });
    expect(first.id).toMatch(/^\d{17,20}$/);
    expect(BigInt(second.id)).toBeGreaterThan(BigInt(first.id));
    // Discord ids carry their creation time.
    expect(Number(BigInt(second.id) >> 22n) + 1_420_070_400_000).toBe(START_MS + 1500);
    expect(await api.channels.getMessage(CHANNEL, first.id)).toMatchObject({
      id: first.id,
      content: 'first',
    });
  });

  it('starts a thread on a person message (thread id = message id) and replies in it', async () => {
    const { api } = h.client();
    const inbound = await personSays(h, { space: CHANNEL, text: 'please deploy' });
    const thread = await api.channels.createThread(CHANNEL, { name: 'deploy' }, inbound.messageId);
    expect(thread).toMatchObject({
      id: inbound.messageId,
      type: 11,
      parent_id: CHANNEL,
      name: 'deploy',
      thread_metadata: { archived: false },
    });
    expect(inbound.threadId).toBe(thread.id);

    const reply = await api.channels.createMessage(thread.id, { content: 'working on it' });
    expect(reply.channel_id).toBe(thread.id);
    const starter = await api.channels.getMessage(CHANNEL, inbound.messageId);
    expect(starter.thread?.id).toBe(thread.id);
    expect((starter.flags ?? 0) & (1 << 5)).not.toBe(0); // HAS_THREAD

    const messages = (await h.raw('GET', `/_emulator/messages?space=${CHANNEL}`)).body.messages;
    expect(messages.map((m: { text: string; thread: string | null }) => [m.text, m.thread])).toEqual([
      ['please deploy', null],
      ['working on it', thread.id],
    ]);
  });

  it('refuses a second thread on the same message with 160004', async () => {
    const { api } = h.client();
    const inbound = await personSays(h, { space: CHANNEL, text: 'hi' });
    await api.channels.createThread(CHANNEL, { name: 'one' }, inbound.messageId);
    expect(
      await discordErrorOf(api.channels.createThread(CHANNEL, { name: 'two' }, inbound.messageId)),
    ).toEqual({
      status: 400,
      code: 160004,
      rawError: { code: 160004, message: 'A thread has already been created for this message' },
    });
  });

  it('edits its own message, counting the edit and stamping edited_timestamp', async () => {
    const { api } = h.client();
    const posted = await api.channels.createMessage(CHANNEL, { content: 'v1' });
    h.clock.increment(2000);
    const edited = await api.channels.editMessage(CHANNEL, posted.id, { content: 'v2' });
    expect(edited).toMatchObject({
      id: posted.id,
      content: 'v2',
      edited_timestamp: '2025-01-15T12:00:02.000000+00:00',
    });
    const [message] = (await h.raw('GET', `/_emulator/messages?space=${CHANNEL}`)).body.messages;
    expect(message).toMatchObject({ text: 'v2', edits: 1, updatedAt: START_MS + 2000, deleted: false });
  });

  it('deletes a message (204); a later edit, get or delete gets 10008 Unknown Message', async () => {
    const { api } = h.client();
    const posted = await api.channels.createMessage(CHANNEL, { content: 'soon gone' });
    await expect(api.channels.deleteMessage(CHANNEL, posted.id)).resolves.toBeUndefined();

    const unknownMessage = {
      status: 404,
      code: 10008,
      rawError: { code: 10008, message: 'Unknown Message' },
    };
    expect(await discordErrorOf(api.channels.editMessage(CHANNEL, posted.id, { content: 'x' }))).toEqual(
      unknownMessage,
    );
    expect(await discordErrorOf(api.channels.getMessage(CHANNEL, posted.id))).toEqual(unknownMessage);
    expect(await discordErrorOf(api.channels.deleteMessage(CHANNEL, posted.id))).toEqual(unknownMessage);
    const [message] = (await h.raw('GET', `/_emulator/messages?space=${CHANNEL}`)).body.messages;
    expect(message).toMatchObject({ deleted: true, edits: 0 });
  });

  it('answers 10008 for an edit after a person deleted the message (POST /_emulator/delete)', async () => {
    const { api } = h.client();
    const posted = await api.channels.createMessage(CHANNEL, { content: 'log' });
    await h.raw('POST', '/_emulator/delete', { messageId: posted.id });
    expect((await discordErrorOf(api.channels.editMessage(CHANNEL, posted.id, { content: 'x' }))).code).toBe(
      10008,
    );
  });

  it('answers 10008 when the message is addressed through the wrong channel', async () => {
    const { api } = h.client();
    const inbound = await personSays(h, { space: CHANNEL, text: 'hi' });
    const thread = await api.channels.createThread(CHANNEL, { name: 't' }, inbound.messageId);
    const reply = await api.channels.createMessage(thread.id, { content: 'in thread' });
    // A thread message lives in the thread channel, not in its parent.
    expect((await discordErrorOf(api.channels.editMessage(CHANNEL, reply.id, { content: 'x' }))).code).toBe(
      10008,
    );
  });

  it('returns the first message for a repeated nonce with enforce_nonce (idempotent create)', async () => {
    const { api } = h.client();
    const first = await api.channels.createMessage(CHANNEL, {
      content: 'log',
      nonce: 'turn-7-0',
      enforce_nonce: true,
    });
    h.clock.increment(60_000);
    const retried = await api.channels.createMessage(CHANNEL, {
      content: 'log',
      nonce: 'turn-7-0',
      enforce_nonce: true,
    });
    expect(retried.id).toBe(first.id);
    expect(retried.nonce).toBe('turn-7-0');
    // Without enforce_nonce the nonce is only echoed: a second message is created.
    const unenforced = await api.channels.createMessage(CHANNEL, { content: 'log', nonce: 'turn-7-0' });
    expect(unenforced.id).not.toBe(first.id);

    const messages = (await h.raw('GET', `/_emulator/messages?space=${CHANNEL}`)).body.messages;
    expect(messages).toHaveLength(2);
    const creates = (await recordedCalls(h)).filter((call) => call.op === 'create');
    expect(
      creates.map((call) => [call.messageId, call.notifies, call.details?.nonceReplay ?? false]),
    ).toEqual([
      [first.id, true, false],
      [first.id, false, true],
      [unenforced.id, true, false],
    ]);
  });

  it('forgets a nonce after the window: a late repeat creates a new message', async () => {
    const { api } = h.client();
    const first = await api.channels.createMessage(CHANNEL, {
      content: 'a',
      nonce: 'n1',
      enforce_nonce: true,
    });
    h.clock.increment(5 * 60_000);
    const late = await api.channels.createMessage(CHANNEL, {
      content: 'a',
      nonce: 'n1',
      enforce_nonce: true,
    });
    expect(late.id).not.toBe(first.id);
  });

  it('rejects content over 2000 characters with 50035 and the field error tree', async () => {
    const { api } = h.client();
    const error = await discordErrorOf(api.channels.createMessage(CHANNEL, { content: 'x'.repeat(2001) }));
    expect(error).toEqual({
      status: 400,
      code: 50035,
      rawError: {
        code: 50035,
        message: 'Invalid Form Body',
        errors: {
          content: {
            _errors: [{ code: 'BASE_TYPE_MAX_LENGTH', message: 'Must be 2000 or fewer in length.' }],
          },
        },
      },
    });
    // 2000 characters fit, counted in code points (an emoji is one character).
    await expect(api.channels.createMessage(CHANNEL, { content: '😀'.repeat(2000) })).resolves.toMatchObject(
      {},
    );
    const posted = await api.channels.createMessage(CHANNEL, { content: 'short' });
    const editError = await discordErrorOf(
      api.channels.editMessage(CHANNEL, posted.id, { content: 'y'.repeat(2001) }),
    );
    expect(editError.code).toBe(50035);
  });

  it('rejects an empty message with 50006, on create and on an edit that empties it', async () => {
    const { api } = h.client();
    const empty = {
      status: 400,
      code: 50006,
      rawError: { code: 50006, message: 'Cannot send an empty message' },
    };
    expect(await discordErrorOf(api.channels.createMessage(CHANNEL, { content: '' }))).toEqual(empty);
    expect(await discordErrorOf(api.channels.createMessage(CHANNEL, { content: '  \n ' }))).toEqual(empty);
    const posted = await api.channels.createMessage(CHANNEL, { content: 'x' });
    expect(await discordErrorOf(api.channels.editMessage(CHANNEL, posted.id, { content: '' }))).toEqual(
      empty,
    );
  });

  it("refuses to edit a person's message or another app's message with 50005", async () => {
    const { api } = h.client();
    const inbound = await personSays(h, { space: CHANNEL, text: 'mine' });
    const notAuthor = {
      status: 403,
      code: 50005,
      rawError: { code: 50005, message: 'Cannot edit a message authored by another user' },
    };
    expect(
      await discordErrorOf(api.channels.editMessage(CHANNEL, inbound.messageId, { content: 'x' })),
    ).toEqual(notAuthor);
    const otherApp = h.client('another-token').api;
    const theirs = await otherApp.channels.createMessage(CHANNEL, { content: 'theirs' });
    expect(await discordErrorOf(api.channels.editMessage(CHANNEL, theirs.id, { content: 'x' }))).toEqual(
      notAuthor,
    );
  });

  it('answers 10003 Unknown Channel in strict mode for an undeclared channel', async () => {
    const strict = await startHarness({ strict: true, channels: [{ id: CHANNEL, type: 0 }] });
    try {
      const { api } = strict.client();
      await expect(api.channels.createMessage(CHANNEL, { content: 'ok' })).resolves.toMatchObject({
        content: 'ok',
      });
      expect(
        await discordErrorOf(api.channels.createMessage('1999999999999999999', { content: 'x' })),
      ).toEqual({
        status: 404,
        code: 10003,
        rawError: { code: 10003, message: 'Unknown Channel' },
      });
    } finally {
      await strict.close();
    }
  });

  it('adds its own reaction (204) and shows it on the message', async () => {
    const { api } = h.client();
    const posted = await api.channels.createMessage(CHANNEL, { content: 'done' });
    await api.channels.addMessageReaction(CHANNEL, posted.id, '✅');
    await api.channels.addMessageReaction(CHANNEL, posted.id, '✅');
    const message = await api.channels.getMessage(CHANNEL, posted.id);
    expect(message.reactions).toMatchObject([{ emoji: { id: null, name: '✅' }, count: 1, me: true }]);
    expect((await discordErrorOf(api.channels.addMessageReaction(CHANNEL, posted.id, 'nope'))).code).toBe(
      10014,
    );
  });

  it('replies to a message with message_reference (type 19) and refuses an unknown reference', async () => {
    const { api } = h.client();
    const inbound = await personSays(h, { space: CHANNEL, text: 'question' });
    const reply = await api.channels.createMessage(CHANNEL, {
      content: 'answer',
      message_reference: { message_id: inbound.messageId },
    });
    expect(reply).toMatchObject({
      type: 19,
      message_reference: { message_id: inbound.messageId, channel_id: CHANNEL },
      referenced_message: { id: inbound.messageId, content: 'question' },
    });
    const error = await discordErrorOf(
      api.channels.createMessage(CHANNEL, {
        content: 'x',
        message_reference: { message_id: '1234567890123456789' },
      }),
    );
    expect(error.code).toBe(50035);
  });
});

describe('discord emulator through @discordjs/core: the bot user', () => {
  it('GET /users/@me is the token’s bot user, the author of its messages; another token is another bot', async () => {
    const { api } = h.client();
    const me = await api.users.getCurrent();
    expect(me).toMatchObject({ bot: true, username: 'turnlog-bot' });
    expect((await api.channels.createMessage(CHANNEL, { content: 'x' })).author.id).toBe(me.id);
    expect((await h.client('other').api.users.getCurrent()).id).not.toBe(me.id);
  });
});

describe('discord emulator through @discordjs/core: DMs and threads', () => {
  it('reports channel types: 0 guild text, 1 DM, 11 public thread', async () => {
    const { api } = h.client();
    expect(await api.channels.get(CHANNEL)).toMatchObject({ id: CHANNEL, type: 0 });
    expect(await api.channels.get(DM)).toMatchObject({
      id: DM,
      type: 1,
      recipients: [{ id: '1200000000000000001' }],
    });
    const inbound = await personSays(h, { space: CHANNEL, text: 'hi' });
    await api.channels.createThread(CHANNEL, { name: 't' }, inbound.messageId);
    expect(await api.channels.get(inbound.messageId)).toMatchObject({ type: 11, parent_id: CHANNEL });
  });

  it('opens a DM with POST /users/@me/channels (the same channel every time) and refuses threads in it with 50024', async () => {
    const { api } = h.client();
    const dm = await api.users.createDM('1200000000000000099');
    expect(dm).toMatchObject({ type: 1, recipients: [{ id: '1200000000000000099' }] });
    expect((await api.users.createDM('1200000000000000099')).id).toBe(dm.id);

    const inbound = await personSays(h, { space: dm.id, text: 'hello in private' });
    expect(await discordErrorOf(api.channels.createThread(dm.id, { name: 't' }, inbound.messageId))).toEqual({
      status: 400,
      code: 50024,
      rawError: { code: 50024, message: 'Cannot execute action on this channel type' },
    });
    // A DM answer goes top level.
    await expect(api.channels.createMessage(dm.id, { content: 'answer' })).resolves.toMatchObject({
      channel_id: dm.id,
    });
  });

  it('refuses a thread inside a thread with 50024', async () => {
    const { api } = h.client();
    const inbound = await personSays(h, { space: CHANNEL, text: 'hi' });
    const thread = await api.channels.createThread(CHANNEL, { name: 't' }, inbound.messageId);
    const reply = await api.channels.createMessage(thread.id, { content: 'in thread' });
    expect((await discordErrorOf(api.channels.createThread(thread.id, { name: 'u' }, reply.id))).code).toBe(
      50024,
    );
  });

  it('refuses edits, deletes and reactions in an archived thread with 50083; a new message reopens it', async () => {
    const { api } = h.client();
    const inbound = await personSays(h, { space: CHANNEL, text: 'hi' });
    const thread = await api.channels.createThread(CHANNEL, { name: 't' }, inbound.messageId);
    const log = await api.channels.createMessage(thread.id, { content: 'log' });
    h.emulator.archiveThread(thread.id);

    const archived = { status: 400, code: 50083, rawError: { code: 50083, message: 'Thread is archived' } };
    expect(await discordErrorOf(api.channels.editMessage(thread.id, log.id, { content: 'x' }))).toEqual(
      archived,
    );
    expect(await discordErrorOf(api.channels.deleteMessage(thread.id, log.id))).toEqual(archived);
    expect(await discordErrorOf(api.channels.addMessageReaction(thread.id, log.id, '👍'))).toEqual(archived);
    expect(await api.channels.get(thread.id)).toMatchObject({ thread_metadata: { archived: true } });

    const next = await api.channels.createMessage(thread.id, { content: 'new log message' });
    expect(await api.channels.get(thread.id)).toMatchObject({ thread_metadata: { archived: false } });
    await expect(api.channels.editMessage(thread.id, next.id, { content: 'edited' })).resolves.toMatchObject({
      content: 'edited',
    });
    const calls = await recordedCalls(h);
    expect(calls.find((call) => call.details?.by === 'person')).toMatchObject({
      op: 'other',
      space: CHANNEL,
      thread: thread.id,
      details: { archived: true },
    });
    expect(calls.find((call) => call.messageId === next.id)?.details).toMatchObject({ unarchived: true });
  });

  it('lets a person (or the bot) archive a thread through Modify Channel, which then needs archived:false to change', async () => {
    const { api } = h.client();
    const inbound = await personSays(h, { space: CHANNEL, text: 'hi' });
    const thread = await api.channels.createThread(CHANNEL, { name: 't' }, inbound.messageId);
    await api.channels.edit(thread.id, { archived: true });
    expect((await discordErrorOf(api.channels.edit(thread.id, { name: 'renamed' }))).code).toBe(50083);
    expect(await api.channels.edit(thread.id, { archived: false, name: 'renamed' })).toMatchObject({
      name: 'renamed',
      thread_metadata: { archived: false },
    });
    expect((await discordErrorOf(api.channels.edit(CHANNEL, { name: 'x' }))).code).toBe(50013);
  });
});
