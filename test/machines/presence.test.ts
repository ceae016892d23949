/**
 * The presence machine (issue 26 items 1 and 3) on a simulated clock: the
 * 👀 is an advisory write skipped when the budget refuses it, the final
 * reaction (and the 👀's removal) is asked for again until it goes, a root
 * the app cannot react to is a warning, an adopted message gets 👀 then the
 * final reaction, and typing goes out at once and every 8 s until the end.
 */
import { describe, expect, it } from 'vitest';
import { createActor, fromPromise, SimulatedClock } from 'xstate';
import { type PresenceInput, presenceMachine, type ReactionJob } from '../../machines/presence.machine.js';

const EMOJI = { working: '👀', ok: '✅', error: '❌', stopped: '⏹️' };

function run(opts: { grants: (purpose: string) => boolean; failOn?: string; typing?: boolean }) {
  const clock = new SimulatedClock();
  const writes: string[] = [];
  const warnings: string[] = [];
  const input: PresenceInput = {
    turnId: 'T1',
    space: 'slack:C1',
    roots: [{ messageId: 'm1' }],
    reactions: true,
    typing: opts.typing ?? false,
    emoji: EMOJI,
  };
  const machine = presenceMachine.provide({
    actions: {
      requestAdvisory: ({ self }, params: { purpose: 'reaction' | 'typing' }) => {
        const granted = opts.grants(params.purpose);
        queueMicrotask(() => self.send({ type: 'budget.advisory.answer', purpose: params.purpose, granted }));
      },
      warn: (_, params: { message: string }) => {
        warnings.push(params.message);
      },
    },
    actors: {
      react: fromPromise<void, { space: string; job: ReactionJob }>(async ({ input }) => {
        const name = `${input.job.kind} ${input.job.emoji} ${input.job.root.messageId}`;
        if (opts.failOn === name) throw Object.assign(new Error('forbidden'), { kind: 'forbidden' });
        writes.push(name);
      }),
      showTyping: fromPromise<void, { space: string }>(async () => {
        writes.push(`typing at ${clock.now()}`);
      }),
    },
  });
  const actor = createActor(machine, { input, clock });
  actor.start();
  const settle = () => new Promise((resolve) => setTimeout(resolve, 0));
  return { actor, clock, writes, warnings, settle };
}

describe('presence: reactions', () => {
  it('👀 on start; at the end the final reaction, then the 👀 removed', async () => {
    const p = run({ grants: () => true });
    await p.settle();
    p.actor.send({ type: 'presence.end', outcome: 'ok' });
    await p.settle();
    await p.settle();
    expect(p.writes).toEqual(['add 👀 m1', 'add ✅ m1', 'remove 👀 m1']);
    expect(p.actor.getSnapshot().status).toBe('done');
  });

  it('under pressure the 👀 is skipped, never the final reaction: that one asks again until it goes', async () => {
    let refusals = 3;
    const p = run({ grants: () => refusals-- <= 0 });
    await p.settle();
    p.actor.send({ type: 'presence.end', outcome: 'error' });
    await p.settle();
    expect(p.writes).toEqual([]);
    for (let i = 0; i < 3; i++) {
      p.clock.increment(2000);
      await p.settle();
      await p.settle();
    }
    // No 👀 went out, so none is removed.
    expect(p.writes).toEqual(['add ❌ m1']);
    expect(p.actor.getSnapshot().status).toBe('done');
  });

  it('a root the app may not react to is a warning, and the end still goes out', async () => {
    const p = run({ grants: () => true, failOn: 'add 👀 m1' });
    await p.settle();
    expect(p.warnings).toEqual([expect.stringContaining('could not add 👀 on m1')]);
    p.actor.send({ type: 'presence.end', outcome: 'stopped' });
    await p.settle();
    await p.settle();
    expect(p.writes).toEqual(['add ⏹️ m1']);
  });

  it('an adopted message gets 👀, then the final reaction with the root', async () => {
    const p = run({ grants: () => true });
    await p.settle();
    p.actor.send({ type: 'presence.adopt', roots: [{ messageId: 'm2', threadId: 't1' }] });
    await p.settle();
    p.actor.send({ type: 'presence.end', outcome: 'ok' });
    for (let i = 0; i < 4; i++) await p.settle();
    expect(p.writes).toEqual([
      'add 👀 m1',
      'add 👀 m2',
      'add ✅ m1',
      'remove 👀 m1',
      'add ✅ m2',
      'remove 👀 m2',
    ]);
  });
});

describe('presence: typing', () => {
  it('types at once, then every 8 s while live, and stops at the end', async () => {
    const p = run({ grants: () => true, typing: true });
    await p.settle();
    for (let i = 0; i < 2; i++) {
      p.clock.increment(8000);
      await p.settle();
    }
    p.actor.send({ type: 'presence.end', outcome: 'ok' });
    await p.settle();
    p.clock.increment(30_000);
    await p.settle();
    expect(p.writes.filter((w) => w.startsWith('typing'))).toEqual([
      'typing at 0',
      'typing at 8000',
      'typing at 16000',
    ]);
  });
});
