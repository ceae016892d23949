/**
 * A space supervisor's child ids are bounded by its concurrency, not by the
 * turns it has finished (docs/architecture.md §Data flow 2: nothing in a space
 * grows with the turns it has finished). XState memoizes the transitions a
 * state node has for each event type it receives and never forgets them; a
 * child's `xstate.done.actor.<id>` / `xstate.error.actor.<id>` event has its
 * id in its type, so ids unique per turn (`turn:<turnId>`, `delivery:<n>`)
 * made every finished turn cost the space ~250 bytes forever. Turn and
 * delivery children reuse slots (`turn:0`, `turn:1` …, `delivery:0` …): a
 * slot is freed when its child is stopped and taken by the next spawn.
 *
 * Also: a failed delivery's dead letter is stamped with the runtime clock's
 * time, and a delivery's budget card id names its space.
 */
import { describe, expect, it } from 'vitest';
import { type AnyActorRef, type AnyMachineSnapshot, type InspectionEvent, SimulatedClock } from 'xstate';
import type { BudgetMachineContext } from '../../machines/budget.machine.js';
import { spaceChildId } from '../../machines/runtime.machine.js';
import type { SpaceContext } from '../../machines/space.machine.js';
import type { Runtime } from '../../src/runtime.js';
import { createMemoryStore } from '../../src/store/memory.js';
import { createMemorySurface } from '../../src/testing/memory-surface.js';
import { type Harness, SPACE, startRuntime } from './runtime.helpers.js';

const TURNS = 200;
const CONCURRENT = 5;
const OTHER_SPACE = 'gchat:spaces/BBBB';

/** What inspection saw: ids of the actors started, event types each space received, the budget bookings. */
function recorder() {
  const actorIds = new Set<string>();
  const spaceEventTypes = new Map<string, Set<string>>();
  const terminalCards: string[] = [];
  const inspect = (event: InspectionEvent) => {
    const ref = event.actorRef as AnyActorRef;
    if (event.type === '@xstate.actor') actorIds.add(ref.id);
    if (event.type !== '@xstate.event') return;
    if (ref.id.startsWith('space:')) {
      const types = spaceEventTypes.get(ref.id) ?? new Set<string>();
      types.add(event.event.type);
      spaceEventTypes.set(ref.id, types);
    }
    if (
      event.event.type === 'budget.terminal.book' &&
      (event.sourceRef as AnyActorRef | undefined)?.id.startsWith('delivery:')
    ) {
      terminalCards.push(String(event.event.cardId));
    }
  };
  return { actorIds, spaceEventTypes, terminalCards, inspect };
}

function spaceOf(runtime: Runtime, space = SPACE): AnyActorRef {
  const actor = (runtime.actor.getSnapshot() as AnyMachineSnapshot).children[spaceChildId(space)] as
    | AnyActorRef
    | undefined;
  if (!actor) throw new Error(`no space actor for ${space}`);
  return actor;
}

const spaceContext = (runtime: Runtime, space = SPACE) =>
  (spaceOf(runtime, space).getSnapshot() as AnyMachineSnapshot).context as SpaceContext;
/** The space's turn and delivery children (its one stray log, `strays`, lives as long as the space). */
const childIds = (runtime: Runtime, space = SPACE): string[] =>
  Object.keys((spaceOf(runtime, space).getSnapshot() as AnyMachineSnapshot).children)
    .filter((id) => id !== 'strays')
    .sort();

/** Advances the clock a second at a time until `done` holds (at most `maxS` simulated seconds). */
async function advanceUntil(h: Harness, done: () => boolean, maxS = 600): Promise<void> {
  for (let s = 0; s < maxS && !done(); s++) await h.advance(1000);
  if (!done()) throw new Error(`still not done after ${maxS} simulated seconds`);
}

const answersPosted = (h: Harness) =>
  h.surface.calls.filter((c) => c.op === 'create' && c.thread === null && c.status < 300).length;

describe('space supervisor: child ids reused per space', () => {
  it(`${TURNS} answered turns, ${CONCURRENT} at a time, use ${CONCURRENT} turn and at most ${CONCURRENT} delivery ids; the space sees a bounded set of event types`, async () => {
    const seen = recorder();
    const h = await startRuntime({ inspect: seen.inspect });
    for (let first = 0; first < TURNS; first += CONCURRENT) {
      const wave = Array.from({ length: CONCURRENT }, (_, k) => `T${first + k}`);
      for (const turnId of wave) {
        const root = h.surface.inbound({ space: SPACE, text: `question ${turnId}` });
        h.send({
          type: 'turn_started',
          turnId,
          root: { messageId: root.messageId, threadId: root.threadId },
        });
        h.send({ type: 'tool_call', turnId, callId: 'c1', tool: 'Read', input: { path: 'a.ts' } });
      }
      // A live turn is found by its turnId whatever slot it runs in.
      expect(wave.map((turnId) => h.runtime.turn(turnId)?.turnId)).toEqual(wave);
      for (const turnId of wave) {
        h.send({ type: 'answer', turnId, text: `answer ${turnId}` });
        h.send({ type: 'turn_ended', turnId, outcome: 'ok' });
      }
      await advanceUntil(
        h,
        () =>
          answersPosted(h) === first + CONCURRENT &&
          wave.every((turnId) => h.runtime.turn(turnId)?.state === 'ended') &&
          childIds(h.runtime).length === 0,
      );
    }

    const ids = [...seen.actorIds];
    const turnIds = ids.filter((id) => id.startsWith('turn:')).sort();
    const deliveryIds = ids.filter((id) => id.startsWith('delivery:')).sort();
    expect(turnIds).toEqual(Array.from({ length: CONCURRENT }, (_, slot) => `turn:${slot}`));
    expect(deliveryIds.length).toBeGreaterThan(0);
    expect(deliveryIds.length).toBeLessThanOrEqual(CONCURRENT);
    // Each turn's presence (its reactions, issue 26) reuses slots too: ids per slot, not per turn.
    const presenceIds = ids.filter((id) => id.startsWith('presence:')).sort();
    expect(presenceIds.length).toBeGreaterThan(0);
    expect(presenceIds.length).toBeLessThanOrEqual(CONCURRENT);
    // Every answer still had its own delivery, and nothing is left over.
    const context = spaceContext(h.runtime);
    expect(context.deliveries).toBe(TURNS);
    expect(context.turns).toEqual({});
    expect(context.turnSlots).toEqual([]);
    expect(context.deliverySlots).toEqual([]);
    expect(context.presenceSlots).toEqual([]);
    // The state nodes' per-event-type memo grows with the distinct types the space receives:
    // The four typed run events (`space.inbound`, `.turnStarted`, `.entry`, `.turnEnded`) plus a
    // done event per slot, not one per finished turn, delivery and presence.
    const types = [...(seen.spaceEventTypes.get(spaceChildId(SPACE)) ?? [])];
    expect(types.length).toBeLessThanOrEqual(4 + 3 * CONCURRENT);
    expect(types.filter((t) => t.startsWith('xstate.done.actor.turn:')).sort()).toEqual(
      turnIds.map((id) => `xstate.done.actor.${id}`),
    );
    await h.runtime.stop();
  });

  it('a slot freed by a finished turn is taken by the next one; live turns keep theirs', async () => {
    const h = await startRuntime();
    const start = (turnId: string) => {
      const root = h.surface.inbound({ space: SPACE, text: `question ${turnId}` });
      h.send({ type: 'turn_started', turnId, root: { messageId: root.messageId, threadId: root.threadId } });
      h.send({ type: 'tool_call', turnId, callId: 'c1', tool: 'Read' });
    };
    start('A');
    start('B');
    start('C');
    expect(childIds(h.runtime)).toEqual([
      'presence:0',
      'presence:1',
      'presence:2',
      'turn:0',
      'turn:1',
      'turn:2',
    ]);
    h.send({ type: 'turn_ended', turnId: 'B', outcome: 'ok' });
    await advanceUntil(
      h,
      () =>
        h.runtime.turn('B')?.state === 'ended' &&
        !childIds(h.runtime).includes('turn:1') &&
        !childIds(h.runtime).includes('presence:1'),
    );
    start('D');
    const context = spaceContext(h.runtime);
    expect(context.turnSlots).toEqual(['A', 'D', 'C']);
    // B's presence left once its final reaction was written: D's presence takes its slot.
    expect(context.presenceSlots).toEqual(['A', 'D', 'C']);
    expect(Object.fromEntries(Object.entries(context.turns).map(([id, r]) => [id, r.slot]))).toEqual({
      A: 0,
      C: 2,
      D: 1,
    });
    // Entries reach the right actor through the slot.
    h.send({ type: 'tool_call', turnId: 'D', callId: 'c2', tool: 'Grep' });
    await h.advance(3000);
    expect(h.runtime.turn('D')?.entries).toBe(2);
    expect(h.runtime.turn('A')?.entries).toBe(1);
    await h.runtime.stop();
  });

  it('restored turns take slots like new ones, and are found by their turnId', async () => {
    const clock = new SimulatedClock();
    const store = createMemoryStore();
    const surface = createMemorySurface({ platform: 'gchat', now: () => clock.now() });
    const first = await startRuntime({ clock, store, surface });
    for (const turnId of ['R1', 'R2']) {
      const root = surface.inbound({ space: SPACE, text: `question ${turnId}` });
      first.send({
        type: 'turn_started',
        turnId,
        root: { messageId: root.messageId, threadId: root.threadId },
      });
      first.send({ type: 'tool_call', turnId, callId: 'c1', tool: 'Read' });
    }
    await first.advance(3000);
    await first.runtime.stop();

    const second = await startRuntime({ clock, store, surface });
    await second.advance(100);
    expect(childIds(second.runtime)).toEqual(['turn:0', 'turn:1']);
    expect(second.runtime.turn('R1')?.state).not.toBe('ended');
    expect(second.runtime.turn('R2')?.entries).toBe(1);
    const root = surface.inbound({ space: SPACE, text: 'question R3' });
    second.send({
      type: 'turn_started',
      turnId: 'R3',
      root: { messageId: root.messageId, threadId: root.threadId },
    });
    expect(spaceContext(second.runtime).turns.R3?.slot).toBe(2);
    for (const turnId of ['R1', 'R2', 'R3']) second.send({ type: 'turn_ended', turnId, outcome: 'ok' });
    await advanceUntil(second, () => childIds(second.runtime).length === 0);
    expect(['R1', 'R2', 'R3'].map((turnId) => second.runtime.turn(turnId)?.state)).toEqual([
      'ended',
      'ended',
      'ended',
    ]);
    await second.runtime.stop();
  });

  it("a failed delivery's dead letter is stamped with the runtime clock's time", async () => {
    const clock = new SimulatedClock();
    clock.set(1_000_000);
    const h = await startRuntime({ clock });
    h.surface.fail({ op: 'create', status: 403 });
    h.send({ type: 'answer', turnId: 'X1', text: 'an answer nobody will see' });
    await advanceUntil(h, () => spaceContext(h.runtime).deadLetters.length === 1);
    const [letter] = spaceContext(h.runtime).deadLetters;
    expect(letter?.at).toBeGreaterThanOrEqual(1_000_000);
    expect(letter?.at).toBeLessThanOrEqual(clock.now());
    await h.runtime.stop();
  });

  it("deliveries' budget card ids name their space (slot 0 of two spaces differ) and leave no card in the registry", async () => {
    const seen = recorder();
    const h = await startRuntime({ inspect: seen.inspect });
    h.send({ type: 'answer', turnId: 'X1', text: 'first space' });
    h.runtime.ingest({ space: OTHER_SPACE, type: 'answer', turnId: 'Y1', text: 'second space' });
    await advanceUntil(h, () => answersPosted(h) === 2 && childIds(h.runtime).length === 0);
    expect(seen.terminalCards).toHaveLength(2);
    expect(new Set(seen.terminalCards).size).toBe(2);
    expect(seen.terminalCards[0]).toContain(SPACE);
    expect(seen.terminalCards[1]).toContain(OTHER_SPACE);
    const budget = (h.runtime.actor.getSnapshot() as AnyMachineSnapshot).children[
      'budget:gchat'
    ] as AnyActorRef;
    const { registry } = ((budget.getSnapshot() as AnyMachineSnapshot).context as BudgetMachineContext)
      .budget;
    expect(registry.cards).toEqual({});
    await h.runtime.stop();
  });
});
