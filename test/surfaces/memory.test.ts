// spec: docs/library.md "createMemorySurface(opts?) — an in-process ChatSurface whose `calls` have the same
// shape as an emulator's `/_emulator/calls` and whose `fail(rule)` takes the same rules as `/_emulator/faults`".
import { describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { isSurfaceError, type SurfaceError } from '../../src/surfaces/surface.js';
import { createMemorySurface, type MemorySurface } from '../../src/testing/memory-surface.js';
import { prose } from './frames.js';

const SPACE = 'gchat:spaces/AAAA';

function surfaceWithClock(opts: Parameters<typeof createMemorySurface>[0] = {}) {
  const clock = new SimulatedClock();
  clock.set(1_700_000_000_000);
  return { clock, surface: createMemorySurface({ now: () => clock.now(), ...opts }) };
}

async function failureOf(call: Promise<unknown>): Promise<SurfaceError> {
  const error = await call.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (e: unknown) => e,
  );
  if (!isSurfaceError(error)) throw error;
  return error;
}

/** Lets every already-queued callback run, without waiting on time. */
const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('memory surface: posts, threads and edits', () => {
  it('records a top-level post in the /_emulator/calls shape and shows it in messages()', async () => {
    const { surface } = surfaceWithClock();
    expect(surface.platform).toBe('gchat');
    const posted = await surface.post({ space: SPACE, frame: prose('the answer') });
    expect(posted).toEqual({ messageId: 'm1' });
    expect(surface.calls).toEqual([
      {
        seq: 1,
        at: 1_700_000_000_000,
        method: 'POST',
        path: '/spaces/AAAA/messages',
        op: 'create',
        status: 200,
        space: 'spaces/AAAA',
        thread: null,
        messageId: 'm1',
        text: 'the answer',
        notifies: true,
        mentions: [],
        details: { frame: prose('the answer') },
      },
    ]);
    expect(surface.frameOf('m1')).toEqual(prose('the answer'));
    expect(surface.messages(SPACE)).toEqual(surface.messages('spaces/AAAA'));
    expect(surface.messages(SPACE)).toEqual([
      {
        id: 'm1',
        thread: null,
        text: 'the answer',
        createdAt: 1_700_000_000_000,
        updatedAt: null,
        edits: 0,
        deleted: false,
        reactions: [],
      },
    ]);
  });

  it('posts in the thread of the root message (thread id = root id) or of a known thread id', async () => {
    const { surface } = surfaceWithClock();
    const root = surface.inbound({ space: SPACE, text: 'can you fix the build?' });
    expect(root).toEqual({ messageId: 'm1', threadId: 'm1' });
    const log = await surface.post({
      space: SPACE,
      frame: prose('log'),
      thread: { rootMessageId: root.messageId },
    });
    expect(log).toEqual({ messageId: 'm2', threadId: 'm1' });
    const next = await surface.post({
      space: SPACE,
      frame: prose('more'),
      thread: { threadId: log.threadId! },
    });
    expect(next).toEqual({ messageId: 'm3', threadId: 'm1' });
    expect(surface.calls.map((c) => [c.op, c.thread, c.notifies])).toEqual([
      ['inbound', null, false],
      ['create', 'm1', true],
      ['create', 'm1', true],
    ]);
  });

  it('a thread on a missing or deleted root is not-found, an empty anchor invalid; both recorded', async () => {
    const { surface } = surfaceWithClock();
    expect(
      (await failureOf(surface.post({ space: SPACE, frame: prose('x'), thread: { rootMessageId: 'm9' } })))
        .kind,
    ).toBe('not-found');
    const root = surface.inbound({ space: SPACE, text: 'hi' });
    surface.deleteMessage(root.messageId);
    expect(
      (
        await failureOf(
          surface.post({ space: SPACE, frame: prose('x'), thread: { rootMessageId: root.messageId } }),
        )
      ).kind,
    ).toBe('not-found');
    const empty = await failureOf(surface.post({ space: SPACE, frame: prose('x'), thread: {} }));
    expect(empty.kind).toBe('invalid');
    expect(empty.message).toContain('thread anchor needs a rootMessageId or a threadId');
    expect(surface.calls.map((c) => [c.op, c.status])).toEqual([
      ['create', 404],
      ['inbound', 200],
      ['delete', 200],
      ['create', 404],
      ['create', 400],
    ]);
    expect(surface.messages(SPACE)).toHaveLength(1);
  });

  it('an edit replaces the text, counts, never notifies; after a person deletes the message it is not-found', async () => {
    const { clock, surface } = surfaceWithClock();
    const { messageId } = await surface.post({ space: SPACE, frame: prose('v1') });
    clock.increment(2000);
    await surface.edit({ space: SPACE, messageId, frame: prose('v2') });
    expect(surface.messages(SPACE)[0]).toMatchObject({ text: 'v2', edits: 1, updatedAt: 1_700_000_002_000 });
    expect(surface.calls[1]).toMatchObject({
      op: 'update',
      method: 'PATCH',
      path: '/spaces/AAAA/messages/m1',
      status: 200,
      messageId: 'm1',
      text: 'v2',
      notifies: false,
    });

    surface.deleteMessage(messageId);
    expect(surface.messages(SPACE)[0]).toMatchObject({ deleted: true });
    const gone = await failureOf(surface.edit({ space: SPACE, messageId, frame: prose('v3') }));
    expect(gone.kind).toBe('not-found');
    expect(surface.calls.at(-1)).toMatchObject({ op: 'update', status: 404, notifies: false });
    expect((await failureOf(surface.edit({ space: SPACE, messageId: 'm77', frame: prose('x') }))).kind).toBe(
      'not-found',
    );
  });

  it('an app cannot edit a person’s message (forbidden), nor a message of another space (not-found)', async () => {
    const { surface } = surfaceWithClock();
    const person = surface.inbound({ space: SPACE, text: 'mine' });
    expect(
      (await failureOf(surface.edit({ space: SPACE, messageId: person.messageId, frame: prose('x') }))).kind,
    ).toBe('forbidden');
    const own = await surface.post({ space: SPACE, frame: prose('bot') });
    expect(
      (
        await failureOf(
          surface.edit({ space: 'gchat:spaces/BBBB', messageId: own.messageId, frame: prose('x') }),
        )
      ).kind,
    ).toBe('not-found');
  });

  it('refuses a space of another platform as invalid, naming it', async () => {
    const { surface } = surfaceWithClock();
    const error = await failureOf(surface.post({ space: 'slack:C0123', frame: prose('x') }));
    expect(error.kind).toBe('invalid');
    expect(error.message).toBe('space "slack:C0123" is not a gchat space (gchat:…)');
  });

  it('reactions are recorded with the emoji and need a live message', async () => {
    const { surface } = surfaceWithClock();
    const { messageId } = await surface.post({ space: SPACE, frame: prose('done') });
    await surface.react({ space: SPACE, messageId, emoji: '✅' });
    expect(surface.calls[1]).toMatchObject({
      op: 'reaction',
      path: '/spaces/AAAA/messages/m1/reactions',
      notifies: false,
      details: { emoji: '✅' },
    });
    surface.deleteMessage(messageId);
    expect((await failureOf(surface.react({ space: SPACE, messageId, emoji: '✅' }))).kind).toBe('not-found');
  });
});

describe('memory surface: capabilities', () => {
  it('a post or edit over maxChars is invalid; at maxChars it lands', async () => {
    const { surface } = surfaceWithClock({ platform: 'discord' });
    const space = 'discord:123456789012345678';
    expect(surface.capabilities.maxChars).toBe(2000);
    const { messageId } = await surface.post({ space, frame: prose('x'.repeat(2000)) });
    const tooLong = await failureOf(surface.post({ space, frame: prose('x'.repeat(2001)) }));
    expect(tooLong.kind).toBe('invalid');
    expect(tooLong.message).toContain('over the discord limit of 2000');
    expect((await failureOf(surface.edit({ space, messageId, frame: prose('y'.repeat(2001)) }))).kind).toBe(
      'invalid',
    );
    expect(surface.calls.map((c) => c.status)).toEqual([200, 400, 400]);

    const small = createMemorySurface({ capabilities: { maxChars: 5 } });
    expect((await failureOf(small.post({ space: SPACE, frame: prose('sixsix') }))).kind).toBe('invalid');
  });

  it('with idempotentCreate a repeated clientId returns the existing message and notifies no one', async () => {
    const { surface } = surfaceWithClock();
    expect(surface.capabilities.idempotentCreate).toBe(true);
    const first = await surface.post({ space: SPACE, frame: prose('log'), clientId: 'turn-1-0' });
    const again = await surface.post({ space: SPACE, frame: prose('log'), clientId: 'turn-1-0' });
    expect(again).toEqual(first);
    expect(surface.messages(SPACE)).toHaveLength(1);
    expect(surface.calls.map((c) => [c.op, c.messageId, c.notifies, c.details?.idempotentReplay])).toEqual([
      ['create', 'm1', true, undefined],
      ['create', 'm1', false, true],
    ]);
  });

  it('without idempotentCreate the same clientId creates a second message', async () => {
    const surface = createMemorySurface({ platform: 'slack' });
    await surface.post({ space: 'slack:C1', frame: prose('log'), clientId: 'turn-1-0' });
    await surface.post({ space: 'slack:C1', frame: prose('log'), clientId: 'turn-1-0' });
    expect(surface.messages('slack:C1').map((m) => m.id)).toEqual(['m1', 'm2']);
  });

  it('a silent post notifies no one only where the platform has silent posts', async () => {
    const discord = createMemorySurface({ platform: 'discord' });
    await discord.post({ space: 'discord:42', frame: prose('rollover'), silent: true });
    await discord.post({ space: 'discord:42', frame: prose('first') });
    expect(discord.calls.map((c) => c.notifies)).toEqual([false, true]);

    // Google Chat has silent posts too (NOTIFICATION_TYPE_SILENT); Slack has none.
    const gchat = createMemorySurface();
    await gchat.post({ space: SPACE, frame: prose('rollover'), silent: true });
    expect(gchat.calls[0]?.notifies).toBe(false);

    const slack = createMemorySurface({ platform: 'slack' });
    await slack.post({ space: 'slack:C42', frame: prose('rollover'), silent: true });
    expect(slack.calls[0]?.notifies).toBe(true);
  });

  it('records the broad mentions each platform would parse, on posts and edits', async () => {
    const gchat = createMemorySurface();
    const { messageId } = await gchat.post({ space: SPACE, frame: prose('ping <users/all> @everyone') });
    await gchat.edit({ space: SPACE, messageId, frame: prose('now <users/all>') });
    expect(gchat.calls.map((c) => c.mentions)).toEqual([['<users/all>'], ['<users/all>']]);

    const discord = createMemorySurface({ platform: 'discord' });
    await discord.post({ space: 'discord:42', frame: prose('@everyone look <!channel>') });
    expect(discord.calls[0]?.mentions).toEqual(['@everyone']);
  });
});

describe('memory surface: fail(rule)', () => {
  it.each([
    [404, 'not-found'],
    [429, 'rate-limited'],
    [500, 'transient'],
    [503, 'transient'],
    [408, 'transient'],
    [401, 'forbidden'],
    [403, 'forbidden'],
    [400, 'invalid'],
    [413, 'invalid'],
    [422, 'invalid'],
  ])('status %i → %s, recorded with that status', async (status, kind) => {
    const surface = createMemorySurface();
    surface.fail({ op: 'create', status, times: 1 });
    const error = await failureOf(surface.post({ space: SPACE, frame: prose('x') }));
    expect(error.kind).toBe(kind);
    expect(error.details.status).toBe(status);
    expect(surface.calls[0]).toMatchObject({
      op: 'create',
      status,
      notifies: false,
      details: { rejectedBy: 'fault' },
    });
    expect(surface.messages(SPACE)).toEqual([]);
    await surface.post({ space: SPACE, frame: prose('x') });
    expect(surface.messages(SPACE)).toHaveLength(1);
  });

  it('429 carries retryAfterMs from retryAfterS, 1 s by default', async () => {
    const surface = createMemorySurface();
    surface.fail({ status: 429, retryAfterS: 3, times: 1 });
    surface.fail({ status: 429, times: 1 });
    expect((await failureOf(surface.post({ space: SPACE, frame: prose('x') }))).retryAfterMs).toBe(3000);
    expect((await failureOf(surface.post({ space: SPACE, frame: prose('x') }))).retryAfterMs).toBe(1000);
  });

  it('matches by op, method and path like the emulators, and fails every match without times', async () => {
    const surface = createMemorySurface();
    const a = await surface.post({ space: SPACE, frame: prose('a') });
    const b = await surface.post({ space: SPACE, frame: prose('b') });
    surface.fail({ method: 'PATCH', path: `/messages/${a.messageId}`, status: 404 });
    for (let i = 0; i < 2; i++) {
      expect(
        (await failureOf(surface.edit({ space: SPACE, messageId: a.messageId, frame: prose('x') }))).kind,
      ).toBe('not-found');
    }
    await surface.edit({ space: SPACE, messageId: b.messageId, frame: prose('ok') });
    expect(surface.messages(SPACE).map((m) => m.text)).toEqual(['a', 'ok']);
  });

  it('rejects a bad rule naming the field', () => {
    const surface = createMemorySurface();
    expect(() => surface.fail({ status: 'oops' as unknown as number })).toThrow(/rules\[0\]\.status/);
  });
});

describe('memory surface: pause, resume and abort', () => {
  const tracked = (promise: Promise<unknown>) => {
    const state = { settled: false };
    promise.then(
      () => {
        state.settled = true;
      },
      () => {
        state.settled = true;
      },
    );
    return state;
  };

  it('holds calls while paused and runs them in order on resume', async () => {
    const surface: MemorySurface = createMemorySurface();
    surface.pause();
    const first = surface.post({ space: SPACE, frame: prose('first') });
    const second = surface.post({ space: SPACE, frame: prose('second') });
    const firstState = tracked(first);
    await flush();
    expect(firstState.settled).toBe(false);
    expect(surface.calls).toEqual([]);
    // A person's message still lands while the app's call is in flight.
    surface.inbound({ space: SPACE, text: 'meanwhile' });

    surface.resume();
    expect(await first).toEqual({ messageId: 'm2' });
    expect(await second).toEqual({ messageId: 'm3' });
    expect(surface.messages(SPACE).map((m) => m.text)).toEqual(['meanwhile', 'first', 'second']);
  });

  it('an aborted call rejects with an AbortError and changes nothing, paused or not', async () => {
    const surface = createMemorySurface();
    const already = new AbortController();
    already.abort();
    await expect(
      surface.post({ space: SPACE, frame: prose('x') }, { signal: already.signal }),
    ).rejects.toMatchObject({
      name: 'AbortError',
    });

    surface.pause();
    const controller = new AbortController();
    const held = surface.post({ space: SPACE, frame: prose('held') }, { signal: controller.signal });
    const kept = surface.post({ space: SPACE, frame: prose('kept') });
    controller.abort();
    await expect(held).rejects.toMatchObject({ name: 'AbortError' });
    surface.resume();
    await kept;
    expect(surface.messages(SPACE).map((m) => m.text)).toEqual(['kept']);
    expect(surface.calls.map((c) => c.text)).toEqual(['kept']);
  });
});
