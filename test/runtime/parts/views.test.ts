/**
 * Issue 21.5: turn views (src/runtime/views.ts) and restore
 * (src/runtime/restore.ts) on their own. A finished turn's view is kept and
 * its summary stored; an answer refused for good degrades its turn's view,
 * also after the turn ended; a turn that crashed for good is finished at
 * once and completed by its `turn_ended`, also in a later process. Restore
 * groups the store's live turns by space, with the spaces that have a
 * stray log or unposted answers, and gives each space its part once.
 */
import { describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { resolveConfig } from '../../../src/config.js';
import { createDurability } from '../../../src/runtime/durability.js';
import { createRestorePlan } from '../../../src/runtime/restore.js';
import { createSpaceOverrides } from '../../../src/runtime/settings.js';
import type { TurnView } from '../../../src/runtime/types.js';
import { createTurnViews } from '../../../src/runtime/views.js';
import { createMemoryStore } from '../../../src/store/memory.js';
import type { TurnlogStore } from '../../../src/store/store.js';

const SPACE = 'gchat:spaces/AAAA';
const OTHER = 'gchat:spaces/BBBB';

function views(store: TurnlogStore = createMemoryStore(), live = new Set<string>()) {
  return createTurnViews({
    store,
    clock: new SimulatedClock(),
    durability: createDurability({ warn: () => {}, error: () => {} }),
    isLive: (turnId) => live.has(turnId),
  });
}

const ended = (turnId: string): TurnView => ({
  turnId,
  space: SPACE,
  state: 'ended',
  entries: 3,
  logMessages: [{ messageId: 'm1', final: true }],
  degraded: false,
  outcome: 'ok',
  warnings: [],
  deadLetters: 0,
});

describe('turn views', () => {
  it('keeps a finished turn’s view and stores its summary; a refused answer degrades both', async () => {
    const store = createMemoryStore();
    const v = views(store);
    v.finish(ended('T1'));
    expect(v.view('T1', undefined)).toMatchObject({ state: 'ended', degraded: false });
    v.answerFailed('T1', 'answer not delivered: too long');
    expect(v.view('T1', undefined)).toMatchObject({
      degraded: true,
      warnings: ['answer not delivered: too long'],
      deadLetters: 1,
    });
    expect(await store.turnSummary('T1')).toMatchObject({ degraded: true, deadLetters: 1, outcome: 'ok' });
  });

  it('a turn crashed for good is finished at once, `crashed`; its turn_ended completes it, also in a later process', async () => {
    const store = createMemoryStore();
    const v = views(store);
    v.crashed(SPACE, 'T1', { context: { entryCount: 2, logMessages: [], warnings: ['w'], deadLetters: [] } });
    expect(await store.turnSummary('T1')).toMatchObject({ state: 'crashed', outcome: null, entries: 2 });
    v.endedWithoutActor('T1', 'error');
    expect(await store.turnSummary('T1')).toMatchObject({ state: 'ended', outcome: 'error' });

    v.crashed(SPACE, 'T2', undefined);
    const later = views(store);
    later.endedWithoutActor('T2', 'ok');
    await Promise.resolve();
    expect(await store.turnSummary('T2')).toMatchObject({ state: 'ended', outcome: 'ok' });
    // An unknown turn's end stores nothing.
    later.endedWithoutActor('NOPE', 'ok');
    expect(await store.turnSummary('NOPE')).toBeUndefined();
  });
});

describe('restore plan', () => {
  it('groups live turns by space, adds spaces with a stray log or unposted answers, and hands each part out once', async () => {
    const store = createMemoryStore();
    const snapshot = (turnId: string) => ({ status: 'active', context: { turnId, anchor: null } });
    await store.saveTurn({ turnId: 'T1', space: SPACE, snapshot: snapshot('T1'), updatedAt: 0 });
    await store.saveTurn({ turnId: 'T2', space: SPACE, snapshot: snapshot('T2'), updatedAt: 0 });
    await store.saveStrayLog({ space: OTHER, snapshot: { context: {} }, updatedAt: 0 });
    await store.saveAnchor(SPACE, { messageId: 'm1', ref: 'u1' });
    await store.saveSpaceSettings(SPACE, { threadsDisabled: true });
    const remembered: string[] = [];
    const resumed: string[] = [];
    const strays: string[] = [];
    const overrides = createSpaceOverrides(resolveConfig({}));
    const plan = createRestorePlan({
      store,
      overrides,
      snapshots: {
        remember: (turnId) => remembered.push(turnId),
        restoreStrayLog: (space) => strays.push(space),
      },
      pendingAnswers: { load: () => {}, spaces: () => [] },
      runRecord: { resumeTurn: async (turn) => void resumed.push(turn.turnId) },
      anchorCapacity: 50,
    });
    expect((await plan.load()).sort()).toEqual([SPACE, OTHER].sort());
    expect(remembered).toEqual(['T1', 'T2']);
    expect(resumed).toEqual(['T1', 'T2']);
    expect(strays).toEqual([OTHER]);
    expect(overrides.own(SPACE)).toMatchObject({ threadsDisabled: true });
    expect(plan.takeTurns(SPACE).map((t) => [t.turnId, t.record.mode])).toEqual([
      ['T1', 'live'],
      ['T2', 'live'],
    ]);
    expect(plan.takeTurns(SPACE)).toEqual([]);
    expect(plan.takeAnchors(SPACE)).toMatchObject([{ messageId: 'm1', ref: 'u1' }]);
    expect(plan.takeAnchors(SPACE)).toEqual([]);
  });
});
