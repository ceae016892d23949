/**
 * Finished work leaves nothing behind in a space supervisor (docs/architecture.md
 * §Data flow 2: the space "stops [a turn] when it has ended"; the same holds
 * for its delivery children): after N turns that posted an answer and ended,
 * the space actor has no turn or delivery children and no turn records, so
 * nothing in it grows with the number of finished turns. XState copies a
 * parent's `children` on every spawn and stop, so children that pile up make
 * every later turn slower (bench/runtime.bench.ts, phase 3).
 */
import { describe, expect, it, vi } from 'vitest';
import { type AnyActorRef, type AnyMachineSnapshot, createActor, fromPromise, SimulatedClock } from 'xstate';
import { spaceChildId } from '../../machines/runtime.machine.js';
import { type SpaceContext, spaceMachine } from '../../machines/space.machine.js';
import { resolveConfig } from '../../src/config.js';
import { builtinPlatforms } from '../../src/platforms/all.js';
import { createSpaceImplementations } from '../../src/runtime/space.implementations.js';
import { type Runtime, spaceSettingsFor } from '../../src/runtime.js';
import { createMemorySurface } from '../../src/testing/memory-surface.js';
import { type Harness, SPACE, startRuntime } from './runtime.helpers.js';

const TURNS = 30;

function spaceSnapshot(runtime: Runtime): AnyMachineSnapshot {
  const space = (runtime.actor.getSnapshot() as AnyMachineSnapshot).children[spaceChildId(SPACE)] as
    | AnyActorRef
    | undefined;
  if (!space) throw new Error(`no space actor for ${SPACE}`);
  return space.getSnapshot() as AnyMachineSnapshot;
}

/** The space's children besides its one stray log (`strays`, which lives as long as the space). */
const perTurnChildren = (children: object): string[] =>
  Object.keys(children)
    .filter((id) => id !== 'strays')
    .sort();
const childIds = (runtime: Runtime): string[] => perTurnChildren(spaceSnapshot(runtime).children);

/** Advances the clock a second at a time until `done` holds (at most `maxS` simulated seconds). */
async function advanceUntil(h: Harness, done: () => boolean, maxS = 600): Promise<void> {
  for (let s = 0; s < maxS && !done(); s++) await h.advance(1000);
  if (!done()) throw new Error(`still not done after ${maxS} simulated seconds`);
}

const topLevelPosts = (h: Harness, status: (s: number) => boolean) =>
  h.surface.calls.filter((c) => c.op === 'create' && c.thread === null && status(c.status));

describe('runtime: finished turns leave no children behind', () => {
  it(`${TURNS} turns that answered and ended leave no turn or delivery actor and no turn record in their space`, async () => {
    const h = await startRuntime();
    for (let n = 0; n < TURNS; n++) {
      const root = h.surface.inbound({ space: SPACE, text: `question ${n}` });
      h.send({
        type: 'turn_started',
        turnId: `T${n}`,
        root: { messageId: root.messageId, threadId: root.threadId },
      });
      h.send({ type: 'tool_call', turnId: `T${n}`, callId: 'c1', tool: 'Read', input: { path: 'a.ts' } });
      h.send({ type: 'answer', turnId: `T${n}`, text: `answer ${n}` });
      h.send({ type: 'turn_ended', turnId: `T${n}`, outcome: 'ok' });
    }
    await advanceUntil(
      h,
      () =>
        topLevelPosts(h, (s) => s < 300).length === TURNS &&
        Array.from({ length: TURNS }, (_, n) => h.runtime.turn(`T${n}`)?.state).every((s) => s === 'ended'),
    );

    const snapshot = spaceSnapshot(h.runtime);
    // Every answer went through its own delivery actor …
    expect((snapshot.context as SpaceContext).deliveries).toBe(TURNS);
    // … and once delivered, neither it nor the ended turn stays a child of the space.
    expect(childIds(h.runtime)).toEqual([]);
    expect((snapshot.context as SpaceContext).turns).toEqual({});
    await h.runtime.stop();
  });

  it('a delivery that failed for good is stopped too, and its failure is still recorded', async () => {
    const h = await startRuntime();
    // 403 is not worth retrying: the delivery ends `failed` at its first attempt.
    h.surface.fail({ op: 'create', status: 403 });
    h.send({ type: 'answer', turnId: 'X1', text: 'an answer nobody will see' });
    await advanceUntil(h, () => topLevelPosts(h, (s) => s >= 400).length === 1);
    await h.advance(1000);

    const context = spaceSnapshot(h.runtime).context as SpaceContext;
    expect(context.deadLetters).toEqual([
      expect.objectContaining({
        reason: expect.stringContaining('answer'),
        text: 'an answer nobody will see',
      }),
    ]);
    expect(childIds(h.runtime)).toEqual([]);
    await h.runtime.stop();
  });

  it('a delivery actor that crashed (outside its own error handling) is stopped, with a warning naming it', async () => {
    const clock = new SimulatedClock();
    const implementations = createSpaceImplementations({
      platforms: builtinPlatforms,
      surfaces: createMemorySurface({ platform: 'gchat', now: () => clock.now() }),
      budget: 'unlimited',
      format: { maxToolPreview: 400, timeZone: 'UTC' },
      now: () => clock.now(),
      snapshotOf: () => undefined,
    });
    const space = createActor(
      spaceMachine.provide({
        ...implementations,
        actors: {
          ...implementations.actors,
          delivery: fromPromise(async () => {
            throw new Error('bug in the delivery');
          }) as never,
        },
      }),
      { clock, input: { space: SPACE, settings: spaceSettingsFor(resolveConfig({}), SPACE) } },
    ).start();
    space.send({ type: 'space.entry', event: { type: 'answer', space: SPACE, turnId: 'X1', text: 'hi' } });
    expect(perTurnChildren(space.getSnapshot().children)).toEqual(['delivery:0']);
    await vi.waitFor(() => expect(space.getSnapshot().context.warnings).toHaveLength(1), { timeout: 5000 });

    expect(space.getSnapshot().context.warnings).toEqual(['delivery:0 failed: Error: bug in the delivery']);
    expect(perTurnChildren(space.getSnapshot().children)).toEqual([]);
    space.stop();
  });
});
