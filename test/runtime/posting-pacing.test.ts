// Issue 21.3: pacing is a declared ability of the port (`ChatSurface.pacing`), read as such, never duck-typed:
// paceFor waits a self-pacing surface's `pacing.waitMsFor` on the runtime's clock; others go at once.
import { describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { paceFor } from '../../src/runtime/posting.js';
import type { ChatSurface } from '../../src/surfaces/surface.js';

const plain = { platform: 'gchat' } as unknown as ChatSurface;

/** A surface whose headers say "wait until `until`" (epoch ms on `clock`). */
function pacedSurface(clock: SimulatedClock, until: number) {
  const asked: string[] = [];
  const surface = {
    platform: 'discord',
    pacing: {
      waitMsFor: (call: string) => {
        asked.push(call);
        return Math.max(0, until - clock.now());
      },
    },
  } as unknown as ChatSurface;
  return { surface, asked };
}

const flush = async () => {
  for (let i = 0; i < 5; i++) await Promise.resolve();
};

describe('paceFor', () => {
  it('a surface without pacing goes at once', async () => {
    const clock = new SimulatedClock();
    await expect(
      paceFor(plain, 'post', { space: 'gchat:spaces/A' }, clock, new AbortController().signal),
    ).resolves.toBeUndefined();
  });

  it('waits on the clock until the surface says go', async () => {
    const clock = new SimulatedClock();
    const { surface, asked } = pacedSurface(clock, 700);
    let done = false;
    const paced = paceFor(
      surface,
      'edit',
      { space: 'discord:1', messageId: '2' },
      clock,
      new AbortController().signal,
    ).then(() => {
      done = true;
    });
    await flush();
    clock.increment(699);
    await flush();
    expect(done).toBe(false);
    clock.increment(1);
    await paced;
    expect(done).toBe(true);
    expect(asked).toEqual(['edit', 'edit']);
  });

  it('an abort while waiting rejects and clears the timer', async () => {
    const clock = new SimulatedClock();
    const { surface } = pacedSurface(clock, 10_000);
    const controller = new AbortController();
    const paced = paceFor(surface, 'post', { space: 'discord:1' }, clock, controller.signal);
    await flush();
    controller.abort(new DOMException('stopped', 'AbortError'));
    await expect(paced).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('a bare `waitMsFor` outside the declared ability is not read', async () => {
    const clock = new SimulatedClock();
    const undeclared = { platform: 'discord', waitMsFor: () => 10_000 } as unknown as ChatSurface;
    await expect(
      paceFor(undeclared, 'post', { space: 'discord:1' }, clock, new AbortController().signal),
    ).resolves.toBeUndefined();
  });
});
