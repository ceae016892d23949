// spec: docs/emulators.md "POST /_emulator/inbound … a person posts a message (a new thread unless `threadId`
// is given); answers {messageId, threadId} in the platform's own id format" — for Discord, a message
// snowflake, and the thread id a reply would go in (= the starter message id).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Harness, personSays, recordedCalls, startHarness } from './harness.js';

const CHANNEL = '1900000000000000001';
const DM = '1900000000000000002';

let h: Harness;
beforeEach(async () => {
  h = await startHarness({ channels: [{ id: DM, type: 1 }] });
});
afterEach(async () => {
  await h.close();
});

describe('discord emulator: /_emulator/inbound', () => {
  it('answers a snowflake messageId, and threadId = messageId for a new top-level message', async () => {
    const inbound = await personSays(h, { space: CHANNEL, text: 'hello', user: '1950000000000000001' });
    expect(inbound.messageId).toMatch(/^\d{17,20}$/);
    expect(inbound.threadId).toBe(inbound.messageId);
    const message = await h.client().api.channels.getMessage(CHANNEL, inbound.messageId);
    expect(message).toMatchObject({ content: 'hello', author: { id: '1950000000000000001' } });
    expect(message.author.bot).toBeUndefined();
    expect((await recordedCalls(h))[0]).toMatchObject({
      op: 'inbound',
      space: CHANNEL,
      thread: null,
      notifies: false,
      details: { user: '1950000000000000001' },
    });
  });

  it('with threadId posts in the thread, starting it when the person replies to a message without one', async () => {
    const root = await personSays(h, { space: CHANNEL, text: 'first' });
    const reply = await personSays(h, { space: CHANNEL, text: 'second', threadId: root.messageId });
    expect(reply.threadId).toBe(root.messageId);
    const thread = await h.client().api.channels.get(root.messageId);
    expect(thread).toMatchObject({ type: 11, parent_id: CHANNEL, name: 'first', message_count: 1 });
    const messages = (await h.raw('GET', `/_emulator/messages?space=${CHANNEL}`)).body.messages;
    expect(messages.map((m: { thread: string | null }) => m.thread)).toEqual([null, root.messageId]);
  });

  it('reopens an archived thread, as a person posting in it does', async () => {
    const root = await personSays(h, { space: CHANNEL, text: 'first' });
    await personSays(h, { space: CHANNEL, text: 'second', threadId: root.messageId });
    h.emulator.archiveThread(root.messageId);
    await personSays(h, { space: CHANNEL, text: 'third', threadId: root.messageId });
    expect(await h.client().api.channels.get(root.messageId)).toMatchObject({
      thread_metadata: { archived: false },
    });
  });

  it('refuses, naming the problem: a thread in a DM, an unknown thread root, a thread id as space, a bad id', async () => {
    const inDm = await personSays(h, { space: DM, text: 'hi' });
    const refusals = await Promise.all([
      h.raw('POST', '/_emulator/inbound', { space: DM, text: 'x', threadId: inDm.messageId }),
      h.raw('POST', '/_emulator/inbound', { space: CHANNEL, text: 'x', threadId: '1234567890123456789' }),
      h.raw('POST', '/_emulator/inbound', { space: 'general', text: 'x' }),
    ]);
    expect(refusals.map((res) => [res.status, res.body.error])).toEqual([
      [400, `Discord DMs have no threads: leave out threadId for DM channel ${DM}`],
      [404, `no message 1234567890123456789 in channel ${CHANNEL} to start a thread on`],
      [400, 'space "general" is not a Discord channel id (snowflake digits)'],
    ]);
    const root = await personSays(h, { space: CHANNEL, text: 'root' });
    await personSays(h, { space: CHANNEL, text: 'reply', threadId: root.messageId });
    const asSpace = await h.raw('POST', '/_emulator/inbound', { space: root.messageId, text: 'x' });
    expect(asSpace.body.error).toBe(
      `${root.messageId} is a thread: post in it with {space: "${CHANNEL}", threadId: "${root.messageId}"}`,
    );
  });

  it('in strict mode refuses an undeclared channel with 404', async () => {
    const strict = await startHarness({ strict: true });
    try {
      const res = await strict.raw('POST', '/_emulator/inbound', { space: CHANNEL, text: 'x' });
      expect(res).toMatchObject({
        status: 404,
        body: { error: `unknown channel ${CHANNEL}: declare it with the channels option` },
      });
    } finally {
      await strict.close();
    }
  });

  it('a person can delete a message; reset clears messages and calls but keeps declared channels', async () => {
    const inbound = await personSays(h, { space: DM, text: 'oops' });
    await h.raw('POST', '/_emulator/delete', { messageId: inbound.messageId });
    expect((await h.raw('GET', `/_emulator/messages?space=${DM}`)).body.messages[0].deleted).toBe(true);
    await h.raw('POST', '/_emulator/reset');
    expect((await h.raw('GET', `/_emulator/messages?space=${DM}`)).body.messages).toEqual([]);
    expect(await recordedCalls(h)).toEqual([]);
    expect(await h.client().api.channels.get(DM)).toMatchObject({ type: 1 });
  });
});
