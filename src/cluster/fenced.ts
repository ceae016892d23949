/**
 * Fencing (issue 23.2): what a space's owner writes goes through these.
 *
 * - The store: each owned space's runtime has a Postgres store of its own
 *   (on the shared pool) whose every write transaction first checks, in SQL
 *   and holding the lease row, that this process still holds the space's
 *   lease with the term it started with; a write of an old term is refused.
 * - The surfaces: every platform write checks that the lease is still
 *   locally valid (its deadline, a safety margin before the database's
 *   expiry, is ahead) and is refused otherwise, so a process paused past its
 *   lease writes nothing when it resumes.
 */
import type { Pool, PoolClient } from 'pg';
import type { TurnlogStore } from '../store/store.js';
import { type ChatSurface, SurfaceError } from '../surfaces/surface.js';
import type { LeaseView } from './leases.js';
import { TABLES } from './schema.js';

export class FencedError extends Error {
  override readonly name = 'FencedError';
}

export interface Fence {
  space: string;
  term: number;
  instanceId: string;
  leases: LeaseView;
  pool: Pool;
}

/**
 * The check every write transaction of a space's store runs first (the
 * Postgres store's `beforeWrite`): the lease row must still name this
 * process and term, unexpired. `FOR SHARE` holds the row until the write
 * commits, so a successor's takeover waits for it: nothing of an old term
 * lands after a new term began.
 */
export function fenceCheck(fence: Fence) {
  return async (client: PoolClient): Promise<void> => {
    if (fence.leases.validTerm(fence.space) !== fence.term)
      throw new FencedError(`the lease of ${fence.space} (term ${fence.term}) is not held any more`);
    const { rowCount } = await client.query(
      `SELECT 1 FROM ${TABLES.leases} WHERE space = $1 AND owner = $2 AND term = $3 AND expires_at > now() FOR SHARE`,
      [fence.space, fence.instanceId, fence.term],
    );
    if (rowCount !== 1)
      throw new FencedError(`${fence.space} has another owner now (term ${fence.term} is over)`);
  };
}

/**
 * The store as one space's runtime sees it: the live state of that space
 * only (so a runtime started for it restores just it). Its writes are fenced
 * by the store itself (`fenceCheck` as its `beforeWrite`).
 */
export function scopedStore(inner: TurnlogStore, space: string): TurnlogStore {
  return {
    ...bindAll(inner),
    liveTurns: async () => (await inner.liveTurns()).filter((turn) => turn.space === space),
    strayLogs: async () => (await inner.strayLogs()).filter((log) => log.space === space),
    pendingAnswerParts: async () => (await inner.pendingAnswerParts()).filter((part) => part.space === space),
    spaceSettings: async () => {
      const all = await inner.spaceSettings();
      return all[space] === undefined ? {} : { [space]: all[space] };
    },
  };
}

/** Every method of the store bound to it (a spread of a class instance would lose its prototype's). */
function bindAll(store: TurnlogStore): TurnlogStore {
  const bound: Record<string, unknown> = {};
  let proto: object | null = store;
  while (proto !== null && proto !== Object.prototype) {
    for (const key of Object.getOwnPropertyNames(proto)) {
      const value = (store as unknown as Record<string, unknown>)[key];
      if (key !== 'constructor' && typeof value === 'function' && !(key in bound))
        bound[key] = (value as (...args: unknown[]) => unknown).bind(store);
    }
    proto = Object.getPrototypeOf(proto);
  }
  return bound as unknown as TurnlogStore;
}

/** A surface whose writes for the fenced space go out only while its lease is locally valid. */
export function fencedSurface(inner: ChatSurface, fence: Fence): ChatSurface {
  const guard = (what: string) => {
    if (fence.leases.validTerm(fence.space) !== fence.term)
      throw new SurfaceError(
        'transient',
        `${what}: not sent, the lease of ${fence.space} (term ${fence.term}) is not held any more`,
      );
  };
  const surface: ChatSurface = {
    platform: inner.platform,
    capabilities: inner.capabilities,
    async post(req, opts) {
      guard('post');
      return await inner.post(req, opts);
    },
    async edit(req, opts) {
      guard('edit');
      return await inner.edit(req, opts);
    },
    async react(req, opts) {
      guard('react');
      return await inner.react(req, opts);
    },
    ...(inner.typing
      ? {
          typing: async (req, opts) => {
            guard('typing');
            return await inner.typing?.(req, opts);
          },
        }
      : {}),
    ...(inner.ready ? { ready: () => inner.ready?.() ?? Promise.resolve(true) } : {}),
    ...(inner.pacing ? { pacing: inner.pacing } : {}),
  };
  const status = inner.assistantStatus;
  if (status) {
    return {
      ...surface,
      assistantStatus: {
        async set(req, opts) {
          guard('assistant status');
          return await status.set(req, opts);
        },
        due: (req) => status.due(req),
        get unsupported() {
          return status.unsupported;
        },
      },
    };
  }
  return surface;
}
