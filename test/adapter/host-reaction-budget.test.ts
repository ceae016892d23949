// spec: docs/library.md "The channel adapter" — every write the host makes through the adapter goes
// through the space's delivery and the platform budget, reactions included: a reaction waits while the
// budget cools the channel off after a 429, is retried after its own 429 (Retry-After), and one the
// platform refuses for good is a dead letter naming it. Real runtime on the memory surface, simulated clock.
import { afterEach, describe, expect, it } from 'vitest';
import { startRuntime } from '../runtime/runtime.helpers.js';

type Harness = Awaited<ReturnType<typeof startRuntime>>;
let h: Harness | undefined;
afterEach(async () => {
  await h?.runtime.stop();
  h = undefined;
});

const SPACE = 'gchat:spaces/AAAA';
const reactions = (x: Harness) => x.surface.calls.filter((c) => c.op === 'reaction' && c.status === 200);

/** Resolves `settled` once the promise does, so a test can look while it is still pending. */
function watch<T>(promise: Promise<T>) {
  const state: { settled: boolean; error?: unknown } = { settled: false };
  promise.then(
    () => {
      state.settled = true;
    },
    (error: unknown) => {
      state.settled = true;
      state.error = error;
    },
  );
  return state;
}

describe('a host reaction through the channel adapter is a budgeted write', () => {
  it('waits while the budget cools the channel off after a 429, then lands', async () => {
    h = await startRuntime();
    const x = h;
    const posted = await watchPost(x, 'first');
    // A 429 on the next post: the budget cools the channel for 20 s.
    x.surface.fail({ op: 'create', status: 429, times: 1, retryAfterS: 20 });
    const second = watch(x.runtime.channel.post({ space: SPACE, markdown: 'second' }));
    await x.advance(500);
    const reaction = watch(x.runtime.channel.react({ space: SPACE, messageId: posted, emoji: '👍' }));
    await x.advance(5_000);
    expect(reactions(x)).toEqual([]);
    expect(reaction.settled).toBe(false);
    await x.advance(30_000);
    expect(second).toEqual({ settled: true });
    expect(reaction).toEqual({ settled: true });
    expect(reactions(x)).toHaveLength(1);
  });

  it('is retried after its own 429, like a post', async () => {
    h = await startRuntime();
    const x = h;
    const posted = await watchPost(x, 'first');
    x.surface.fail({ op: 'reaction', status: 429, times: 1, retryAfterS: 3 });
    const reaction = watch(x.runtime.channel.react({ space: SPACE, messageId: posted, emoji: '👍' }));
    await x.advance(10_000);
    expect(reaction).toEqual({ settled: true });
    expect(reactions(x)).toHaveLength(1);
  });

  it('one the platform refuses for good is rejected, and kept as a dead letter naming the message', async () => {
    h = await startRuntime();
    const x = h;
    const posted = await watchPost(x, 'first');
    x.surface.fail({ op: 'reaction', status: 403 });
    const reaction = watch(x.runtime.channel.react({ space: SPACE, messageId: posted, emoji: '👍' }));
    await x.advance(2_000);
    expect(reaction.settled).toBe(true);
    expect(String(reaction.error)).toMatch(/host reaction/);
    expect(await x.store.deadLetters()).toEqual([
      expect.objectContaining({ reason: expect.stringContaining(`host reaction on ${posted}`) }),
    ]);
  });
});

/** A host post that lands; its message id. */
async function watchPost(x: Harness, markdown: string): Promise<string> {
  const pending = x.runtime.channel.post({ space: SPACE, markdown });
  await x.advance(2_000);
  return (await pending).messageId;
}
