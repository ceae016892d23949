/**
 * The actions outbox (docs/http-api.md, "Actions"): what people did in the
 * chat, kept in the store for the host. Recording redacts the action (a
 * person's text too: nothing unredacted is written), appends it under the
 * next cursor, makes it durable (`store.flush`) and only then wakes the
 * readers, so whoever sees an action can count on it surviving a crash.
 *
 * Delivery is at least once: a host reads after its last cursor
 * (`GET /v1/actions`, `Runtime.actions`), the webhook after its persisted
 * one. Actions are kept at least `retentionMs` (24 h), then pruned a bounded
 * number at a time as new ones come.
 */
import { createHash } from 'node:crypto';
import type { Clock } from '../clock.js';
import { scrubInput } from '../events/scrub.js';
import type { TurnlogStore } from '../store/store.js';
import type { Action, NewAction } from './types.js';

/** Actions are kept at least this long (CONTRACT: ≥ 24 h). */
export const ACTION_RETENTION_MS = 24 * 60 * 60 * 1000;
/** How often recording also prunes what is past the retention, and how many rows one prune may drop. */
const PRUNE_EVERY_MS = 60_000;
const PRUNE_BATCH = 1000;
/** A page of `actions()` holds at most this many. */
export const ACTIONS_PAGE_LIMIT = 100;
/** The longest long poll (`GET /v1/actions?wait=`), in seconds. */
export const MAX_ACTIONS_WAIT_S = 30;

/** A cursor that is not one the outbox gave out (`after=` of `GET /v1/actions`). */
export class ActionCursorError extends Error {
  override name = 'ActionCursorError';
}

/**
 * A cursor is the decimal position of an action in the outbox ("0": before
 * every action). Hosts treat it as opaque.
 */
export function parseActionCursor(cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  if (typeof cursor !== 'string' || !/^(0|[1-9]\d{0,15})$/.test(cursor)) {
    throw new ActionCursorError(
      `cursor ${JSON.stringify(cursor)} is not an actions cursor (give the "cursor" of an earlier answer, or leave "after" out to read from the oldest kept action)`,
    );
  }
  return Number(cursor);
}

/**
 * A stable action id from what the platform says identifies the delivery:
 * a redelivery of the same event gets the same id, so the outbox records it
 * once. The hash keeps platform ids (which may be long) out of the id.
 */
export function actionIdFor(space: string, dedupeKey: string): string {
  return `act_${createHash('sha256').update(`${space}\n${dedupeKey}`).digest('hex').slice(0, 32)}`;
}

export interface ActionPage {
  actions: Action[];
  /** The cursor to read on from: the last action's, or the one given when there was none. */
  cursor: string;
}

export interface ActionsPollOptions {
  /** The cursor of an earlier page; without it, from the oldest action kept. */
  after?: string;
  /** When there is none yet, wait this long for one (the runtime's clock). Default 0. */
  waitMs?: number;
  /** Ends a wait early (the page is then empty). */
  signal?: AbortSignal;
  /** Default {@link ACTIONS_PAGE_LIMIT}. */
  limit?: number;
}

export interface Outbox {
  /** Redacts, appends (once per `id`) and makes durable; resolves with the action as kept. */
  record(action: NewAction & { id: string }): Promise<{ action: Action; duplicate: boolean }>;
  /** A page after a cursor; waits for the next action up to `waitMs` when there is none (a long poll). */
  poll(options?: ActionsPollOptions): Promise<ActionPage>;
  /** Called with each action once it is durable; returns the unsubscribe. */
  subscribe(listener: (action: Action) => void): () => void;
}

export interface OutboxOptions {
  store: TurnlogStore;
  clock: Clock;
  retentionMs?: number;
  /** A listener that threw, or a prune that failed (the action itself is kept). */
  onError?: (error: unknown) => void;
}

export function createOutbox(options: OutboxOptions): Outbox {
  const { store, clock } = options;
  const retentionMs = options.retentionMs ?? ACTION_RETENTION_MS;
  const listeners = new Set<(action: Action) => void>();
  let lastPrune = Number.NEGATIVE_INFINITY;

  const prune = async () => {
    const now = clock.now();
    if (now - lastPrune < PRUNE_EVERY_MS) return;
    lastPrune = now;
    await store.pruneActions(now - retentionMs, PRUNE_BATCH);
  };

  const subscribe = (listener: (action: Action) => void) => {
    listeners.add(listener);
    return () => void listeners.delete(listener);
  };

  return {
    async record(action) {
      const scrubbed = scrubInput(action);
      if (!scrubbed.ok) throw new Error(`action ${action.id} cannot be recorded: ${scrubbed.error}`);
      const redacted = scrubbed.value as NewAction & { id: string };
      const result = await store.appendAction(redacted, clock.now());
      await store.flush?.();
      if (!result.duplicate) {
        for (const listener of [...listeners]) {
          try {
            listener(structuredClone(result.action));
          } catch (error) {
            options.onError?.(error);
          }
        }
      }
      await prune().catch((error: unknown) => options.onError?.(error));
      return result;
    },
    async poll(poll = {}) {
      const after = parseActionCursor(poll.after);
      const limit = poll.limit ?? ACTIONS_PAGE_LIMIT;
      const waitMs = poll.waitMs ?? 0;
      const page = (actions: Action[]): ActionPage => ({
        actions,
        cursor: actions.at(-1)?.cursor ?? String(after),
      });
      if (waitMs <= 0 || poll.signal?.aborted) return page(await store.actionsAfter(after, limit));
      // Listening before the read: an action recorded between the read and the wait still wakes it.
      let wake: () => void = () => {};
      const woken = new Promise<void>((resolve) => {
        wake = resolve;
      });
      const unsubscribe = subscribe(() => wake());
      const timer = clock.setTimeout(() => wake(), waitMs);
      const onAbort = () => wake();
      poll.signal?.addEventListener('abort', onAbort, { once: true });
      try {
        const first = await store.actionsAfter(after, limit);
        if (first.length > 0) return page(first);
        await woken;
        return page(poll.signal?.aborted ? [] : await store.actionsAfter(after, limit));
      } finally {
        unsubscribe();
        clock.clearTimeout(timer);
        poll.signal?.removeEventListener('abort', onAbort);
      }
    },
    subscribe,
  };
}
