// spec: emulators issue item 6 — through the official googleapis client: post, thread, edit, delete,
// edit-after-delete (404 NOT_FOUND), idempotent create (requestId, client-assigned messageId), over-length rejection.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { failure, type GchatHarness, personPosts, START_MS, startHarness } from './gchat-harness.js';

const SPACE = 'spaces/AAAA';

let h: GchatHarness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await h.close();
});

describe('gchat emulator: create', () => {
  it('posts a top-level message that starts its own thread, named the way Google names them', async () => {
    const { data, status } = await h.chat.spaces.messages.create({
      parent: SPACE,
      requestBody: { text: 'hello' },
    });
    expect(status).toBe(200);
    expect(data.name).toMatch(/^spaces\/AAAA\/messages\/([A-Za-z0-9]{11})\.\1$/);
    const threadId = data.name!.split('/').pop()!.split('.')[0];
    expect(data).toMatchObject({
      text: 'hello',
      sender: { name: 'users/app', type: 'BOT' },
      createTime: new Date(START_MS).toISOString(),
      thread: { name: `${SPACE}/threads/${threadId}` },
      threadReply: false,
      space: { name: SPACE, spaceType: 'SPACE' },
    });
    expect(h.emulator.state.messages(SPACE)).toEqual([
      {
        id: data.name,
        thread: null,
        text: 'hello',
        createdAt: START_MS,
        updatedAt: null,
        edits: 0,
        deleted: false,
        reactions: [],
      },
    ]);
  });

  it('replies in the thread of a person’s message with thread.name + REPLY_MESSAGE_FALLBACK_TO_NEW_THREAD', async () => {
    const root = await personPosts(h.emulator, { space: SPACE, text: 'please fix the build' });
    const { data } = await h.chat.spaces.messages.create({
      parent: SPACE,
      messageReplyOption: 'REPLY_MESSAGE_FALLBACK_TO_NEW_THREAD',
      requestBody: { text: '• 12:00:01 tool: Read(src/app.ts)', thread: { name: root.threadId } },
    });
    expect(data).toMatchObject({ thread: { name: root.threadId }, threadReply: true });
    const [, reply] = h.emulator.state.messages(SPACE);
    expect(reply).toMatchObject({ id: data.name, thread: root.threadId });
    const created = h.emulator.state.calls().find((call) => call.op === 'create')!;
    expect(created).toMatchObject({
      thread: root.threadId,
      details: { messageReplyOption: 'REPLY_MESSAGE_FALLBACK_TO_NEW_THREAD', threadReply: true },
    });
  });

  it('falls back to a new thread for an unknown thread name, but REPLY_MESSAGE_OR_FAIL answers 404', async () => {
    const missing = `${SPACE}/threads/nope`;
    const { data } = await h.chat.spaces.messages.create({
      parent: SPACE,
      messageReplyOption: 'REPLY_MESSAGE_FALLBACK_TO_NEW_THREAD',
      requestBody: { text: 'log', thread: { name: missing } },
    });
    expect(data.threadReply).toBe(false);
    expect(data.thread!.name).not.toBe(missing);

    const error = await failure(
      h.chat.spaces.messages.create({
        parent: SPACE,
        messageReplyOption: 'REPLY_MESSAGE_OR_FAIL',
        requestBody: { text: 'log', thread: { name: missing } },
      }),
    );
    expect(error.status).toBe(404);
    expect(error.response.data.error).toMatchObject({ code: 404, status: 'NOT_FOUND' });
    expect(h.emulator.state.messages(SPACE)).toHaveLength(1);
  });

  it('threadKey opens a thread on first use and replies to it afterwards; no messageReplyOption ignores it', async () => {
    const opts = { parent: SPACE, messageReplyOption: 'REPLY_MESSAGE_OR_FAIL' };
    const first = await h.chat.spaces.messages.create({
      ...opts,
      requestBody: { text: 'a', thread: { threadKey: 'turn-1' } },
    });
    const second = await h.chat.spaces.messages.create({
      ...opts,
      requestBody: { text: 'b', thread: { threadKey: 'turn-1' } },
    });
    expect(first.data).toMatchObject({ threadReply: false, thread: { threadKey: 'turn-1' } });
    expect(second.data).toMatchObject({ threadReply: true, thread: first.data.thread });

    const ignored = await h.chat.spaces.messages.create({
      parent: SPACE,
      requestBody: { text: 'c', thread: { threadKey: 'turn-1' } },
    });
    expect(ignored.data.threadReply).toBe(false);
    expect(ignored.data.thread!.name).not.toBe(first.data.thread!.name);
  });

  it('requestId makes create idempotent: the same id returns the first message, unchanged', async () => {
    const request = { parent: SPACE, requestId: 'req-42', requestBody: { text: 'first' } };
    const first = await h.chat.spaces.messages.create(request);
    const again = await h.chat.spaces.messages.create({ ...request, requestBody: { text: 'different' } });
    expect(again.data.name).toBe(first.data.name);
    expect(again.data.text).toBe('first');
    expect(h.emulator.state.messages(SPACE)).toHaveLength(1);
    expect(h.emulator.state.calls().map((call) => call.notifies)).toEqual([true, false]);
    // The same request id in another space is another request.
    const elsewhere = await h.chat.spaces.messages.create({ ...request, parent: 'spaces/BBBB' });
    expect(elsewhere.data.name).toMatch(/^spaces\/BBBB\//);
  });

  it('a client-assigned messageId addresses the message before its system name is known', async () => {
    const { data } = await h.chat.spaces.messages.create({
      parent: SPACE,
      messageId: 'client-turn-7-log-1',
      requestBody: { text: 'log v1' },
    });
    expect(data.clientAssignedMessageId).toBe('client-turn-7-log-1');
    const byClientId = `${SPACE}/messages/client-turn-7-log-1`;
    expect((await h.chat.spaces.messages.get({ name: byClientId })).data.name).toBe(data.name);
    await h.chat.spaces.messages.patch({
      name: byClientId,
      updateMask: 'text',
      requestBody: { text: 'log v2' },
    });
    expect(h.emulator.state.messages(SPACE)[0]).toMatchObject({ id: data.name, text: 'log v2', edits: 1 });

    const duplicate = await failure(
      h.chat.spaces.messages.create({
        parent: SPACE,
        messageId: 'client-turn-7-log-1',
        requestBody: { text: 'again' },
      }),
    );
    expect(duplicate.response.data.error).toMatchObject({ code: 409, status: 'ALREADY_EXISTS' });
  });

  it('POST /_emulator/reset forgets client-assigned ids and thread keys along with the messages', async () => {
    const request = {
      parent: SPACE,
      messageId: 'client-a',
      messageReplyOption: 'REPLY_MESSAGE_OR_FAIL',
      requestBody: { text: 'a', thread: { threadKey: 'k' } },
    };
    const before = await h.chat.spaces.messages.create(request);
    const res = await fetch(`${h.emulator.url}/_emulator/reset`, { method: 'POST' });
    expect(res.status).toBe(200);
    const after = await h.chat.spaces.messages.create(request);
    expect(after.data).toMatchObject({ clientAssignedMessageId: 'client-a', threadReply: false });
    expect(after.data.name).not.toBe(before.data.name);
    expect(after.data.thread!.name).not.toBe(before.data.thread!.name);
  });

  it.each([
    ['no client- prefix', 'turn-7'],
    ['upper case', 'client-Turn-7'],
    ['an underscore', 'client-turn_7'],
    ['64 characters', `client-${'a'.repeat(57)}`],
  ])('refuses a messageId with %s (400 INVALID_ARGUMENT)', async (_why, messageId) => {
    const error = await failure(
      h.chat.spaces.messages.create({ parent: SPACE, messageId, requestBody: { text: 'x' } }),
    );
    expect(error.response.data.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' });
    expect(error.message).toContain(messageId);
  });

  it('accepts a messageId of exactly 63 characters', async () => {
    const messageId = `client-${'a'.repeat(56)}`;
    const { data } = await h.chat.spaces.messages.create({
      parent: SPACE,
      messageId,
      requestBody: { text: 'x' },
    });
    expect(data.clientAssignedMessageId).toBe(messageId);
  });

  it('refuses a message over 32,000 bytes of text and cards together, and an empty one', async () => {
    // 10,000 three-byte characters are 30,000 bytes: under the limit alone, over it with the card.
    const text = '€'.repeat(10_000);
    const card = { cardId: 'c1', card: { header: { title: 'x'.repeat(2_500) } } };
    const ok = await h.chat.spaces.messages.create({ parent: SPACE, requestBody: { text } });
    expect(ok.status).toBe(200);
    const tooBig = await failure(
      h.chat.spaces.messages.create({ parent: SPACE, requestBody: { text, cardsV2: [card] } }),
    );
    expect(tooBig.response.data.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' });
    expect(tooBig.message).toMatch(/32000 bytes/);

    const empty = await failure(h.chat.spaces.messages.create({ parent: SPACE, requestBody: {} }));
    expect(empty.response.data.error.message).toBe('Message cannot be empty. Discarding empty message.');
    expect(h.emulator.state.messages(SPACE)).toHaveLength(1);
  });

  it('refuses unknown Message fields and an unknown messageReplyOption the way Google does', async () => {
    const typo = await failure(
      h.chat.spaces.messages.create({ parent: SPACE, requestBody: { text: 'x', cardsv2: [] } as never }),
    );
    expect(typo.response.data.error).toEqual({
      code: 400,
      status: 'INVALID_ARGUMENT',
      message: `Invalid JSON payload received. Unknown name "cardsv2" at 'message': Cannot find field.`,
    });
    const option = await failure(
      h.chat.spaces.messages.create({
        parent: SPACE,
        messageReplyOption: 'REPLY_SOMEHOW',
        requestBody: { text: 'x' },
      }),
    );
    expect(option.response.data.error.message).toContain(`'message_reply_option'`);
    expect(option.response.data.error.message).toContain('"REPLY_SOMEHOW"');
  });
});

describe('gchat emulator: strict mode', () => {
  it('refuses text over 4096 characters only in strict mode', async () => {
    const text = 'x'.repeat(4097);
    expect((await h.chat.spaces.messages.create({ parent: SPACE, requestBody: { text } })).status).toBe(200);
    const strict = await startHarness({ strict: true });
    try {
      const error = await failure(
        strict.chat.spaces.messages.create({ parent: SPACE, requestBody: { text } }),
      );
      expect(error.response.data.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' });
      expect(error.message).toMatch(/4097 characters.*4096/);
      const fits = await strict.chat.spaces.messages.create({
        parent: SPACE,
        requestBody: { text: 'x'.repeat(4096) },
      });
      expect(fits.status).toBe(200);
    } finally {
      await strict.close();
    }
  });
});

describe('gchat emulator: edit', () => {
  async function post(text: string) {
    return (await h.chat.spaces.messages.create({ parent: SPACE, requestBody: { text } })).data;
  }

  it('patch and update with updateMask text edit in place, count edits and notify no one', async () => {
    const message = await post('v1');
    h.clock.increment(1500);
    const patched = await h.chat.spaces.messages.patch({
      name: message.name!,
      updateMask: 'text',
      requestBody: { text: 'v2' },
    });
    expect(patched.data).toMatchObject({
      name: message.name,
      text: 'v2',
      lastUpdateTime: new Date(START_MS + 1500).toISOString(),
    });
    await h.chat.spaces.messages.update({
      name: message.name!,
      updateMask: 'text',
      requestBody: { text: 'v3' },
    });
    expect(h.emulator.state.messages(SPACE)[0]).toMatchObject({
      text: 'v3',
      edits: 2,
      updatedAt: START_MS + 1500,
    });
    const edits = h.emulator.state.calls().filter((call) => call.op === 'update');
    expect(edits.map((call) => [call.method, call.notifies, call.details?.updateMask])).toEqual([
      ['PATCH', false, 'text'],
      ['PUT', false, 'text'],
    ]);
  });

  it('updateMask cardsV2 replaces the cards and keeps the text', async () => {
    const message = await post('approve?');
    const cardsV2 = [{ cardId: 'policy', card: { header: { title: 'Run rm -rf /tmp/cache?' } } }];
    const { data } = await h.chat.spaces.messages.patch({
      name: message.name!,
      updateMask: 'cardsV2',
      requestBody: { cardsV2 },
    });
    expect(data).toMatchObject({ text: 'approve?', cardsV2 });
    const got = await h.chat.spaces.messages.get({ name: message.name! });
    expect(got.data.cardsV2).toEqual(cardsV2);
  });

  it.each([
    ['missing', undefined, /updateMask is required/],
    ['unknown', 'txt', /Invalid updateMask path "txt"/],
    ['not emulated', 'attachment', /not emulated/],
  ])('refuses a %s updateMask with 400 INVALID_ARGUMENT', async (_why, updateMask, message) => {
    const posted = await post('v1');
    const error = await failure(
      h.chat.spaces.messages.patch({
        name: posted.name!,
        ...(updateMask ? { updateMask } : {}),
        requestBody: { text: 'v2' },
      }),
    );
    expect(error.response.data.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' });
    expect(error.message).toMatch(message);
    expect(h.emulator.state.messages(SPACE)[0]!.text).toBe('v1');
  });

  it('an edit over 32,000 bytes is refused and leaves the message as it was', async () => {
    const message = await post('short');
    const error = await failure(
      h.chat.spaces.messages.patch({
        name: message.name!,
        updateMask: 'text',
        requestBody: { text: 'y'.repeat(32_001) },
      }),
    );
    expect(error.status).toBe(400);
    expect(h.emulator.state.messages(SPACE)[0]).toMatchObject({ text: 'short', edits: 0 });
  });

  it('refuses to edit or delete a person’s message or another app’s (403 PERMISSION_DENIED)', async () => {
    const person = await personPosts(h.emulator, { space: SPACE, text: 'mine' });
    const personEdit = await failure(
      h.chat.spaces.messages.patch({
        name: person.messageId,
        updateMask: 'text',
        requestBody: { text: 'hijacked' },
      }),
    );
    expect(personEdit.response.data.error).toMatchObject({ code: 403, status: 'PERMISSION_DENIED' });

    const ours = await post('ours');
    const otherEdit = await failure(
      h.otherApp.spaces.messages.patch({
        name: ours.name!,
        updateMask: 'text',
        requestBody: { text: 'theirs' },
      }),
    );
    expect(otherEdit.response.data.error).toMatchObject({ code: 403, status: 'PERMISSION_DENIED' });
    const otherDelete = await failure(h.otherApp.spaces.messages.delete({ name: ours.name! }));
    expect(otherDelete.status).toBe(403);
    expect(h.emulator.state.messages(SPACE).map((m) => [m.text, m.deleted])).toEqual([
      ['mine', false],
      ['ours', false],
    ]);
  });

  it('allowMissing=true creates the message for an unused client-assigned id, then edits it', async () => {
    const name = `${SPACE}/messages/client-log-9`;
    const created = await h.chat.spaces.messages.patch({
      name,
      updateMask: 'text',
      allowMissing: true,
      requestBody: { text: 'a' },
    });
    expect(created.data).toMatchObject({ clientAssignedMessageId: 'client-log-9', text: 'a' });
    const edited = await h.chat.spaces.messages.patch({
      name,
      updateMask: 'text',
      allowMissing: true,
      requestBody: { text: 'b' },
    });
    expect(edited.data).toMatchObject({ name: created.data.name, text: 'b' });
    expect(h.emulator.state.calls().map((call) => [call.op, call.notifies])).toEqual([
      ['create', true],
      ['update', false],
    ]);
    const notClient = await failure(
      h.chat.spaces.messages.patch({
        name: `${SPACE}/messages/XYZ`,
        updateMask: 'text',
        allowMissing: true,
        requestBody: { text: 'c' },
      }),
    );
    expect(notClient.status).toBe(400);
  });
});

describe('gchat emulator: delete', () => {
  it('deletes the app’s message; a later edit, get or delete is 404 NOT_FOUND', async () => {
    const { data } = await h.chat.spaces.messages.create({ parent: SPACE, requestBody: { text: 'bye' } });
    const deleted = await h.chat.spaces.messages.delete({ name: data.name! });
    expect(deleted).toMatchObject({ status: 200, data: {} });
    expect(h.emulator.state.messages(SPACE)[0]).toMatchObject({ id: data.name, deleted: true });

    for (const call of [
      h.chat.spaces.messages.patch({ name: data.name!, updateMask: 'text', requestBody: { text: 'again' } }),
      h.chat.spaces.messages.update({ name: data.name!, updateMask: 'text', requestBody: { text: 'again' } }),
      h.chat.spaces.messages.get({ name: data.name! }),
      h.chat.spaces.messages.delete({ name: data.name! }),
    ]) {
      const error = await failure(call);
      expect(error.status).toBe(404);
      expect(error.response.data.error).toMatchObject({ code: 404, status: 'NOT_FOUND' });
    }
  });

  it('an edit after a person deleted the message (POST /_emulator/delete) is 404 NOT_FOUND', async () => {
    const { data } = await h.chat.spaces.messages.create({ parent: SPACE, requestBody: { text: 'log' } });
    const res = await fetch(`${h.emulator.url}/_emulator/delete`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ messageId: data.name }),
    });
    expect(res.status).toBe(200);
    const error = await failure(
      h.chat.spaces.messages.patch({
        name: data.name!,
        updateMask: 'text',
        requestBody: { text: 'more log' },
      }),
    );
    expect(error.response.data.error).toMatchObject({ code: 404, status: 'NOT_FOUND' });
  });

  it('a message in another space is not found under this one', async () => {
    const { data } = await h.chat.spaces.messages.create({ parent: SPACE, requestBody: { text: 'here' } });
    const elsewhere = data.name!.replace('spaces/AAAA/', 'spaces/BBBB/');
    expect((await failure(h.chat.spaces.messages.get({ name: elsewhere }))).status).toBe(404);
  });
});
