// spec: emulators issue "a record of every call saying whether it would have buzzed a person's phone";
// docs/emulators.md `notifies` and `mentions`; docs/events.md "user-supplied text cannot mention … everyone".
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type GchatHarness, personPosts, startHarness } from './gchat-harness.js';

const SPACE = 'spaces/AAAA';

let h: GchatHarness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await h.close();
});

const reply = (threadName: string, text: string, extra: Record<string, unknown> = {}) =>
  h.chat.spaces.messages.create({
    parent: SPACE,
    messageReplyOption: 'REPLY_MESSAGE_FALLBACK_TO_NEW_THREAD',
    requestBody: { text, thread: { name: threadName } },
    ...extra,
  });

describe('gchat emulator: notification accounting', () => {
  it('one turn: the person’s message and the log edits do not notify; the first log post and the answer do', async () => {
    const root = await personPosts(h.emulator, { space: SPACE, text: 'deploy it', user: 'alice' });
    const log = await reply(root.threadId, '• tool: Read(a.ts)');
    for (const text of [
      '• tool: Read(a.ts)\n• tool: Grep(x)',
      '• tool: Read(a.ts)\n• tool: Grep(x)\n• done',
    ]) {
      await h.chat.spaces.messages.patch({ name: log.data.name!, updateMask: 'text', requestBody: { text } });
    }
    await h.chat.spaces.messages.create({ parent: SPACE, requestBody: { text: 'Deployed.' } });

    const calls = h.emulator.state.calls();
    expect(calls.map((call) => [call.op, call.notifies])).toEqual([
      ['inbound', false],
      ['create', true],
      ['update', false],
      ['update', false],
      ['create', true],
    ]);
    expect(calls[1]!.details).toMatchObject({ audience: 'thread', notified: ['users/alice'] });
    expect(calls[4]!.details).toMatchObject({ audience: 'space' });
  });

  it('a reply in a thread no person has posted in notifies no one', async () => {
    const top = await h.chat.spaces.messages.create({ parent: SPACE, requestBody: { text: 'status board' } });
    await reply(top.data.thread!.name!, 'update 1');
    const [, replyCall] = h.emulator.state.calls();
    expect(replyCall).toMatchObject({ notifies: false, details: { audience: 'thread', notified: [] } });
  });

  it('NOTIFICATION_TYPE_SILENT suppresses the notification and marks the message silent', async () => {
    const root = await personPosts(h.emulator, { space: SPACE, text: 'go' });
    const { data } = await reply(root.threadId, 'quiet log', {
      'createMessageNotificationOptions.notificationType': 'NOTIFICATION_TYPE_SILENT',
    });
    expect(data.silent).toBe(true);
    expect(h.emulator.state.calls()[1]).toMatchObject({
      notifies: false,
      details: { notificationType: 'NOTIFICATION_TYPE_SILENT', notified: [] },
    });
  });

  it('records <users/all> as a fired mention on create and edit', async () => {
    const { data } = await h.chat.spaces.messages.create({
      parent: SPACE,
      requestBody: { text: 'ping <users/all>' },
    });
    await h.chat.spaces.messages.patch({
      name: data.name!,
      updateMask: 'text',
      requestBody: { text: 'still <users/all>' },
    });
    expect(h.emulator.state.calls().map((call) => call.mentions)).toEqual([['<users/all>'], ['<users/all>']]);
  });

  it('no broad mention fires when user text is sent in the safe form (zero-width space after "<")', async () => {
    const userText = 'tool output: <users/all> @all <!channel> @everyone';
    const safe = userText.replaceAll('<', '<\u200b');
    const root = await personPosts(h.emulator, { space: SPACE, text: 'run it' });
    const log = await reply(root.threadId, safe);
    await h.chat.spaces.messages.patch({
      name: log.data.name!,
      updateMask: 'text',
      requestBody: { text: `${safe}\n${safe}` },
    });
    await h.chat.spaces.messages.create({ parent: SPACE, requestBody: { text: safe } });
    const appCalls = h.emulator.state.calls().filter((call) => call.op !== 'inbound');
    expect(appCalls).toHaveLength(3);
    expect(appCalls.flatMap((call) => call.mentions)).toEqual([]);
  });

  it('a refused call notifies no one and fires no mention', async () => {
    await h.chat.spaces.messages
      .create({ parent: SPACE, messageId: 'BAD', requestBody: { text: '<users/all>' } })
      .catch(() => undefined);
    expect(h.emulator.state.calls()).toEqual([
      expect.objectContaining({ status: 400, op: 'create', notifies: false, mentions: [] }),
    ]);
  });
});
