/**
 * Issue 21.5: the actor system (src/runtime/actor-system.ts, the root
 * machine provided) and the live actors read under it
 * (src/runtime/live-actors.ts). The root starts a space for a run event or
 * a `runtime.toSpace`, never for a `runtime.toLiveSpace` (a settings change,
 * Stop, a flush: a space not started has nothing to change); the live
 * actors find a turn's space and what a shutdown still waits for, and a
 * flush through the root empties it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createLiveActors } from '../../../src/runtime/live-actors.js';
import { type Harness, SPACE, startRuntime } from '../runtime.helpers.js';

const OTHER = 'gchat:spaces/BBBB';
let h: Harness | undefined;
afterEach(async () => {
  await h?.runtime.stop();
  h = undefined;
});

const spaces = (harness: Harness) =>
  Object.keys(harness.runtime.actor.getSnapshot().children).filter((id) => id.startsWith('space:'));

describe('actor system', () => {
  it('starts a space for runtime.toSpace, not for runtime.toLiveSpace', async () => {
    h = await startRuntime();
    expect(spaces(h)).toEqual([]);
    h.runtime.actor.send({
      type: 'runtime.toLiveSpace',
      space: OTHER,
      event: { type: 'space.configure', threadsDisabled: true },
    });
    expect(spaces(h)).toEqual([]);
    h.runtime.actor.send({
      type: 'runtime.toSpace',
      space: OTHER,
      event: { type: 'space.configure', dm: true },
    });
    expect(spaces(h)).toEqual([`space:${OTHER}`]);
    const space = h.runtime.actor.getSnapshot().children[`space:${OTHER}`];
    expect(space?.getSnapshot().context.settings.routing).toMatchObject({ dm: true });
    // Settings changed before its start reach a space when it starts.
    h.runtime.configureSpace(SPACE, { threadsDisabled: true });
    h.send({ type: 'note', text: 'hello' });
    const started = h.runtime.actor.getSnapshot().children[`space:${SPACE}`];
    expect(started?.getSnapshot().context.settings.routing).toMatchObject({ threadsDisabled: true });
  });
});

describe('live actors', () => {
  it('find a turn’s space and what a flush waits for; flushAll, through the root, leaves nothing pending', async () => {
    h = await startRuntime();
    const live = createLiveActors(() => h!.runtime.actor);
    h.userMessage('u1');
    h.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1' });
    h.send({ type: 'tool_call', turnId: 'T1', callId: 'c1', tool: 'Read' });
    await h.advance(1500);
    expect(live.spaceOfTurn('T1')).toBe(SPACE);
    expect(live.spaceOfTurn('NOPE')).toBeUndefined();
    expect(live.work()).toEqual([]);
    h.send({ type: 'tool_call', turnId: 'T1', callId: 'c2', tool: 'Grep' });
    expect(live.work()).toEqual([{ space: SPACE, turnIds: ['T1'], strays: false, deliveries: 0 }]);
    const warnings: string[] = [];
    const logger = { warn: (m: string) => warnings.push(m), error: (m: string) => warnings.push(m) };
    expect(await live.flushAll(5000, logger, 1)).toBe(true);
    expect(live.work()).toEqual([]);
    expect(h.runtime.turn('T1')?.state).not.toMatch(/debouncing/);
    expect(warnings).toEqual([]);
  });
});
