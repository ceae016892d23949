/**
 * Issue 21.5: snapshot writing (src/runtime/snapshots.ts) on its own: a
 * live turn's newest snapshot of a run of synchronous work is written once,
 * at the end of the job; a finished turn is handed on and forgotten; a
 * turn's warnings reach the logger once each; a crashed turn's last
 * snapshot is released once.
 */
import { describe, expect, it } from 'vitest';
import { type AnyMachineSnapshot, assign, createActor, SimulatedClock, setup } from 'xstate';
import { createDurability } from '../../../src/runtime/durability.js';
import { observed } from '../../../src/runtime/observed.js';
import { createSnapshotWriter } from '../../../src/runtime/snapshots.js';
import { createMemoryStore } from '../../../src/store/memory.js';

const SPACE = 'gchat:spaces/AAAA';

/** A stand-in turn: counts entries, may warn, ends on `end`. */
const turnLike = setup({
  types: {
    context: {} as { turnId: string; space: string; entries: number; warnings: string[] },
    events: {} as { type: 'add' } | { type: 'warn'; message: string } | { type: 'end' },
  },
}).createMachine({
  context: { turnId: 'T1', space: SPACE, entries: 0, warnings: [] },
  initial: 'live',
  states: {
    live: {
      on: {
        add: { actions: assign({ entries: ({ context }) => context.entries + 1 }) },
        warn: { actions: assign({ warnings: ({ context, event }) => [...context.warnings, event.message] }) },
        end: 'ended',
      },
    },
    ended: { type: 'final' },
  },
});

function writer() {
  const store = createMemoryStore();
  const saves: number[] = [];
  const save = store.saveTurn.bind(store);
  store.saveTurn = (turn) => {
    saves.push((turn.snapshot as { context: { entries: number } }).context.entries);
    return save(turn);
  };
  const warnings: string[] = [];
  const done: AnyMachineSnapshot[] = [];
  const snapshots = createSnapshotWriter({
    store,
    clock: new SimulatedClock(),
    durability: createDurability({ warn: () => {}, error: () => {} }),
    onTurnWarning: (_, message) => warnings.push(message),
    onTurnDone: (snapshot) => done.push(snapshot),
  });
  const actor = createActor(
    observed(turnLike, (_, snapshot, logic) => snapshots.onTurnSnapshot(snapshot, logic)),
  ).start();
  return { store, saves, warnings, done, snapshots, actor };
}

describe('snapshot writing', () => {
  it('writes a turn once per run of synchronous work, its newest snapshot', async () => {
    const w = writer();
    for (let i = 0; i < 5; i++) w.actor.send({ type: 'add' });
    expect(w.saves).toEqual([]);
    await Promise.resolve();
    expect(w.saves).toEqual([5]);
    expect((await w.store.liveTurns()).map((t) => t.turnId)).toEqual(['T1']);
    // A turn restart reads the newest persisted snapshot, written first when it changed since.
    w.actor.send({ type: 'add' });
    const persisted = w.snapshots.persisted('T1') as unknown as { context: { entries: number } };
    expect(persisted.context.entries).toBe(6);
    expect(w.saves).toEqual([5, 6]);
    expect(w.snapshots.liveTurnsOf(SPACE).map((t) => t.turnId)).toEqual(['T1']);
    expect(w.snapshots.liveTurnsOf('gchat:spaces/OTHER')).toEqual([]);
  });

  it('tells each warning once, and hands a finished turn on, forgetting it', async () => {
    const w = writer();
    w.actor.send({ type: 'warn', message: 'root lost' });
    w.actor.send({ type: 'add' });
    w.actor.send({ type: 'warn', message: 'slow platform' });
    await Promise.resolve();
    expect(w.warnings).toEqual(['root lost', 'slow platform']);
    w.actor.send({ type: 'end' });
    expect(w.done.map((s) => s.status)).toEqual(['done']);
    expect(w.snapshots.persisted('T1')).toBeUndefined();
    expect(w.snapshots.liveTurnsOf(SPACE)).toEqual([]);
  });

  it('release gives a crashed turn’s last snapshot once and forgets it', async () => {
    const w = writer();
    w.actor.send({ type: 'add' });
    const released = w.snapshots.release('T1') as unknown as { context: { entries: number } };
    expect(released.context.entries).toBe(1);
    expect(w.snapshots.release('T1')).toBeUndefined();
  });
});
