// spec: the gchat surface issue items 1 and 4 — error mapping (404 → not-found, 429 → rate-limited with an
// exponential per-space backoff 1 s … 32 s reset on success, 5xx/timeouts/network → transient, 401/403 →
// forbidden, 400 → invalid with Google's message), cards with the plain-text fallback on 400, abort.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createGchatSurface } from '../../../src/platforms/gchat/surface.js';
import { chatClient } from '../../emulators/gchat/gchat-harness.js';
import { policyFrame, prose } from '../frames.js';
import { rejection, SPACE, SPACE_NAME, type SurfaceHarness, startSurfaceHarness } from './harness.js';

let h: SurfaceHarness;
beforeEach(async () => {
  h = await startSurfaceHarness();
});
afterEach(async () => {
  await h.close();
});

const retryAfters = async (n: number, call: () => Promise<unknown>): Promise<unknown[]> => {
  const waits: unknown[] = [];
  for (let i = 0; i < n; i++) {
    const error = await rejection(call());
    expect(error).toMatchObject({
      kind: 'rate-limited',
      details: { status: 429, code: 'RESOURCE_EXHAUSTED' },
    });
    waits.push(error.retryAfterMs);
  }
  return waits;
};

describe('gchat surface: 429 backoff', () => {
  it('grows 1 s, 2 s, 4 s … capped at 32 s while a space keeps answering 429, and resets after a success', async () => {
    const posted = await h.surface.post({ space: SPACE, frame: prose('v1') });
    await h.faults([{ op: 'update', status: 429, times: 7 }]);
    const edit = () => h.surface.edit({ space: SPACE, messageId: posted.messageId, frame: prose('v2') });
    expect(await retryAfters(7, edit)).toEqual([1000, 2000, 4000, 8000, 16_000, 32_000, 32_000]);
    await edit();
    await h.faults([{ op: 'update', status: 429, times: 1 }]);
    expect(await retryAfters(1, edit)).toEqual([1000]);
  });

  it('keeps one backoff per space: a busy space does not slow another', async () => {
    await h.faults([
      { op: 'create', path: 'AAAA', status: 429, times: 3 },
      { op: 'create', path: 'BBBB', status: 429, times: 1 },
    ]);
    expect(await retryAfters(3, () => h.surface.post({ space: SPACE, frame: prose('x') }))).toEqual([
      1000, 2000, 4000,
    ]);
    expect(
      await retryAfters(1, () => h.surface.post({ space: 'gchat:spaces/BBBB', frame: prose('x') })),
    ).toEqual([1000]);
  });

  it("the emulator's real per-space quota (60 writes/min, no Retry-After) is rate-limited with the backoff", async () => {
    await h.limits([{ op: '*', scope: 'space', limit: 2, windowS: 60 }]);
    await h.surface.post({ space: SPACE, frame: prose('a') });
    await h.surface.post({ space: SPACE, frame: prose('b') });
    expect(await retryAfters(2, () => h.surface.post({ space: SPACE, frame: prose('c') }))).toEqual([
      1000, 2000,
    ]);
    h.clock.increment(60_000);
    await h.surface.post({ space: SPACE, frame: prose('c') });
    expect(h.calls().map((c) => c.status)).toEqual([200, 200, 429, 429, 200]);
  });

  it('a Retry-After header, when one comes, wins over the backoff', async () => {
    await h.faults([{ op: 'create', status: 429, retryAfterS: 3, times: 1 }]);
    expect(await retryAfters(1, () => h.surface.post({ space: SPACE, frame: prose('x') }))).toEqual([3000]);
  });
});

describe('gchat surface: error taxonomy', () => {
  it.each([
    [500, 'transient'],
    [503, 'transient'],
    [408, 'transient'],
    [401, 'forbidden'],
    [403, 'forbidden'],
    [404, 'not-found'],
    [400, 'invalid'],
  ] as const)('an HTTP %i on create is %s and names the call', async (status, kind) => {
    await h.faults([{ op: 'create', status, times: 1 }]);
    const error = await rejection(h.surface.post({ space: SPACE, frame: prose('x') }));
    expect(error).toMatchObject({ name: 'SurfaceError', kind, details: { status } });
    expect(error.message).toContain(`spaces.messages.create in ${SPACE_NAME}: HTTP ${status}`);
    expect(error.retryAfterMs).toBeUndefined();
  });

  it("a 400 carries Google's own message", async () => {
    const error = await rejection(h.surface.post({ space: SPACE, frame: prose('') }));
    expect(error).toMatchObject({ kind: 'invalid', details: { status: 400, code: 'INVALID_ARGUMENT' } });
    expect(error.message).toMatch(/INVALID_ARGUMENT: Message cannot be empty/);
  });

  it('a refused connection is transient', async () => {
    const url = h.emulator.url;
    await h.close();
    const surface = createGchatSurface({ apiUrl: url });
    const error = await rejection(surface.post({ space: SPACE, frame: prose('x') }));
    expect(error).toMatchObject({ kind: 'transient' });
    expect(error.message).toMatch(/no answer from Google Chat/);
    await expect(surface.ready?.()).rejects.toThrow(/did not answer/);
    h = await startSurfaceHarness();
  });

  it('a request without an answer within requestTimeoutMs is transient', async () => {
    const silent: Server = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = silent.address() as AddressInfo;
      const surface = createGchatSurface({ apiUrl: `http://127.0.0.1:${port}`, requestTimeoutMs: 20 });
      const error = await rejection(surface.post({ space: SPACE, frame: prose('x') }));
      expect(error).toMatchObject({ kind: 'transient', details: { code: 'TimeoutError' } });
    } finally {
      silent.closeAllConnections();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  it('refuses a bad apiUrl or timeout by name', () => {
    expect(() => createGchatSurface({ apiUrl: 'not a url' })).toThrow(/apiUrl "not a url" is not a URL/);
    expect(() => createGchatSurface({ apiUrl: 'ftp://x' })).toThrow(/must be http\(s\)/);
    expect(() => createGchatSurface({ apiUrl: h.emulator.url, requestTimeoutMs: 0 })).toThrow(
      /requestTimeoutMs/,
    );
  });
});

describe('gchat surface: abort', () => {
  it('an already aborted call rejects with AbortError and makes no call', async () => {
    const controller = new AbortController();
    controller.abort();
    const error = await rejection(
      h.surface.post({ space: SPACE, frame: prose('x') }, { signal: controller.signal }),
    );
    expect(error).toMatchObject({ name: 'AbortError' });
    expect(h.calls()).toEqual([]);
  });

  it('a call aborted in flight rejects with AbortError, not a SurfaceError', async () => {
    const posted = await h.surface.post({ space: SPACE, frame: prose('v1') });
    const controller = new AbortController();
    const editing = h.surface.edit(
      { space: SPACE, messageId: posted.messageId, frame: prose('v2') },
      { signal: controller.signal },
    );
    controller.abort();
    expect(await rejection(editing)).toMatchObject({ name: 'AbortError' });
  });
});

describe('gchat surface: policy cards', () => {
  it('posts the card as cardsV2 in the thread, with a plain fallbackText', async () => {
    const root = await h.personPosts('do it');
    const posted = await h.surface.post({
      space: SPACE,
      frame: policyFrame('p1', 'rm -rf /tmp/cache'),
      thread: { threadId: root.threadId },
      clientId: 'T1:card:4',
    });
    const [create] = h.calls();
    expect(create).toMatchObject({
      op: 'create',
      status: 200,
      thread: root.threadId,
      messageId: posted.messageId,
    });
    expect(create?.details).toMatchObject({
      cards: 1,
      messageReplyOption: 'REPLY_MESSAGE_FALLBACK_TO_NEW_THREAD',
    });
    const { data } = await chatClient(h.emulator.url).spaces.messages.get({ name: posted.messageId });
    expect(data.cardsV2?.[0]?.cardId).toBe('policy-p1');
    expect(JSON.stringify(data.cardsV2)).toContain('rm -rf /tmp/cache');
  });

  it('falls back to the plain-text request in the same thread when Chat refuses the card (400)', async () => {
    const root = await h.personPosts('do it');
    await h.faults([{ op: 'create', status: 400, times: 1 }]);
    const posted = await h.surface.post({
      space: SPACE,
      frame: policyFrame('p1', 'rm -rf /tmp/cache'),
      thread: { threadId: root.threadId },
      clientId: 'T1:card:4',
    });
    const creates = h.calls().filter((c) => c.op === 'create');
    expect(creates.map((c) => [c.status, c.thread, c.details?.cards])).toEqual([
      [400, null, 1],
      [200, root.threadId, undefined],
    ]);
    expect(creates[1]?.details?.requestId).toBe('T1:card:4:text');
    expect(creates[1]?.text).toContain('rm -rf /tmp/cache');
    expect(creates[1]?.text).toContain('Request p1');
    expect(posted.threadId).toBe(root.threadId);
  });

  it('a card refused for another reason (403) is not retried as text', async () => {
    await h.faults([{ op: 'create', status: 403, times: 1 }]);
    const error = await rejection(
      h.surface.post({ space: SPACE, frame: policyFrame('p1', 'rm -rf /tmp/cache') }),
    );
    expect(error).toMatchObject({ kind: 'forbidden' });
    expect(h.calls()).toHaveLength(1);
  });
});
