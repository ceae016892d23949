// spec: emulators issue item 6 "DM without threads"; docs/events.md (Discord/GChat DMs post top-level).
// A DM space is one whose id starts with `dm-` or one listed in `dmSpaces`.
import { afterEach, describe, expect, it } from 'vitest';
import { failure, type GchatHarness, personPosts, startHarness } from './gchat-harness.js';

let h: GchatHarness;
afterEach(async () => {
  await h.close();
});

describe('gchat emulator: direct messages', () => {
  it('spaces.get tells a DM (DIRECT_MESSAGE, unthreaded) from a named space (SPACE, threaded)', async () => {
    h = await startHarness({ dmSpaces: ['spaces/AAAAxyz'] });
    const dm = await h.chat.spaces.get({ name: 'spaces/dm-alice' });
    expect(dm.data).toMatchObject({
      name: 'spaces/dm-alice',
      spaceType: 'DIRECT_MESSAGE',
      type: 'DM',
      singleUserBotDm: true,
      spaceThreadingState: 'UNTHREADED_MESSAGES',
    });
    const configured = await h.chat.spaces.get({ name: 'spaces/AAAAxyz' });
    expect(configured.data.spaceType).toBe('DIRECT_MESSAGE');
    const room = await h.chat.spaces.get({ name: 'spaces/team' });
    expect(room.data).toMatchObject({
      spaceType: 'SPACE',
      type: 'ROOM',
      spaceThreadingState: 'THREADED_MESSAGES',
    });
  });

  it('ignores a thread reply in a DM: the message lands top-level in a thread of its own', async () => {
    h = await startHarness();
    const space = 'spaces/dm-alice';
    const person = await personPosts(h.emulator, { space, text: 'hi' });
    for (const messageReplyOption of ['REPLY_MESSAGE_FALLBACK_TO_NEW_THREAD', 'REPLY_MESSAGE_OR_FAIL']) {
      const { data } = await h.chat.spaces.messages.create({
        parent: space,
        messageReplyOption,
        requestBody: { text: 'log', thread: { name: person.threadId } },
      });
      expect(data.threadReply).toBe(false);
      expect(data.thread!.name).not.toBe(person.threadId);
    }
    expect(h.emulator.state.messages(space).map((message) => message.thread)).toEqual([null, null, null]);
    const creates = h.emulator.state.calls().filter((call) => call.op === 'create');
    expect(creates.map((call) => [call.thread, call.notifies, call.details?.threadRequest])).toEqual([
      [null, true, 'ignored in a direct message'],
      [null, true, 'ignored in a direct message'],
    ]);
  });

  it('refuses an inbound thread reply in a DM (400 naming the DM)', async () => {
    h = await startHarness();
    const person = await personPosts(h.emulator, { space: 'spaces/dm-bob', text: 'hi' });
    const res = await fetch(`${h.emulator.url}/_emulator/inbound`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ space: 'spaces/dm-bob', text: 'more', threadId: person.threadId }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toMatch(/spaces\/dm-bob is a direct message/);
  });

  it('refuses a malformed space name with 400 INVALID_ARGUMENT', async () => {
    h = await startHarness();
    const error = await failure(
      h.chat.spaces.messages.create({ parent: 'spaces/dm alice', requestBody: { text: 'x' } }),
    );
    expect(error.response.data.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' });
  });
});
