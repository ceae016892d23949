/**
 * The actions outbox of the memory store: actions in cursor order, an index
 * by id (a redelivery is not recorded twice), and the consumers' delivery
 * cursors. Bounded by age: `pruneActions` forgets what is past the retention.
 */
import { randomBytes } from 'node:crypto';
import type { Action, NewAction } from '../actions/types.js';
import type { TurnlogStore } from './store.js';

type OutboxMethods = Pick<
  TurnlogStore,
  | 'appendAction'
  | 'actionsAfter'
  | 'pruneActions'
  | 'actionCursor'
  | 'saveActionCursor'
  | 'actionsStoreId'
  | 'lastActionSeq'
>;

export function createMemoryOutbox(): OutboxMethods {
  /** Oldest first; `seq` only grows, so the list is sorted by it. */
  const kept: { seq: number; keptAt: number; action: Action }[] = [];
  const byId = new Map<string, Action>();
  const cursors = new Map<string, string>();
  let lastSeq = 0;
  /** A new one per process: what a memory store held is gone with it, and so are its cursors. */
  const storeId = randomBytes(6).toString('hex');

  /** The index of the first action with a seq above `after` (binary search). */
  const firstAfter = (after: number): number => {
    let lo = 0;
    let hi = kept.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((kept[mid] as { seq: number }).seq <= after) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };

  return {
    appendAction(action: NewAction & { id: string }, keptAt: number) {
      const known = byId.get(action.id);
      if (known) return { action: structuredClone(known), duplicate: true };
      const seq = ++lastSeq;
      const stored = { ...structuredClone(action), cursor: String(seq) } as Action;
      kept.push({ seq, keptAt, action: stored });
      byId.set(action.id, stored);
      return { action: structuredClone(stored), duplicate: false };
    },
    actionsAfter(after, limit) {
      const from = firstAfter(after);
      return kept.slice(from, from + limit).map((k) => structuredClone(k.action));
    },
    pruneActions(keptBefore, max) {
      let n = 0;
      while (n < max && n < kept.length && (kept[n] as { keptAt: number }).keptAt < keptBefore) n++;
      for (const gone of kept.splice(0, n)) byId.delete(gone.action.id);
      return n;
    },
    actionsStoreId: () => storeId,
    lastActionSeq: () => lastSeq,
    actionCursor: (consumer) => cursors.get(consumer),
    saveActionCursor: (consumer, cursor) => void cursors.set(consumer, cursor),
  };
}
