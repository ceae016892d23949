/**
 * What a runtime takes up from the store before its first event (`ready`):
 * the space settings changed at run time, the live turns (their snapshots
 * and sequences), the stray logs that were live, the answer parts not posted
 * yet, and the recent anchors of every space that has any of these. Each
 * space is then restored once, when the root starts it
 * (`runtime.restore`); a space restored takes its own part of the plan.
 */
import type { InboundAnchor, RestoredTurn } from '../../machines/space.machine.js';
import type { TurnlogStore } from '../store/store.js';
import type { PendingAnswers } from './pending-answers.js';
import type { RunRecord } from './run-record.js';
import type { SpaceOverridesMap } from './settings.js';
import type { SnapshotWriter } from './snapshots.js';
import { recordFromSnapshot } from './snapshots.js';

export interface RestoreDeps {
  store: TurnlogStore;
  overrides: SpaceOverridesMap;
  snapshots: Pick<SnapshotWriter, 'remember' | 'restoreStrayLog'>;
  pendingAnswers: Pick<PendingAnswers, 'load' | 'spaces'>;
  runRecord: Pick<RunRecord, 'resumeTurn'>;
  anchorCapacity: number;
}

export function createRestorePlan(deps: RestoreDeps) {
  const { store, overrides, snapshots, pendingAnswers, runRecord } = deps;
  /** Turns to restore, grouped by space. */
  const turns = new Map<string, RestoredTurn[]>();
  const anchors = new Map<string, InboundAnchor[]>();

  return {
    /** Reads the store; resolves with the spaces to restore. */
    async load(): Promise<string[]> {
      for (const [space, saved] of Object.entries(await store.spaceSettings())) overrides.load(space, saved);
      // A space whose stray log was live is restored too, so it keeps editing the same message.
      for (const log of await store.strayLogs()) {
        snapshots.restoreStrayLog(log.space, log.snapshot);
        if (!turns.has(log.space)) turns.set(log.space, []);
      }
      // A space with answer parts not posted yet is restored too: they go out again, in order.
      pendingAnswers.load(await store.pendingAnswerParts());
      for (const space of pendingAnswers.spaces()) if (!turns.has(space)) turns.set(space, []);
      for (const turn of await store.liveTurns()) {
        const list = turns.get(turn.space) ?? [];
        list.push({
          turnId: turn.turnId,
          record: recordFromSnapshot(turn.snapshot),
          snapshot: turn.snapshot,
        });
        turns.set(turn.space, list);
        snapshots.remember(turn.turnId, turn.space, turn.snapshot);
        await runRecord.resumeTurn(turn);
      }
      for (const space of turns.keys()) anchors.set(space, await store.anchors(space, deps.anchorCapacity));
      return [...turns.keys()];
    },
    /** A space's turns to restore, once. */
    takeTurns(space: string): RestoredTurn[] {
      const list = turns.get(space) ?? [];
      turns.delete(space);
      return list;
    },
    /** A space's recent anchors, once (the space started first takes them). */
    takeAnchors(space: string): InboundAnchor[] {
      const list = anchors.get(space) ?? [];
      anchors.delete(space);
      return list;
    },
  };
}

export type RestorePlan = ReturnType<typeof createRestorePlan>;
