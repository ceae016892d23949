/**
 * A turn that crashed for good (its restarts ran out; docs/architecture.md
 * §Supervision: "its log is degraded to top-level") is finished in the store
 * like any other turn (docs/library.md: live snapshots are for live turns;
 * `GET /v1/turns/:turnId` answers a finished turn's summary):
 * - when its restarts run out it has no actor any more, so its live row is
 *   finished at once (state `crashed`, outcome null, degraded, its log
 *   messages as last persisted): a restart never brings it back as a live
 *   turn that holds a slot and can never end;
 * - its `turn_ended` completes the summary (state `ended`, its outcome), in
 *   the same process and after a restart (its events went top-level).
 *
 * A turn crashes here through a bug in the turn log: appending an entry whose
 * line names the tool `BOOM` throws inside the turn actor.
 */
import { describe, expect, it, vi } from 'vitest';
import { type AnyActorRef, type AnyMachineSnapshot, SimulatedClock } from 'xstate';
import { spaceChildId } from '../../machines/runtime.machine.js';
import type { SpaceContext } from '../../machines/space.machine.js';
import type { Runtime } from '../../src/runtime.js';
import { createMemoryStore } from '../../src/store/memory.js';
import { createMemorySurface } from '../../src/testing/memory-surface.js';
import { type Harness, SPACE, startRuntime } from './runtime.helpers.js';

vi.mock('../../src/turnlog/log.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../src/turnlog/log.js')>();
  return {
    ...actual,
    appendEntry: (...args: Parameters<typeof actual.appendEntry>) => {
      if (args[1].summary.includes('BOOM')) throw new Error(`bug while appending ${args[1].summary}`);
      return actual.appendEntry(...args);
    },
  };
});

function spaceContext(runtime: Runtime): SpaceContext | undefined {
  const space = (runtime.actor.getSnapshot() as AnyMachineSnapshot).children[spaceChildId(SPACE)] as
    | AnyActorRef
    | undefined;
  return (space?.getSnapshot() as AnyMachineSnapshot | undefined)?.context as SpaceContext | undefined;
}

/** T1 posts its log message, then crashes 4 times (3 restarts from its snapshot, then for good). */
async function crashForGood(h: Harness): Promise<string> {
  const root = h.userMessage('u1');
  h.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1' });
  h.send({ type: 'tool_call', turnId: 'T1', callId: 'c0', tool: 'Read', input: { path: 'a.ts' } });
  await h.advance(2000);
  const logMessage = h.runtime.turn('T1')?.logMessages[0]?.messageId;
  if (!logMessage) throw new Error('T1 posted no log message');
  for (let n = 1; n <= 4; n++) {
    h.send({ type: 'tool_call', turnId: 'T1', callId: `b${n}`, tool: 'BOOM' });
    await h.advance(100);
  }
  expect(spaceContext(h.runtime)?.turns.T1).toMatchObject({ mode: 'crashed', slot: null });
  expect(root.messageId).toBeDefined();
  return logMessage;
}

describe('runtime: a turn that crashed for good', () => {
  it('is finished in the store when its restarts run out, and its turn_ended completes the summary; a restart does not restore it', async () => {
    const clock = new SimulatedClock();
    const store = createMemoryStore();
    const surface = createMemorySurface({ platform: 'gchat', now: () => clock.now() });
    const h = await startRuntime({ clock, store, surface });
    const logMessage = await crashForGood(h);

    // Crashed, not ended: no live row any more; the summary so far.
    expect((await store.liveTurns()).map((t) => t.turnId)).toEqual([]);
    const crashed = {
      turnId: 'T1',
      space: SPACE,
      state: 'crashed',
      degraded: true,
      logMessages: [expect.objectContaining({ messageId: logMessage })],
    };
    expect(await h.runtime.finishedTurn('T1')).toMatchObject(crashed);
    expect((await h.runtime.finishedTurn('T1'))?.outcome).toBeUndefined();
    expect(h.runtime.turn('T1')).toMatchObject(crashed);

    // Its later entries go top-level; its end completes the summary.
    h.send({ type: 'tool_call', turnId: 'T1', callId: 'after', tool: 'StillLogged' });
    h.send({ type: 'turn_ended', turnId: 'T1', outcome: 'error' });
    await h.advance(5000); // the stray log's fair share of the space's spacing (1 s plus the budget margin)
    // Top-level, in the space's stray log (one message with the crash note, edited).
    expect(surface.messages(SPACE).some((m) => m.thread === null && m.text?.includes('StillLogged'))).toBe(
      true,
    );
    const ended = { ...crashed, state: 'ended', outcome: 'error' };
    expect(await h.runtime.finishedTurn('T1')).toMatchObject(ended);
    expect(h.runtime.turn('T1')).toMatchObject(ended);
    expect(await store.liveTurns()).toEqual([]);
    expect(spaceContext(h.runtime)?.turns).toEqual({});
    await h.runtime.stop();

    // A new runtime on the same store has nothing to restore.
    const second = await startRuntime({ clock, store, surface });
    await second.advance(1000);
    expect(second.runtime.turn('T1')).toBeUndefined();
    expect(spaceContext(second.runtime)?.turns ?? {}).toEqual({});
    expect(await second.runtime.finishedTurn('T1')).toMatchObject(ended);
    await second.runtime.stop();
  });

  it('crashed, then the process restarts before its turn_ended: not restored; its events go top-level and its end completes the summary', async () => {
    const clock = new SimulatedClock();
    const store = createMemoryStore();
    const surface = createMemorySurface({ platform: 'gchat', now: () => clock.now() });
    const first = await startRuntime({ clock, store, surface });
    const logMessage = await crashForGood(first);
    await first.runtime.stop();

    const second = await startRuntime({ clock, store, surface });
    await second.advance(1000);
    expect(spaceContext(second.runtime)?.turns ?? {}).toEqual({});
    expect(second.runtime.turn('T1')).toBeUndefined();
    second.send({ type: 'tool_call', turnId: 'T1', callId: 'after', tool: 'StillLogged' });
    second.send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' });
    await second.advance(1000);

    // Top-level, in the space's stray log (one message with the crash note, edited).
    expect(surface.messages(SPACE).some((m) => m.thread === null && m.text?.includes('StillLogged'))).toBe(
      true,
    );
    expect(await second.runtime.finishedTurn('T1')).toMatchObject({
      state: 'ended',
      outcome: 'ok',
      degraded: true,
      logMessages: [expect.objectContaining({ messageId: logMessage })],
    });
    expect(await store.liveTurns()).toEqual([]);
    await second.runtime.stop();
  });
});
