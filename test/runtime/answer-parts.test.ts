/**
 * Issue 9 · answers are never lost (a multi-part answer survives kill -9),
 * the pieces: the deliveries a restart makes of the kept parts
 * (resumedDeliveries), and a delivery that forgets each part once the
 * platform took it, and the rest once it is refused for good, posting each
 * part with the client id it had before the restart.
 */
import { describe, expect, it } from 'vitest';
import { createActor, toPromise } from 'xstate';
import { builtinPlatforms } from '../../src/platforms/all.js';
import { provideDeliveryMachine } from '../../src/runtime/delivery.implementations.js';
import { resumedDeliveries } from '../../src/runtime/pending-answers.js';
import type { PendingAnswerPart } from '../../src/store/store.js';
import { createMemorySurface } from '../../src/testing/memory-surface.js';
import { startRuntime } from './runtime.helpers.js';

const SPACE = 'gchat:spaces/PARTS';
const part = (key: string, n: number, parts: number): PendingAnswerPart => ({
  space: SPACE,
  key,
  part: n,
  parts,
  turnId: 'T1',
  text: `part ${n} of ${key}`,
  savedAt: 1,
});

describe('resumedDeliveries', () => {
  it('one delivery per answer, from its first kept part, silent after part 0, with the kept key and client id', () => {
    const thread = { rootMessageId: 'spaces/PARTS/messages/r', threadId: 'spaces/PARTS/threads/t' };
    const deliveries = resumedDeliveries([
      part('A:answer:2', 3, 5),
      part('A:answer:2', 4, 5),
      { ...part('B:answer:7', 0, 2), thread },
      { ...part('B:answer:7', 1, 2), thread },
    ]);
    expect(deliveries).toEqual([
      {
        purpose: 'answer',
        request: {
          space: SPACE,
          frame: { kind: 'prose', markdown: 'part 3 of A:answer:2' },
          clientId: 'A:answer:2-3',
          silent: true,
        },
        continuation: ['part 4 of A:answer:2'],
        turnId: 'T1',
        firstPart: 3,
        pendingKey: 'A:answer:2',
      },
      {
        purpose: 'answer',
        request: {
          space: SPACE,
          frame: { kind: 'prose', markdown: 'part 0 of B:answer:7' },
          thread,
          clientId: 'B:answer:7',
        },
        continuation: ['part 1 of B:answer:7'],
        turnId: 'T1',
        firstPart: 0,
        pendingKey: 'B:answer:7',
      },
    ]);
  });

  it('keeps the parts in order whatever order they come in, and a gap starts another delivery', () => {
    const deliveries = resumedDeliveries([part('K', 5, 6), part('K', 2, 6), part('K', 1, 6)]);
    expect(deliveries.map((d) => [d.firstPart, d.request.clientId, d.continuation ?? []])).toEqual([
      [1, 'K-1', ['part 2 of K']],
      [5, 'K-5', []],
    ]);
  });
});

describe('a delivery of kept answer parts', () => {
  const start = (forgotten: number[][], input: Parameters<typeof resumedDeliveries>[0], refuse = false) => {
    const surface = createMemorySurface({ platform: 'gchat' });
    if (refuse) surface.fail({ op: 'create', status: 400, times: 1 });
    const logic = provideDeliveryMachine({
      surfaces: surface,
      platforms: builtinPlatforms,
      budget: 'unlimited',
      pendingAnswers: { forget: (_space, _key, parts) => void forgotten.push([...parts]) },
    });
    const [resumed] = resumedDeliveries(input);
    if (!resumed) throw new Error('no delivery');
    return { surface, actor: createActor(logic, { input: resumed }).start() };
  };

  it('posts the rest with the client ids they always had and forgets each part once posted', async () => {
    const forgotten: number[][] = [];
    const { surface, actor } = start(forgotten, [part('K', 2, 4), part('K', 3, 4)]);
    expect(await toPromise(actor)).toMatchObject({ status: 'delivered' });
    expect(surface.calls.map((c) => [c.op, c.details?.clientId, c.details?.silent])).toEqual([
      ['create', 'K-2', true],
      ['create', 'K-3', true],
    ]);
    expect(forgotten).toEqual([[2], [3]]);
  });

  it('a part refused for good: it and the ones after it are forgotten (not posted again after a restart)', async () => {
    const forgotten: number[][] = [];
    const { actor } = start(forgotten, [part('K', 1, 4), part('K', 2, 4), part('K', 3, 4)], true);
    const output = await toPromise(actor);
    expect(output).toMatchObject({ status: 'failed', purpose: 'answer' });
    expect(forgotten).toEqual([[1, 2, 3]]);
  });
});

describe('the turn view: answerPartsPending (GET /v1/turns/:turnId)', () => {
  /** n paragraphs of 5,400 characters: one message each on Google Chat (7,000 at most). */
  const paragraphs = (n: number) =>
    Array.from({ length: n }, (_, i) => `¶${i + 1} ${'lorem ipsum dolor sit amet '.repeat(200)}`).join(
      '\n\n',
    );

  it('counts the parts accepted and not posted yet, down to 0 once the platform took every one', async () => {
    const h = await startRuntime({});
    const root = h.userMessage('u1');
    h.send({ type: 'turn_started', turnId: 'T1', root });
    h.send({ type: 'answer', turnId: 'T1', text: paragraphs(3) });
    h.send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' });
    await h.runtime.sync();
    const answerPosts = () =>
      h.surface.calls.filter((c) => c.op === 'create' && (c.text ?? '').includes('¶'));
    expect(answerPosts().length).toBeLessThan(3);
    // A part in flight is still pending: only a part the platform took is not.
    const pending = h.runtime.turn('T1')?.answerPartsPending ?? 0;
    expect(pending).toBeGreaterThan(0);
    expect(pending).toBeGreaterThanOrEqual(3 - answerPosts().length);
    for (let ms = 0; answerPosts().length < 3 && ms < 60_000; ms += 100) await h.advance(100);
    expect(answerPosts()).toHaveLength(3);
    await h.advance(1_000);
    expect(h.runtime.turn('T1')).toMatchObject({ state: 'ended', answerPartsPending: 0, degraded: false });
    await h.runtime.stop();
  });

  it('a part refused for good is no longer pending: 0, and the turn is degraded with a dead letter', async () => {
    const h = await startRuntime({});
    h.surface.fail({ op: 'create', status: 400, times: 1_000 });
    const root = h.userMessage('u1');
    h.send({ type: 'turn_started', turnId: 'T1', root });
    h.send({ type: 'answer', turnId: 'T1', text: paragraphs(2) });
    h.send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' });
    await h.runtime.sync();
    await h.advance(60_000);
    expect(h.runtime.turn('T1')).toMatchObject({ answerPartsPending: 0, degraded: true });
    expect(h.runtime.turn('T1')?.deadLetters).toBeGreaterThanOrEqual(1);
    await h.runtime.stop();
  });
});
