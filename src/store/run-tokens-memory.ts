/**
 * The run page's tokens in the memory store (their sha256 only), and the
 * deletion of finished runs past `runs.retentionDays`.
 */
import type { RunEvent } from '../events/schema.js';
import type { TurnSummary } from './store.js';

export interface MemoryRunTokens {
  saveRunToken(turnId: string, tokenHash: string, createdAt: number): void;
  runTokenHashes(turnId: string): string[];
  forgetRunsEndedBefore(endedBefore: number, max: number): number;
}

/** `summaries` and `events` are the memory store's own maps: a forgotten run leaves both. */
export function createMemoryRunTokens(maps: {
  summaries: Map<string, TurnSummary>;
  events: Map<string, RunEvent[]>;
}): MemoryRunTokens {
  const tokens = new Map<string, Set<string>>();
  return {
    saveRunToken: (turnId, tokenHash) => {
      const set = tokens.get(turnId) ?? new Set<string>();
      set.add(tokenHash);
      tokens.set(turnId, set);
    },
    runTokenHashes: (turnId) => [...(tokens.get(turnId) ?? [])],
    forgetRunsEndedBefore: (endedBefore, max) => {
      const ended = [...maps.summaries.values()]
        .filter((summary) => summary.endedAt < endedBefore)
        .sort((a, b) => a.endedAt - b.endedAt)
        .slice(0, max);
      for (const { turnId } of ended) {
        maps.summaries.delete(turnId);
        maps.events.delete(turnId);
        tokens.delete(turnId);
      }
      return ended.length;
    },
  };
}
