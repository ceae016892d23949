// Issue 22.1: writes to one message never overtake each other (src/surfaces/ordered.ts): one edit in flight per
// message, a newer frame supersedes a queued one, the final frame is never superseded and goes last, a stale
// frame retried after the final one landed is not resent, and a caller's abort does not let the next write
// overtake one already sent. A create with a client id still on its way is not made twice.
import { describe, expect, it } from 'vitest';
import type { SurfaceFrame } from '../../src/surfaces/frame.js';
import { isFinalFrame, orderWrites } from '../../src/surfaces/ordered.js';
import type { ChatSurface, EditRequest, PostedMessage, PostRequest } from '../../src/surfaces/surface.js';

const running = (text: string): SurfaceFrame => ({
  kind: 'log',
  headline: { state: 'running', title: 't', elapsedMs: 0 },
  lines: [{ kind: 'marker', depth: 0, time: '', text }],
});
const done = (text: string): SurfaceFrame => ({
  kind: 'log',
  headline: { state: 'done', title: 't', elapsedMs: 0 },
  lines: [{ kind: 'marker', depth: 0, time: '', text }],
});
const textOf = (frame: SurfaceFrame) => (frame.kind === 'log' ? (frame.lines[0]?.text ?? '') : '');

/** A surface whose calls wait until the test lets them answer, in any order. */
function gatedSurface() {
  const sent: { req: EditRequest | PostRequest; answer: (error?: unknown) => void; kind: string }[] = [];
  const applied: string[] = [];
  let posts = 0;
  const surface: ChatSurface = {
    platform: 'gchat',
    capabilities: { maxChars: 4000, silentPosts: false, idempotentCreate: false },
    edit: (req) =>
      new Promise<void>((resolve, reject) => {
        sent.push({
          req,
          kind: 'edit',
          answer: (error) => {
            if (error) return reject(error);
            applied.push(textOf(req.frame));
            resolve();
          },
        });
      }),
    post: (req) =>
      new Promise<PostedMessage>((resolve, reject) => {
        sent.push({
          req,
          kind: 'post',
          answer: (error) => (error ? reject(error) : resolve({ messageId: `m${++posts}` })),
        });
      }),
    react: async () => {},
  };
  return { surface, sent, applied };
}

const edit = (frame: SurfaceFrame, messageId = 'm1'): EditRequest => ({
  space: 'gchat:spaces/A',
  messageId,
  frame,
});
const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('orderWrites', () => {
  it('sends one edit per message at a time; a newer frame supersedes the queued one, which is never sent', async () => {
    const { surface, sent, applied } = gatedSurface();
    const ordered = orderWrites(surface);
    const first = ordered.edit(edit(running('1')));
    const second = ordered.edit(edit(running('2')));
    const third = ordered.edit(edit(running('3')));
    const other = ordered.edit(edit(running('x'), 'm2'));
    expect(sent.map((s) => textOf((s.req as EditRequest).frame))).toEqual(['1', 'x']);
    await second; // superseded: done without being sent
    sent[0]!.answer();
    await first;
    await tick();
    expect(sent.map((s) => textOf((s.req as EditRequest).frame))).toEqual(['1', 'x', '3']);
    sent[2]!.answer();
    sent[1]!.answer();
    await Promise.all([third, other]);
    expect(applied).toEqual(['1', '3', 'x']);
  });

  it('the final frame is not superseded by an older-state frame sent after it, and goes last', async () => {
    const { surface, sent, applied } = gatedSurface();
    const ordered = orderWrites(surface);
    void ordered.edit(edit(running('progress')));
    const final = ordered.edit(edit(done('final')));
    await ordered.edit(edit(running('late progress')));
    sent[0]!.answer();
    await tick();
    expect(sent).toHaveLength(2);
    sent[1]!.answer();
    await final;
    expect(applied).toEqual(['progress', 'final']);
  });

  it('a stale frame retried after the final one landed is not resent; a newer final frame still is', async () => {
    const { surface, sent, applied } = gatedSurface();
    const ordered = orderWrites(surface);
    const final = ordered.edit(edit(done('final')));
    sent[0]!.answer();
    await final;
    await ordered.edit(edit(running('retried progress')));
    expect(sent).toHaveLength(1);
    const corrected = ordered.edit(edit(done('final, corrected')));
    expect(sent).toHaveLength(2);
    sent[1]!.answer();
    await corrected;
    expect(applied).toEqual(['final', 'final, corrected']);
  });

  it('an aborted caller is answered at once, but the next write waits for the one already sent', async () => {
    const { surface, sent, applied } = gatedSurface();
    const ordered = orderWrites(surface);
    const controller = new AbortController();
    const slow = ordered.edit(edit(running('slow')), { signal: controller.signal });
    controller.abort();
    await expect(slow).rejects.toBeDefined();
    const final = ordered.edit(edit(done('final')));
    expect(sent).toHaveLength(1);
    sent[0]!.answer();
    await tick();
    sent[1]!.answer();
    await final;
    expect(applied).toEqual(['slow', 'final']);
  });

  it('an aborted queued edit is never sent', async () => {
    const { surface, sent } = gatedSurface();
    const ordered = orderWrites(surface);
    void ordered.edit(edit(running('1')));
    const controller = new AbortController();
    const queued = ordered.edit(edit(running('2')), { signal: controller.signal });
    controller.abort();
    await expect(queued).rejects.toBeDefined();
    sent[0]!.answer();
    await tick();
    expect(sent).toHaveLength(1);
  });

  it('a failed edit fails its caller and lets the queued one go', async () => {
    const { surface, sent } = gatedSurface();
    const ordered = orderWrites(surface);
    const first = ordered.edit(edit(running('1')));
    const second = ordered.edit(edit(done('2')));
    sent[0]!.answer(new Error('boom'));
    await expect(first).rejects.toThrow('boom');
    await tick();
    sent[1]!.answer();
    await second;
  });

  it('a second create with the same client id waits for the first and gets its message', async () => {
    const { surface, sent } = gatedSurface();
    const ordered = orderWrites(surface);
    const controller = new AbortController();
    const req: PostRequest = { space: 'gchat:spaces/A', frame: running('log'), clientId: 'T1:1' };
    const first = ordered.post(req, { signal: controller.signal });
    controller.abort();
    await expect(first).rejects.toBeDefined();
    const retry = ordered.post(req);
    expect(sent).toHaveLength(1);
    sent[0]!.answer();
    expect(await retry).toEqual({ messageId: 'm1' });
    expect(await ordered.post(req)).toEqual({ messageId: 'm1' });
    expect(sent).toHaveLength(1);
  });

  it('knows the final frames (an ended log, a decided card), and wraps a surface once', () => {
    expect(isFinalFrame(done('x'))).toBe(true);
    expect(isFinalFrame(running('x'))).toBe(false);
    expect(isFinalFrame({ kind: 'prose', markdown: 'x' })).toBe(false);
    const card = { kind: 'policy' as const, id: 'r', title: 't', body: 'b', actions: [] };
    expect(isFinalFrame({ kind: 'card', card })).toBe(false);
    expect(isFinalFrame({ kind: 'card', card: { ...card, outcome: '✅ approved' } })).toBe(true);
    const once = orderWrites(gatedSurface().surface);
    expect(orderWrites(once)).toBe(once);
  });
});
