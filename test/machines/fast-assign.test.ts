/**
 * Issue 24 item 1: `fastAssign` (machines/fast-assign.ts) resolves an
 * assignment as XState's `assign` does — the same next context, state value,
 * tags and children, params and event passed — while keeping a wide context
 * an ordinary object. An assignment that tries to spawn is told to use
 * XState's `assign`.
 */

import { describe, expect, it } from 'vitest';
import { assign, createActor, setup } from 'xstate';
import { fastAssign } from '../../machines/fast-assign.js';

type Ctx = Record<`f${number}`, number> & { count: number; last: string | null };

const WIDE = 30;
const initial = (): Ctx => {
  const context = { count: 0, last: null } as Ctx;
  for (let i = 0; i < WIDE; i++) context[`f${i}`] = i;
  return context;
};

function machineWith(make: typeof assign) {
  return setup({
    types: {
      context: {} as Ctx,
      events: {} as { type: 'add'; by: number } | { type: 'mark' } | { type: 'go' },
    },
    actions: {
      add: make(({ context }, params: { by: number }) => ({ count: context.count + params.by })),
      mark: make({ last: ({ event }) => event.type, f3: 33 }),
    },
  }).createMachine({
    context: initial,
    initial: 'a',
    states: {
      a: {
        tags: ['first'],
        on: {
          add: { actions: { type: 'add', params: ({ event }) => ({ by: event.by }) } },
          mark: { actions: 'mark' },
          go: 'b',
        },
      },
      b: {
        tags: ['second'],
        on: { add: { actions: { type: 'add', params: ({ event }) => ({ by: event.by }) } } },
      },
    },
  });
}

describe('fastAssign (issue 24 item 1)', () => {
  it('gives the same snapshots as XState’s assign, with function and object assignments', () => {
    const events = [
      { type: 'add', by: 2 },
      { type: 'mark' },
      { type: 'add', by: 5 },
      { type: 'go' },
      { type: 'add', by: 1 },
    ] as const;
    const run = (make: typeof assign) => {
      const actor = createActor(machineWith(make)).start();
      const seen = [];
      for (const event of events) {
        actor.send(event);
        const s = actor.getSnapshot();
        seen.push({
          value: s.value,
          tags: [...s.tags],
          context: s.context,
          status: s.status,
          children: s.children,
        });
      }
      return seen;
    };
    const fast = run(fastAssign);
    expect(fast).toEqual(run(assign));
    expect(fast.at(-1)).toMatchObject({
      value: 'b',
      tags: ['second'],
      context: { count: 8, last: 'mark', f3: 33, f29: 29 },
    });
  });

  it('leaves the previous context untouched', () => {
    const actor = createActor(machineWith(fastAssign)).start();
    const before = actor.getSnapshot().context;
    actor.send({ type: 'add', by: 4 });
    expect(before.count).toBe(0);
    expect(actor.getSnapshot().context.count).toBe(4);
  });

  it('refuses to spawn, naming XState’s assign', () => {
    const machine = setup({ types: { context: {} as { n: number } } }).createMachine({
      context: { n: 0 },
      on: { '*': { actions: fastAssign(({ spawn }) => ({ n: (spawn as unknown as () => number)() })) } },
    });
    const actor = createActor(machine);
    const errors: unknown[] = [];
    actor.subscribe({ error: (error) => errors.push(error) });
    actor.start();
    actor.send({ type: 'anything' });
    expect(String(errors[0])).toMatch(/spawns must use XState’s assign/);
  });
});
