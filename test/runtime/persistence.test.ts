/**
 * Persistence off inspection (issue #14 item 4): a live turn's snapshot is
 * written once per run of synchronous work, whatever the number of events
 * or transitions in it (never a snapshot the same tick supersedes), the
 * written one is the newest, and XState inspection is off unless asked for.
 */
import { describe, expect, it } from 'vitest';
import type { Actor, AnyActorLogic, InspectionEvent } from 'xstate';
import { createMemoryStore } from '../../src/store/memory.js';
import type { PersistedTurn, TurnlogStore } from '../../src/store/store.js';
import { SPACE, settle, startRuntime } from './runtime.helpers.js';

function countingStore(): { store: TurnlogStore; saved: PersistedTurn[] } {
  const inner = createMemoryStore();
  const saved: PersistedTurn[] = [];
  return {
    saved,
    store: {
      ...inner,
      saveTurn(turn) {
        saved.push(turn);
        return inner.saveTurn(turn);
      },
    },
  };
}

const entryCount = (turn: PersistedTurn | undefined) =>
  (turn?.snapshot as { context?: { entryCount?: number } } | undefined)?.context?.entryCount;

describe('runtime persistence', () => {
  it('writes a turn once for many events applied in one run, with the newest snapshot', async () => {
    const { store, saved } = countingStore();
    const h = await startRuntime({ store });
    const root = h.userMessage('u1');
    h.send({ type: 'turn_started', turnId: 'T1', root });
    await settle();
    saved.length = 0;
    for (let n = 1; n <= 10; n++) h.send({ type: 'tool_call', turnId: 'T1', callId: `c${n}`, tool: 'Read' });
    expect(saved).toHaveLength(0);
    // Written at the end of the run (a microtask): once, with all ten entries; never a snapshot of fewer.
    await Promise.resolve();
    expect(saved.map((t) => [t.turnId, entryCount(t)])).toEqual([['T1', 10]]);
    // Later writes come from later work (the post's answer), not from this run.
    await settle();
    expect(saved.every((t) => entryCount(t) === 10)).toBe(true);
    await h.runtime.stop();
  });

  it('writes what is pending when sync() is asked, before anything else runs', async () => {
    const { store, saved } = countingStore();
    const h = await startRuntime({ store });
    const root = h.userMessage('u1');
    h.send({ type: 'turn_started', turnId: 'T1', root });
    h.send({ type: 'tool_call', turnId: 'T1', callId: 'c1', tool: 'Read' });
    const synced = h.runtime.sync();
    expect(saved.map((t) => t.turnId)).toEqual(['T1']);
    await synced;
    await h.runtime.stop();
  });

  it('a batch of entries for each of two turns writes each turn once', async () => {
    const { store, saved } = countingStore();
    const h = await startRuntime({ store });
    const root = h.userMessage('u1');
    h.send({ type: 'turn_started', turnId: 'T1', root });
    h.send({ type: 'turn_started', turnId: 'T2', root });
    await settle();
    saved.length = 0;
    const entries = (turnId: string) =>
      Array.from({ length: 5 }, (_, n) => ({ space: SPACE, type: 'note', turnId, text: `step ${n}` }));
    const results = h.runtime.ingestBatch([...entries('T1'), ...entries('T2')]);
    expect(results.every((r) => r.ok)).toBe(true);
    await Promise.resolve();
    expect(saved.map((t) => [t.turnId, entryCount(t)])).toEqual([
      ['T1', 5],
      ['T2', 5],
    ]);
    await h.runtime.stop();
  });
});

describe('runtime inspection', () => {
  it('is off unless asked for: the root actor gets no inspect callback', async () => {
    const h = await startRuntime();
    const actor = h.runtime.actor as unknown as Actor<AnyActorLogic>;
    expect(actor.options.inspect).toBeUndefined();
    await h.runtime.stop();
  });

  it('createRuntime({inspect}) still sees every actor, turns included', async () => {
    const seen: InspectionEvent[] = [];
    const h = await startRuntime({ inspect: (event) => seen.push(event) });
    const root = h.userMessage('u1');
    h.send({ type: 'turn_started', turnId: 'T1', root });
    h.send({ type: 'tool_call', turnId: 'T1', callId: 'c1', tool: 'Read' });
    await settle();
    const snapshotsOf = (id: string) =>
      seen.filter((e) => e.type === '@xstate.snapshot' && (e.actorRef as { id?: string }).id === id);
    expect(snapshotsOf('turn:0').length).toBeGreaterThan(0);
    expect(seen.some((e) => e.type === '@xstate.event' && e.event.type === 'turn.log')).toBe(true);
    await h.runtime.stop();
  });
});
