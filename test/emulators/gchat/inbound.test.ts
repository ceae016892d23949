// spec: docs/emulators.md `POST /_emulator/inbound` — a person's message, a new thread unless `threadId`, answered
// with `{messageId, threadId}` in Google Chat's own formats (`spaces/S/messages/M`, `spaces/S/threads/T`).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { emulatorAnswer } from '../inspection.js';
import { type GchatHarness, personPosts, START_MS, startHarness } from './gchat-harness.js';

const SPACE = 'spaces/AAAA';

let h: GchatHarness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await h.close();
});

/** Any answer, a refusal included: these tests read its status. */
const inbound = (body: unknown) => emulatorAnswer(h.emulator.url, 'inbound', body);

describe('gchat emulator: inbound', () => {
  it('a person’s message opens a thread; a reply with threadId joins it; the app reads both as HUMAN messages', async () => {
    const root = await personPosts(h.emulator, { space: SPACE, text: 'build is red', user: 'alice' });
    expect(root.messageId).toMatch(/^spaces\/AAAA\/messages\/([A-Za-z0-9]{11})\.\1$/);
    expect(root.threadId).toMatch(/^spaces\/AAAA\/threads\/[A-Za-z0-9]{11}$/);
    expect(root.messageId.split('/').pop()!.split('.')[0]).toBe(root.threadId.split('/').pop());

    const second = await personPosts(h.emulator, {
      space: SPACE,
      text: 'any news?',
      threadId: root.threadId,
    });
    expect(second.threadId).toBe(root.threadId);

    const read = await h.chat.spaces.messages.get({ name: second.messageId });
    expect(read.data).toMatchObject({
      sender: { name: 'users/human', type: 'HUMAN' },
      thread: { name: root.threadId },
      threadReply: true,
      createTime: new Date(START_MS).toISOString(),
    });
    expect((await h.chat.spaces.messages.get({ name: root.messageId })).data.sender).toEqual({
      name: 'users/alice',
      type: 'HUMAN',
    });
    expect(h.emulator.state.calls().map((call) => [call.op, call.thread, call.notifies])).toEqual([
      ['inbound', null, false],
      ['inbound', root.threadId, false],
      ['other', root.threadId, false],
      ['other', null, false],
    ]);
  });

  it.each([
    [{ space: 'AAAA', text: 'x' }, /expected a Google Chat space name like spaces\/AAAA/],
    [{ space: SPACE, text: 'x', threadId: 'spaces/AAAA/threads/none' }, /no such thread in spaces\/AAAA/],
    [{ space: SPACE, text: 'x', thread: 'T' }, /thread/],
  ])('refuses bad input %j with 400 naming what is wrong', async (body, message) => {
    const res = await inbound(body);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(message);
  });

  it('a thread of another space is not a thread of this one', async () => {
    const root = await personPosts(h.emulator, { space: 'spaces/BBBB', text: 'x' });
    const res = await inbound({ space: SPACE, text: 'y', threadId: root.threadId });
    expect(res.status).toBe(400);
  });
});
