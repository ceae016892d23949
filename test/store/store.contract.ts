/**
 * The TurnlogStore contract (src/store/store.ts), run against every store:
 * each method, the bounds (oldest pruned first), and the round trip of a real
 * persisted turn snapshot through the store back into a running turn actor.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createActor, type Snapshot } from 'xstate';
import type { RunEvent } from '../../src/events/schema.js';
import { builtinPlatforms } from '../../src/platforms/all.js';
import { provideTurnMachine } from '../../src/runtime/turn.implementations.js';
import type { MemoryStoreLimits } from '../../src/store/memory.js';
import type { PendingAnswerPart, PersistedTurn, TurnlogStore, TurnSummary } from '../../src/store/store.js';
import { entry, SPACE, settle, startTurn } from '../machines/turn.helpers.js';
import { describeOutboxContract } from './outbox.contract.js';

export type StoreFactory = (limits?: Partial<MemoryStoreLimits>) => TurnlogStore;

const OTHER_SPACE = 'slack:C0123';

const turn = (turnId: string, updatedAt: number, snapshot: unknown = { value: 'idle' }): PersistedTurn => ({
  turnId,
  space: SPACE,
  snapshot,
  updatedAt,
});

const summary = (turnId: string, extra: Partial<TurnSummary> = {}): TurnSummary => ({
  turnId,
  space: SPACE,
  state: 'ended',
  outcome: 'ok',
  degraded: false,
  logMessages: [
    { messageId: `spaces/AAAA/messages/${turnId}`, threadId: 'spaces/AAAA/threads/t1', final: true },
  ],
  entries: 3,
  deadLetters: 0,
  endedAt: 1_000,
  ...extra,
});

const toolCall = (turnId: string, seq: number, extra: Record<string, unknown> = {}): RunEvent =>
  ({
    type: 'tool_call',
    space: SPACE,
    turnId,
    callId: `c${seq}`,
    tool: 'Read',
    at: 1_000 + seq,
    seq,
    ...extra,
  }) as RunEvent;

export function describeStoreContract(name: string, createStore: StoreFactory): void {
  describe(`TurnlogStore contract: ${name}`, () => {
    const opened: TurnlogStore[] = [];
    const open = (limits?: Partial<MemoryStoreLimits>) => {
      const store = createStore(limits);
      opened.push(store);
      return store;
    };
    afterEach(async () => {
      for (const store of opened.splice(0)) await store.close();
    });

    describe('live turns', () => {
      it('saveTurn upserts by turnId and loadTurn returns the latest snapshot', async () => {
        const store = open();
        await store.saveTurn(turn('T1', 1, { value: 'idle', context: { n: 1 } }));
        await store.saveTurn(turn('T1', 2, { value: 'opened', context: { n: 2 } }));
        expect(await store.loadTurn('T1')).toEqual(turn('T1', 2, { value: 'opened', context: { n: 2 } }));
        expect(await store.liveTurns()).toHaveLength(1);
        expect(await store.loadTurn('nope')).toBeUndefined();
      });

      it('liveTurns lists every live turn in the order they were first saved', async () => {
        const store = open();
        await store.saveTurn(turn('A', 1));
        await store.saveTurn({ ...turn('B', 2), space: OTHER_SPACE });
        await store.saveTurn(turn('A', 3, { value: 'later' }));
        const live = await store.liveTurns();
        expect(live.map((t) => [t.turnId, t.space, t.updatedAt])).toEqual([
          ['A', SPACE, 3],
          ['B', OTHER_SPACE, 2],
        ]);
        expect(live[0]?.snapshot).toEqual({ value: 'later' });
      });

      it('finishTurn drops the live snapshot and keeps the summary', async () => {
        const store = open();
        await store.saveTurn(turn('A', 1));
        await store.saveTurn(turn('B', 1));
        const done = summary('A', {
          outcome: null,
          degraded: true,
          logMessages: [
            { messageId: 'm1', threadId: 't1', final: true },
            { messageId: 'm2', final: false },
          ],
          deadLetters: 2,
        });
        await store.finishTurn(done);
        expect(await store.loadTurn('A')).toBeUndefined();
        expect((await store.liveTurns()).map((t) => t.turnId)).toEqual(['B']);
        expect(await store.turnSummary('A')).toStrictEqual(done);
        expect(await store.turnSummary('B')).toBeUndefined();
      });

      it('keeps at most `summaries` finished turns, pruning the oldest (a finished-again turn is the newest)', async () => {
        const store = open({ summaries: 2 });
        await store.finishTurn(summary('A', { endedAt: 1 }));
        await store.finishTurn(summary('B', { endedAt: 2 }));
        await store.finishTurn(summary('A', { endedAt: 3 }));
        await store.finishTurn(summary('C', { endedAt: 4 }));
        expect(await store.turnSummary('B')).toBeUndefined();
        expect((await store.turnSummary('A'))?.endedAt).toBe(3);
        expect((await store.turnSummary('C'))?.endedAt).toBe(4);
      });
    });

    describe('anchors', () => {
      it('returns the newest `limit` anchors of a space, oldest first, with their optional fields as saved', async () => {
        const store = open();
        await store.saveAnchor(SPACE, { messageId: 'm1' });
        await store.saveAnchor(SPACE, { messageId: 'm2', threadId: 't2' });
        await store.saveAnchor(OTHER_SPACE, { messageId: 'x1', ref: 'other' });
        await store.saveAnchor(SPACE, { messageId: 'm3', threadId: 't3', ref: 'u3' });
        expect(await store.anchors(SPACE, 10)).toStrictEqual([
          { messageId: 'm1' },
          { messageId: 'm2', threadId: 't2' },
          { messageId: 'm3', threadId: 't3', ref: 'u3' },
        ]);
        expect((await store.anchors(SPACE, 2)).map((a) => a.messageId)).toEqual(['m2', 'm3']);
        expect(await store.anchors(OTHER_SPACE, 10)).toStrictEqual([{ messageId: 'x1', ref: 'other' }]);
        expect(await store.anchors('discord:42', 10)).toEqual([]);
      });

      it('keeps at most `anchorsPerSpace` anchors per space, pruning the oldest', async () => {
        const store = open({ anchorsPerSpace: 3 });
        for (let i = 1; i <= 5; i++) await store.saveAnchor(SPACE, { messageId: `m${i}` });
        await store.saveAnchor(OTHER_SPACE, { messageId: 'x1' });
        expect((await store.anchors(SPACE, 10)).map((a) => a.messageId)).toEqual(['m3', 'm4', 'm5']);
        expect((await store.anchors(OTHER_SPACE, 10)).map((a) => a.messageId)).toEqual(['x1']);
      });
    });

    describe('the run record', () => {
      it('keeps each turn’s events in seq order, every field as accepted (unknown fields too)', async () => {
        const store = open();
        const first = toolCall('T1', 1, { input: { path: 'a.ts' }, hostField: { nested: [1, 2] } });
        await store.appendEvent(first);
        await store.appendEvent(toolCall('T2', 1));
        await store.appendEvent(toolCall('T1', 2));
        const ended = { type: 'turn_ended', space: SPACE, turnId: 'T1', outcome: 'ok', at: 2_000, seq: 3 };
        await store.appendEvent(ended as RunEvent);
        const events = await store.events('T1');
        expect(events.map((e) => e.seq)).toEqual([1, 2, 3]);
        expect(events[0]).toStrictEqual(first);
        expect(events[2]).toStrictEqual(ended);
        expect((await store.events('T2')).map((e) => e.seq)).toEqual([1]);
        expect(await store.events('unknown')).toEqual([]);
      });

      it('keys events without a turnId by their space', async () => {
        const store = open();
        const inbound = { type: 'inbound', space: SPACE, messageId: 'm1', ref: 'u1', at: 5 } as RunEvent;
        await store.appendEvent(inbound);
        await store.appendEvent({ type: 'inbound', space: OTHER_SPACE, messageId: 'x1', at: 6 } as RunEvent);
        expect(await store.events(`space:${SPACE}`)).toStrictEqual([inbound]);
        expect((await store.events(`space:${OTHER_SPACE}`)).map((e) => e.space)).toEqual([OTHER_SPACE]);
      });

      it('keeps at most `eventsPerTurn` events per turn, pruning the oldest', async () => {
        const store = open({ eventsPerTurn: 3 });
        for (let seq = 1; seq <= 5; seq++) await store.appendEvent(toolCall('T1', seq));
        await store.appendEvent(toolCall('T2', 1));
        expect((await store.events('T1')).map((e) => e.seq)).toEqual([3, 4, 5]);
        await store.appendEvent(toolCall('T1', 6));
        expect((await store.events('T1')).map((e) => e.seq)).toEqual([4, 5, 6]);
        expect((await store.events('T2')).map((e) => e.seq)).toEqual([1]);
      });

      it('keeps the run records of at most `turnsWithEvents` turns, forgetting the least recently appended', async () => {
        const store = open({ turnsWithEvents: 2 });
        await store.appendEvent(toolCall('A', 1));
        await store.appendEvent(toolCall('B', 1));
        await store.appendEvent(toolCall('A', 2));
        await store.appendEvent(toolCall('C', 1));
        expect(await store.events('B')).toEqual([]);
        expect((await store.events('A')).map((e) => e.seq)).toEqual([1, 2]);
        expect((await store.events('C')).map((e) => e.seq)).toEqual([1]);
      });

      it('never forgets the run record of a live turn (its seq and eventIds resume from it after a restart)', async () => {
        const store = open({ turnsWithEvents: 2 });
        await store.saveTurn(turn('LIVE', 1));
        await store.appendEvent(toolCall('LIVE', 1));
        await store.appendEvent(toolCall('B', 1));
        await store.appendEvent(toolCall('C', 1));
        await store.appendEvent(toolCall('D', 1));
        expect((await store.events('LIVE')).map((e) => e.seq)).toEqual([1]);
        expect(await store.events('B')).toEqual([]);
        expect((await store.events('D')).map((e) => e.seq)).toEqual([1]);
        // Once the turn has finished, its record is pruned like any other.
        await store.finishTurn(summary('LIVE'));
        await store.appendEvent(toolCall('E', 1));
        expect(await store.events('LIVE')).toEqual([]);
      });
    });

    describe('dead letters', () => {
      const record = (n: number) => ({
        at: n,
        source: 'ingest',
        reason: `bad line ${n}`,
        payload: `{"n":${n}}`,
      });

      it('returns the newest `limit` records, oldest first, as recorded', async () => {
        const store = open();
        for (let n = 1; n <= 4; n++) await store.deadLetter(record(n));
        await store.deadLetter({
          at: 5,
          source: 'turn:T1',
          reason: 'edit failed',
          payload: 'tool: Read(a.ts)',
        });
        expect((await store.deadLetters(2)).map((d) => d.at)).toEqual([4, 5]);
        expect((await store.deadLetters()).map((d) => d.at)).toEqual([1, 2, 3, 4, 5]);
        expect((await store.deadLetters(1))[0]).toStrictEqual({
          at: 5,
          source: 'turn:T1',
          reason: 'edit failed',
          payload: 'tool: Read(a.ts)',
        });
      });

      it('keeps at most `deadLetters` records, pruning the oldest', async () => {
        const store = open({ deadLetters: 3 });
        for (let n = 1; n <= 5; n++) await store.deadLetter(record(n));
        expect((await store.deadLetters()).map((d) => d.at)).toEqual([3, 4, 5]);
        expect((await store.deadLetters(10)).map((d) => d.at)).toEqual([3, 4, 5]);
      });
    });

    describe('post refs by client id', () => {
      it('looks up the message recorded for a client id', async () => {
        const store = open();
        await store.recordPost('T1:0', { messageId: 'm1', threadId: 't1' });
        await store.recordPost('T1:1', { messageId: 'm2' });
        expect(await store.lookupPost('T1:0')).toStrictEqual({ messageId: 'm1', threadId: 't1' });
        expect(await store.lookupPost('T1:1')).toStrictEqual({ messageId: 'm2' });
        expect(await store.lookupPost('T1:2')).toBeUndefined();
        await store.recordPost('T1:1', { messageId: 'm3' });
        expect(await store.lookupPost('T1:1')).toStrictEqual({ messageId: 'm3' });
      });

      it('keeps at most `posts` refs, forgetting the least recently recorded', async () => {
        const store = open({ posts: 2 });
        await store.recordPost('a', { messageId: 'ma' });
        await store.recordPost('b', { messageId: 'mb' });
        await store.recordPost('a', { messageId: 'ma2' });
        await store.recordPost('c', { messageId: 'mc' });
        expect(await store.lookupPost('b')).toBeUndefined();
        expect(await store.lookupPost('a')).toEqual({ messageId: 'ma2' });
        expect(await store.lookupPost('c')).toEqual({ messageId: 'mc' });
      });
    });

    describe('space settings changed at run time', () => {
      it('saves each space’s settings, replacing what was saved for it, and lists them all', async () => {
        const store = open();
        expect(await store.spaceSettings()).toEqual({});
        await store.saveSpaceSettings(SPACE, { threadsDisabled: true });
        await store.saveSpaceSettings(OTHER_SPACE, { dm: false, threadsDisabled: false });
        await store.saveSpaceSettings(SPACE, { dm: true });
        expect(await store.spaceSettings()).toStrictEqual({
          [SPACE]: { dm: true },
          [OTHER_SPACE]: { dm: false, threadsDisabled: false },
        });
      });

      it('forgets a space’s settings when `{}` is saved for it', async () => {
        const store = open();
        await store.saveSpaceSettings(SPACE, { threadsDisabled: true });
        await store.saveSpaceSettings(OTHER_SPACE, { dm: true });
        await store.saveSpaceSettings(SPACE, {});
        expect(await store.spaceSettings()).toStrictEqual({ [OTHER_SPACE]: { dm: true } });
      });

      it('keeps a copy: changing the saved object afterwards changes nothing', async () => {
        const store = open();
        const settings = { threadsDisabled: true };
        await store.saveSpaceSettings(SPACE, settings);
        settings.threadsDisabled = false;
        const listed = await store.spaceSettings();
        (listed[SPACE] as { dm?: boolean }).dm = true;
        expect(await store.spaceSettings()).toStrictEqual({ [SPACE]: { threadsDisabled: true } });
      });
    });

    describe('stray logs (issue 9 · stray log survives a restart)', () => {
      const strayLog = (space: string, updatedAt: number, text: string) => ({
        space,
        snapshot: { value: { window: 'open', writer: 'idle' }, context: { space, lines: [{ text }] } },
        updatedAt,
      });

      it('keeps one stray log per space, the latest saved, and lists them all', async () => {
        const store = open();
        expect(await store.strayLogs()).toEqual([]);
        await store.saveStrayLog(strayLog(SPACE, 1, 'first'));
        await store.saveStrayLog(strayLog(OTHER_SPACE, 2, 'other'));
        await store.saveStrayLog(strayLog(SPACE, 3, 'second'));
        const logs = await store.strayLogs();
        expect(logs).toHaveLength(2);
        expect(logs.find((l) => l.space === SPACE)).toEqual(strayLog(SPACE, 3, 'second'));
        expect(logs.find((l) => l.space === OTHER_SPACE)).toEqual(strayLog(OTHER_SPACE, 2, 'other'));
      });

      it('forgets a space’s stray log, and only that one', async () => {
        const store = open();
        await store.saveStrayLog(strayLog(SPACE, 1, 'first'));
        await store.saveStrayLog(strayLog(OTHER_SPACE, 2, 'other'));
        await store.forgetStrayLog(SPACE);
        await store.forgetStrayLog('gchat:spaces/NEVER');
        expect(await store.strayLogs()).toEqual([strayLog(OTHER_SPACE, 2, 'other')]);
        // Saved again after it was forgotten: it is back.
        await store.saveStrayLog(strayLog(SPACE, 4, 'again'));
        expect((await store.strayLogs()).map((l) => l.space).sort()).toEqual([OTHER_SPACE, SPACE].sort());
      });
    });

    describe('pending answer parts (issue 9 · answers are never lost: a multi-part answer survives kill -9)', () => {
      const part = (key: string, n: number, parts: number, extra: Partial<PendingAnswerPart> = {}) => ({
        space: SPACE,
        key,
        part: n,
        parts,
        turnId: 'T1',
        text: `paragraph ${n} of ${key}`,
        savedAt: 100 + n,
        ...extra,
      });

      it('keeps every part saved, in the order saved, with its thread and turn', async () => {
        const store = open();
        expect(await store.pendingAnswerParts()).toEqual([]);
        const thread = { rootMessageId: 'spaces/AAAA/messages/root', threadId: 'spaces/AAAA/threads/t1' };
        await store.saveAnswerParts([
          part('T1:answer:5', 0, 3),
          part('T1:answer:5', 1, 3),
          part('T1:answer:5', 2, 3),
        ]);
        await store.saveAnswerParts([
          part('T2:answer:9', 0, 1, { space: OTHER_SPACE, turnId: 'T2', thread }),
        ]);
        expect(await store.pendingAnswerParts()).toEqual([
          part('T1:answer:5', 0, 3),
          part('T1:answer:5', 1, 3),
          part('T1:answer:5', 2, 3),
          part('T2:answer:9', 0, 1, { space: OTHER_SPACE, turnId: 'T2', thread }),
        ]);
      });

      it('forgets a part once delivered, and only that part of that answer in that space', async () => {
        const store = open();
        await store.saveAnswerParts([part('K', 0, 3), part('K', 1, 3), part('K', 2, 3)]);
        await store.saveAnswerParts([
          part('K', 0, 2, { space: OTHER_SPACE }),
          part('K', 1, 2, { space: OTHER_SPACE }),
        ]);
        await store.forgetAnswerPart(SPACE, 'K', 0);
        await store.forgetAnswerPart(SPACE, 'K', 1);
        await store.forgetAnswerPart(SPACE, 'NEVER', 0);
        expect(await store.pendingAnswerParts()).toEqual([
          part('K', 2, 3),
          part('K', 0, 2, { space: OTHER_SPACE }),
          part('K', 1, 2, { space: OTHER_SPACE }),
        ]);
        await store.forgetAnswerPart(SPACE, 'K', 2);
        expect((await store.pendingAnswerParts()).map((p) => p.space)).toEqual([OTHER_SPACE, OTHER_SPACE]);
      });

      it('a part saved again replaces the one kept; what it hands out is a copy', async () => {
        const store = open();
        await store.saveAnswerParts([part('K', 0, 1, { text: 'first' })]);
        await store.saveAnswerParts([part('K', 0, 1, { text: 'again' })]);
        const kept = await store.pendingAnswerParts();
        expect(kept).toEqual([part('K', 0, 1, { text: 'again' })]);
        (kept[0] as { text: string }).text = 'changed by the caller';
        expect((await store.pendingAnswerParts())[0]?.text).toBe('again');
      });
    });

    describeOutboxContract(open);

    describe('a persisted turn actor', () => {
      it('round-trips: the restored actor has the same state and context and keeps editing the same log message', async () => {
        const store = open();
        const t = startTurn();
        t.actor.send({ type: 'turn.log', entry: entry('tool: Read(src/app.ts)') });
        await settle();
        t.actor.send({ type: 'turn.log', entry: entry('tool: Bash(npm test)') });
        await t.advance(1_000);
        t.actor.send({ type: 'turn.log', entry: entry('tool: Edit(src/app.ts)') });
        await settle();
        const before = t.actor.getSnapshot();
        expect(before.value).toEqual({ debouncing: 'waiting' });
        await store.saveTurn({
          turnId: 'T1',
          space: SPACE,
          snapshot: t.actor.getPersistedSnapshot(),
          updatedAt: t.clock.now(),
        });
        t.actor.stop();

        const loaded = await store.loadTurn('T1');
        expect(loaded).toBeDefined();
        const machine = provideTurnMachine({
          platforms: builtinPlatforms,
          surfaces: t.surface,
          budget: 'unlimited',
        });
        const { turnId, space, anchor, settings } = before.context;
        const restored = createActor(machine, {
          clock: t.clock,
          snapshot: loaded?.snapshot as Snapshot<unknown>,
          // Required by the types; a restored actor takes its context from the snapshot.
          input: { turnId, space, anchor, settings },
        });
        restored.start();
        expect(restored.getSnapshot().value).toEqual(before.value);
        expect(restored.getSnapshot().context).toEqual(before.context);

        restored.send({ type: 'turn.recover' });
        await t.advance(1_000);
        const updates = t.surface.calls.filter((c) => c.op === 'update');
        expect(updates.at(-1)?.messageId).toBe(before.context.current?.messageId);
        expect(updates.at(-1)?.text).toMatch(
          /Read\(src\/app\.ts\)[\s\S]*npm test[\s\S]*Edit\(src\/app\.ts\)/,
        );
        expect(t.surface.calls.filter((c) => c.op === 'create')).toHaveLength(1);
        restored.stop();
      });
    });
  });
}
