/**
 * Snapshot writing. Every live turn's persisted snapshot is saved after the
 * work that changed it: a turn makes several snapshots per event (and a
 * batch of events many), but only the newest of a run of synchronous work is
 * written, at the end of the current job (a microtask, so before the SQLite
 * store's per-tick commit takes it with the events that caused it), and at
 * once by `writeAll()` (`sync()`, `stop()`, a space restart) and by whoever
 * needs a turn's persisted snapshot (a turn restart). Each space's stray log
 * is persisted the same way (docs/architecture.md, "Stray log"); a quiet one
 * (its minute over, every line shown) is forgotten: it would resume fresh.
 */
import type { AnyMachineSnapshot, AnyStateMachine, Snapshot } from 'xstate';
import type { RestoredTurn, RestoredTurnRecord } from '../../machines/space.machine.js';
import type { StrayLogContext } from '../../machines/stray-log.machine.js';
import type { TurnContext } from '../../machines/turn.machine.js';
import type { Clock } from '../clock.js';
import type { TurnlogStore } from '../store/store.js';
import type { Durability } from './durability.js';

export interface SnapshotWriterDeps {
  store: TurnlogStore;
  clock: Clock;
  durability: Durability;
  /** Warnings a turn adds, each once (for the logger). */
  onTurnWarning: (context: TurnContext, message: string) => void;
  /** A live turn reached its final state (with its last snapshot). */
  onTurnDone: (snapshot: AnyMachineSnapshot) => void;
}

interface Dirty {
  logic: AnyStateMachine;
  snapshot: AnyMachineSnapshot;
}

export function createSnapshotWriter({
  store,
  clock,
  durability,
  onTurnWarning,
  onTurnDone,
}: SnapshotWriterDeps) {
  /** Latest persisted snapshot of every live turn, for restarting a crashed one without a store round trip. */
  const snapshots = new Map<string, { space: string; snapshot: Snapshot<unknown> }>();
  const dirty = new Map<string, Dirty & { space: string }>();
  /** Warnings a turn already reported, so each reaches the logger once. */
  const warned = new Map<string, number>();
  const dirtyStrays = new Map<string, Dirty>();
  /** The latest persisted stray log of each space that has one (a crashed space resumes from it). */
  const strayLogs = new Map<string, unknown>();
  let writeQueued = false;

  const queueWrite = () => {
    if (writeQueued) return;
    writeQueued = true;
    queueMicrotask(writeAll);
  };

  function reportWarnings(context: TurnContext): void {
    const seen = warned.get(context.turnId) ?? 0;
    if (context.warnings.length <= seen) return;
    for (const message of context.warnings.slice(seen)) onTurnWarning(context, message);
    warned.set(context.turnId, context.warnings.length);
  }

  function writeTurn(turnId: string): void {
    const entry = dirty.get(turnId);
    if (!entry) return;
    dirty.delete(turnId);
    const persisted = persistTurnSnapshot(entry.logic, entry.snapshot);
    snapshots.set(turnId, { space: entry.space, snapshot: persisted });
    durability.attempt('saveTurn', () =>
      store.saveTurn({ turnId, space: entry.space, snapshot: persisted, updatedAt: clock.now() }),
    );
  }

  function writeStrayLog(space: string): void {
    const entry = dirtyStrays.get(space);
    if (!entry) return;
    dirtyStrays.delete(space);
    if (isQuietStrayLog(entry.snapshot)) {
      if (strayLogs.delete(space)) durability.attempt('forgetStrayLog', () => store.forgetStrayLog(space));
      return;
    }
    durability.attempt('saveStrayLog', () => {
      const persisted = entry.logic.getPersistedSnapshot(entry.snapshot);
      strayLogs.set(space, persisted);
      return store.saveStrayLog({ space, snapshot: persisted, updatedAt: clock.now() });
    });
  }

  /** Persists every turn and stray log changed since the last write (its newest snapshot only). */
  function writeAll(): void {
    writeQueued = false;
    for (const turnId of [...dirty.keys()]) writeTurn(turnId);
    for (const space of [...dirtyStrays.keys()]) writeStrayLog(space);
  }

  return {
    writeAll,
    onTurnSnapshot(snapshot: AnyMachineSnapshot, logic: AnyStateMachine): void {
      const context: TurnContext | undefined = snapshot.context;
      if (!context?.turnId) return;
      reportWarnings(context);
      if (snapshot.status === 'active') {
        dirty.set(context.turnId, { logic, snapshot, space: context.space });
        queueWrite();
      } else if (snapshot.status === 'done' && (dirty.has(context.turnId) || snapshots.has(context.turnId))) {
        dirty.delete(context.turnId);
        snapshots.delete(context.turnId);
        warned.delete(context.turnId);
        onTurnDone(snapshot);
      }
    },
    onStraySnapshot(snapshot: AnyMachineSnapshot, logic: AnyStateMachine): void {
      const space = (snapshot.context as StrayLogContext | undefined)?.space;
      if (space === undefined || snapshot.status !== 'active') return;
      dirtyStrays.set(space, { logic, snapshot });
      queueWrite();
    },
    /** A live turn's latest persisted snapshot, written first when it changed since. */
    persisted(turnId: string): Snapshot<unknown> | undefined {
      writeTurn(turnId);
      return snapshots.get(turnId)?.snapshot;
    },
    /** A turn that has no actor any more (crashed for good): its last persisted snapshot, forgotten here. */
    release(turnId: string): Snapshot<unknown> | undefined {
      writeTurn(turnId);
      const persisted = snapshots.get(turnId)?.snapshot;
      snapshots.delete(turnId);
      warned.delete(turnId);
      return persisted;
    },
    /** A turn restored from the store: its snapshot is the one a restart resumes from. */
    remember(turnId: string, space: string, snapshot: unknown): void {
      snapshots.set(turnId, { space, snapshot: snapshot as Snapshot<unknown> });
    },
    /** The live turns of a space, to restore in a space started again. */
    liveTurnsOf(space: string): RestoredTurn[] {
      return [...snapshots.entries()]
        .filter(([, s]) => s.space === space)
        .map(([turnId, s]) => ({ turnId, record: recordFromSnapshot(s.snapshot), snapshot: s.snapshot }));
    },
    strayLog: (space: string): unknown => strayLogs.get(space),
    restoreStrayLog(space: string, snapshot: unknown): void {
      strayLogs.set(space, snapshot);
    },
  };
}

export type SnapshotWriter = ReturnType<typeof createSnapshotWriter>;

/**
 * A turn's persisted snapshot, from the snapshot, not the actor (the actor
 * may have failed since; its last good snapshot is the one to keep). XState
 * walks the whole context looking for actor refs to persist; a turn's
 * context is plain data (TurnContext holds no actor refs), so it
 * is kept as it is, and the cost does not grow with the turn's log.
 */
export function persistTurnSnapshot(logic: AnyStateMachine, snapshot: AnyMachineSnapshot): Snapshot<unknown> {
  const persisted = logic.getPersistedSnapshot({ ...snapshot, context: {} }) as Record<string, unknown>;
  return { ...persisted, context: snapshot.context } as unknown as Snapshot<unknown>;
}

/** Nothing a restart would resume: the window is closed, no write pending, every line shown. */
export function isQuietStrayLog(snapshot: AnyMachineSnapshot): boolean {
  const context = snapshot.context as StrayLogContext;
  return (
    context.shown >= context.lines.length && snapshot.matches({ window: 'closed', writer: 'idle' } as never)
  );
}

/** A restored turn's record: live, under the anchor its snapshot names. */
export function recordFromSnapshot(snapshot: unknown): RestoredTurnRecord {
  const context = (snapshot as { context?: Partial<TurnContext> }).context;
  return { anchor: context?.anchor ?? null, dm: false, restarts: 0, mode: 'live' };
}
