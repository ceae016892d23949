/**
 * The run page's capability links: each turn gets a token of 256 random bits
 * the first time its link is needed. The store keeps only the token's sha256,
 * so a copy of the database opens no page; this process keeps the token
 * itself in memory to put the same link on every frame. After a restart a
 * turn gets a second token (its first link keeps working: any kept hash opens it).
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { TurnlogStore } from '../../store/store.js';

export const TOKEN_BYTES = 32;
const DAY_MS = 24 * 60 * 60 * 1000;
/** Runs deleted per prune at most, so one prune never holds the store for long. */
const PRUNE_BATCH = 500;

type TokenStore = Pick<TurnlogStore, 'saveRunToken' | 'runTokenHashes' | 'forgetRunsEndedBefore'>;

export interface RunLinksOptions {
  /** `runs.publicUrl`: the origin people reach serve at. */
  publicUrl: string;
  retentionDays: number;
  store: TokenStore;
  now: () => number;
  /** Where a failed token save is reported (the token itself never is). */
  onError?: (error: unknown) => void;
}

export interface RunLinks {
  /** `<publicUrl>/runs/<turnId>?t=<token>`, issuing the turn's token the first time. */
  urlFor(turnId: string): string;
  /** Whether `token` opens `turnId`'s page: compared as sha256 digests, in constant time. */
  opens(turnId: string, token: string | null): Promise<boolean>;
  /** Deletes the finished runs past `retentionDays` (record, summary, tokens); answers how many went. */
  prune(): Promise<number>;
}

export const sha256Hex = (text: string): string => createHash('sha256').update(text).digest('hex');

export function createRunLinks(options: RunLinksOptions): RunLinks {
  const { store } = options;
  if (!store.saveRunToken || !store.runTokenHashes) {
    throw new Error(
      'runs.publicUrl: the store keeps no run page tokens (it lacks saveRunToken/runTokenHashes)',
    );
  }
  const origin = new URL(options.publicUrl).origin;
  const issued = new Map<string, string>();
  return {
    urlFor(turnId) {
      let token = issued.get(turnId);
      if (token === undefined) {
        token = randomBytes(TOKEN_BYTES).toString('base64url');
        issued.set(turnId, token);
        try {
          const saved = store.saveRunToken?.(turnId, sha256Hex(token), options.now());
          if (saved instanceof Promise) saved.catch((error: unknown) => options.onError?.(error));
        } catch (error) {
          options.onError?.(error);
        }
      }
      return `${origin}/runs/${encodeURIComponent(turnId)}?t=${token}`;
    },
    async opens(turnId, token) {
      const hashes = (await store.runTokenHashes?.(turnId)) ?? [];
      // A missing token is hashed too, so every answer costs the same.
      const given = Buffer.from(sha256Hex(token ?? ''), 'hex');
      let match = false;
      for (const hash of hashes) {
        const kept = Buffer.from(hash, 'hex');
        if (kept.length === given.length && timingSafeEqual(kept, given)) match = true;
      }
      return match && token !== null;
    },
    async prune() {
      const cutoff = options.now() - options.retentionDays * DAY_MS;
      let total = 0;
      for (;;) {
        const gone = (await store.forgetRunsEndedBefore?.(cutoff, PRUNE_BATCH)) ?? 0;
        total += gone;
        if (gone < PRUNE_BATCH) break;
      }
      // Tokens of runs no longer kept leave this process's memory too.
      if (total > 0) {
        for (const turnId of issued.keys()) {
          if (((await store.runTokenHashes?.(turnId)) ?? []).length === 0) issued.delete(turnId);
        }
      }
      return total;
    },
  };
}
