// spec: the gchat surface issue items 1 and 4 — post (top level, thread by name, thread by root message),
// edit (`updateMask: 'text'`), idempotent retry by client id, capabilities, react, bad input.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createGchatSurface, GCHAT_CAPABILITIES } from '../../../src/platforms/gchat/surface.js';
import { isSurfaceError } from '../../../src/surfaces/surface.js';
import { chatClient } from '../../emulators/gchat/gchat-harness.js';
import { logFrame, policyFrame, prose } from '../frames.js';
import { rejection, SPACE, SPACE_NAME, type SurfaceHarness, startSurfaceHarness } from './harness.js';

let h: SurfaceHarness;
beforeEach(async () => {
  h = await startSurfaceHarness();
});
afterEach(async () => {
  await h.close();
});

describe('gchat surface: post', () => {
  it('posts top-level text: a new thread, no reply option, and returns the message and thread names', async () => {
    const posted = await h.surface.post({ space: SPACE, frame: prose('All done.') });
    expect(posted.messageId).toMatch(/^spaces\/AAAA\/messages\//);
    expect(posted.threadId).toMatch(/^spaces\/AAAA\/threads\//);
    const [call] = h.calls();
    expect(call).toMatchObject({
      op: 'create',
      status: 200,
      messageId: posted.messageId,
      thread: null,
      notifies: true,
    });
    expect(call?.details).not.toHaveProperty('messageReplyOption');
    expect(h.emulator.state.messages(SPACE_NAME).map((m) => m.text)).toEqual(['All done.']);
  });

  it('replies in the thread named by the anchor with REPLY_MESSAGE_FALLBACK_TO_NEW_THREAD', async () => {
    const root = await h.personPosts('please fix the build');
    const posted = await h.surface.post({
      space: SPACE,
      frame: logFrame('tool: Read(a.ts)'),
      thread: { rootMessageId: root.messageId, threadId: root.threadId },
    });
    expect(posted.threadId).toBe(root.threadId);
    const creates = h.calls().filter((c) => c.op === 'create');
    expect(creates).toHaveLength(1);
    expect(creates[0]).toMatchObject({ thread: root.threadId, status: 200 });
    expect(creates[0]?.details).toMatchObject({
      messageReplyOption: 'REPLY_MESSAGE_FALLBACK_TO_NEW_THREAD',
      thread: { name: root.threadId },
      threadReply: true,
    });
  });

  it('finds the thread of a root message given without its thread (one read, not a write)', async () => {
    const root = await h.personPosts('hello');
    const posted = await h.surface.post({
      space: SPACE,
      frame: prose('log'),
      thread: { rootMessageId: root.messageId },
    });
    expect(posted.threadId).toBe(root.threadId);
    expect(h.calls().map((c) => [c.method, c.op, c.status])).toEqual([
      ['GET', 'other', 200],
      ['POST', 'create', 200],
    ]);
  });

  it('a root message that is gone is not-found', async () => {
    const root = await h.personPosts('hello');
    await h.personDeletes(root.messageId);
    const error = await rejection(
      h.surface.post({ space: SPACE, frame: prose('log'), thread: { rootMessageId: root.messageId } }),
    );
    expect(error).toMatchObject({ name: 'SurfaceError', kind: 'not-found' });
  });

  it('neutralizes mentions in the text: no <users/all> fires', async () => {
    await h.surface.post({ space: SPACE, frame: prose('• 12:00:00  tool: Bash(echo <users/all>)') });
    await h.surface.post({ space: SPACE, frame: prose('Answer for <users/all>') });
    expect(h.calls().map((c) => c.mentions)).toEqual([[], []]);
  });

  it('the same client id twice is one message; the replay notifies no one (requestId)', async () => {
    const root = await h.personPosts('hello');
    const req = { space: SPACE, frame: prose('log'), thread: { threadId: root.threadId }, clientId: 'T1:0' };
    const first = await h.surface.post(req);
    const again = await h.surface.post(req);
    expect(again).toEqual(first);
    const creates = h.calls().filter((c) => c.op === 'create');
    expect(creates.map((c) => [c.status, c.notifies, c.details?.requestId])).toEqual([
      [200, true, 'T1:0'],
      [200, false, 'T1:0'],
    ]);
    expect(creates[0]?.details?.messageId).toMatch(/^client-[0-9a-f]{40}$/);
    expect(h.emulator.state.messages(SPACE_NAME).filter((m) => m.text === 'log')).toHaveLength(1);
  });

  it('a long or unusual client id still gets a valid, stable requestId', async () => {
    const clientId = `turn with spaces/${'x'.repeat(100)}:0`;
    const first = await h.surface.post({ space: SPACE, frame: prose('log'), clientId });
    const again = await h.surface.post({ space: SPACE, frame: prose('log'), clientId });
    expect(again.messageId).toBe(first.messageId);
    const requestIds = h.calls().map((c) => c.details?.requestId);
    expect(requestIds[0]).toMatch(/^turnlog-[0-9a-f]{48}$/);
    expect(requestIds[1]).toBe(requestIds[0]);
  });

  it('a create whose client-assigned id already exists returns that message (no duplicate)', async () => {
    const first = await h.surface.post({ space: SPACE, frame: prose('log'), clientId: 'T1:0' });
    // An earlier attempt made the message under the same client-assigned id but a request id Google no longer matches.
    const messageId = h.calls()[0]?.details?.messageId as string;
    h.emulator.state.reset();
    await chatClient(h.emulator.url).spaces.messages.create({
      parent: SPACE_NAME,
      messageId,
      requestBody: { text: 'log' },
    });
    const again = await h.surface.post({ space: SPACE, frame: prose('log'), clientId: 'T1:0' });
    expect(again.messageId).not.toBe(first.messageId); // the emulator was reset: a new message name
    expect(h.calls().map((c) => [c.method, c.status])).toEqual([
      ['POST', 200],
      ['POST', 409],
      ['GET', 200],
    ]);
    expect(h.emulator.state.messages(SPACE_NAME)).toHaveLength(1);
    expect(again.messageId).toBe(h.emulator.state.messages(SPACE_NAME)[0]?.id);
  });
});

describe('gchat surface: edit', () => {
  it('patches the text with updateMask text; an edit notifies no one', async () => {
    const posted = await h.surface.post({ space: SPACE, frame: prose('v1') });
    await h.surface.edit({ space: SPACE, messageId: posted.messageId, frame: prose('v2') });
    const update = h.calls().find((c) => c.op === 'update');
    expect(update).toMatchObject({
      method: 'PATCH',
      status: 200,
      messageId: posted.messageId,
      notifies: false,
    });
    expect(update?.details).toMatchObject({ apiMethod: 'spaces.messages.patch', updateMask: 'text' });
    expect(h.emulator.state.messages(SPACE_NAME)[0]).toMatchObject({ text: 'v2', edits: 1 });
  });

  it('a message a person deleted is not-found', async () => {
    const posted = await h.surface.post({ space: SPACE, frame: prose('v1') });
    await h.personDeletes(posted.messageId);
    const error = await rejection(
      h.surface.edit({ space: SPACE, messageId: posted.messageId, frame: prose('v2') }),
    );
    expect(isSurfaceError(error)).toBe(true);
    expect(error).toMatchObject({ kind: 'not-found', details: { status: 404, code: 'NOT_FOUND' } });
  });

  it("a person's message is forbidden (an app edits only its own)", async () => {
    const mine = await h.personPosts('my words');
    const error = await rejection(
      h.surface.edit({ space: SPACE, messageId: mine.messageId, frame: prose('x') }),
    );
    expect(error).toMatchObject({ kind: 'forbidden', details: { status: 403 } });
    expect(error.message).toContain('PERMISSION_DENIED');
  });
});

describe('gchat surface: shape and input', () => {
  it('declares the Google Chat capabilities', () => {
    expect(h.surface.platform).toBe('gchat');
    expect(h.surface.capabilities).toEqual({
      maxChars: 7000,
      silentPosts: true,
      idempotentCreate: true,
      maxButtons: 25,
    });
    expect(GCHAT_CAPABILITIES).toEqual(h.surface.capabilities);
  });

  it('refuses a space of another platform or a malformed one, by name, without a call', async () => {
    for (const space of ['slack:C123', 'gchat:AAAA', 'gchat:spaces/A/B']) {
      const error = await rejection(h.surface.post({ space, frame: prose('x') }));
      expect(error).toMatchObject({ kind: 'invalid' });
      expect(error.message).toContain(JSON.stringify(space));
    }
    expect(h.calls()).toEqual([]);
  });

  it('refuses to edit a message of another space, and an anchor with nothing usable', async () => {
    const edit = await rejection(
      h.surface.edit({ space: SPACE, messageId: 'spaces/BBBB/messages/x.y', frame: prose('x') }),
    );
    expect(edit.message).toMatch(/not a message of spaces\/AAAA/);
    const post = await rejection(
      h.surface.post({ space: SPACE, frame: prose('x'), thread: { threadId: '1700000000.0001' } }),
    );
    expect(post).toMatchObject({ kind: 'invalid' });
    expect(h.calls()).toEqual([]);
  });

  it('refuses an empty client id and a card without a request id as invalid, without a call', async () => {
    const noId = await rejection(h.surface.post({ space: SPACE, frame: prose('x'), clientId: '' }));
    expect(noId).toMatchObject({ kind: 'invalid', message: 'a client id must not be empty' });
    const noRequest = await rejection(h.surface.post({ space: SPACE, frame: policyFrame('', 'ls') }));
    expect(noRequest).toMatchObject({ kind: 'invalid' });
    expect(noRequest.message).toMatch(/empty id/);
    expect(h.calls()).toEqual([]);
  });

  it('refuses reactions: Google Chat needs user authentication for them', async () => {
    const posted = await h.surface.post({ space: SPACE, frame: prose('x') });
    const error = await rejection(
      h.surface.react({ space: SPACE, messageId: posted.messageId, emoji: '👀' }),
    );
    expect(error).toMatchObject({ kind: 'invalid' });
    expect(error.message).toMatch(/user authentication/);
  });

  it('strict: text over 4096 characters is invalid before any call', async () => {
    const strict = createGchatSurface({ apiUrl: h.emulator.url, strict: true });
    const error = await rejection(strict.post({ space: SPACE, frame: prose('x'.repeat(4097)) }));
    expect(error).toMatchObject({ kind: 'invalid' });
    expect(error.message).toMatch(/4097 characters; strict mode allows 4096/);
    await strict.post({ space: SPACE, frame: prose('x'.repeat(4096)) });
    expect(h.calls().map((c) => c.status)).toEqual([200]);
  });

  it('ready() is true when the emulator answers', async () => {
    expect(await h.surface.ready?.()).toBe(true);
  });
});
