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
import type { Action, MessageIntake, NewAction } from './types.js';

/** Actions are kept at least this long (CONTRACT: ≥ 24 h). */
export const ACTION_RETENTION_MS = 24 * 60 * 60 * 1000;
/** How often recording also prunes what is past the retention, and how many rows one prune may drop. */
const PRUNE_EVERY_MS = 60_000;
const PRUNE_BATCH = 1000;
/** A page of `actions()` holds at most this many. */
export const ACTIONS_PAGE_LIMIT = 100;
/** The longest long poll (`GET /v1/actions?wait=`), in seconds. */
export const MAX_ACTIONS_WAIT_S = 30;

/**
 * A cursor that is not one the outbox gave out (`after=` of `GET /v1/actions`):
 * malformed, ahead of the newest, or from another (replaced) store. `cursor`
 * is the current one, to read on from.
 */
export class ActionCursorError extends Error {
  override name = 'ActionCursorError';
  constructor(
    message: string,
    readonly cursor: string,
  ) {
    super(message);
  }
}

/**
 * A cursor is `<store id>.<position>` ("<id>.0": before every action): the
 * store id makes a cursor of a replaced store (a memory store after a
 * restart, another database file) recognisable. A bare `<position>` is the
 * format before store ids; a host or the webhook may still hold one, so it
 * is taken as this store's when it is not ahead of the newest.
 */
export interface ParsedCursor {
  storeId?: string;
  seq: number;
}

const CURSOR = /^(?:([0-9a-f]{1,32})\.)?(0|[1-9]\d{0,15})$/;

/** Reads a cursor's form; undefined when it is not one (see {@link ParsedCursor}). */
export function parseActionCursor(cursor: string | undefined): ParsedCursor | undefined {
  if (cursor === undefined) return { seq: 0 };
  const match = typeof cursor === 'string' ? CURSOR.exec(cursor) : null;
  if (!match) return undefined;
  return { ...(match[1] !== undefined ? { storeId: match[1] } : {}), seq: Number(match[2]) };
}

export const formatActionCursor = (storeId: string, seq: number): string => `${storeId}.${seq}`;

/**
 * A stable action id from what the platform says identifies the delivery:
 * a redelivery of the same event gets the same id, so the outbox records it
 * once. The hash keeps platform ids (which may be long) out of the id.
 */
export function actionIdFor(space: string, dedupeKey: string): string {
  return `act_${createHash('sha256').update(`${space}\n${dedupeKey}`).digest('hex').slice(0, 32)}`;
}

/** The `message` action a person's message becomes (its id from `actionIdFor`). */
export const messageActionOf = (id: string, event: MessageIntake): NewAction & { id: string } => ({
  id,
  type: 'message',
  space: event.space,
  messageId: event.messageId,
  ...(event.threadId !== undefined ? { threadId: event.threadId } : {}),
  text: event.text,
  dm: event.dm,
  user: event.user,
  at: event.at,
});

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
  /**
   * A page after a cursor; waits for the next action up to `waitMs` when there
   * is none (a long poll). A cursor this store never gave out throws an
   * {@link ActionCursorError} carrying the current cursor.
   */
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
  let storeId: string | undefined;
  const idOfStore = async () => {
    storeId ??= await store.actionsStoreId();
    return storeId;
  };
  /** The store keeps positions; hosts get them with the store's id. */
  const withCursor = (action: Action, id: string): Action => ({
    ...action,
    cursor: formatActionCursor(id, Number(action.cursor)),
  });

  /** The position a cursor names in this store, or an ActionCursorError with the current cursor. */
  const positionOf = async (after: string | undefined): Promise<number> => {
    const id = await idOfStore();
    const parsed = parseActionCursor(after);
    const newest = await store.lastActionSeq();
    const refuse = (why: string) => {
      throw new ActionCursorError(
        `cursor ${JSON.stringify(after)} ${why}; read on from "cursor" (the newest), or leave "after" out to read from the oldest kept action`,
        formatActionCursor(id, newest),
      );
    };
    if (parsed === undefined) return refuse('is not an actions cursor');
    if (parsed.storeId !== undefined && parsed.storeId !== id)
      return refuse('is from another store (this one was replaced or restarted since): its actions are gone');
    if (parsed.seq > newest)
      return refuse(`is ahead of the newest action (${newest}): this store never gave it out`);
    return parsed.seq;
  };

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
      const id = await idOfStore();
      const appended = await store.appendAction(redacted, clock.now());
      const result = { ...appended, action: withCursor(appended.action, id) };
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
      const limit = poll.limit ?? ACTIONS_PAGE_LIMIT;
      const waitMs = poll.waitMs ?? 0;
      const page = async (after: number, kept: Action[]): Promise<ActionPage> => {
        const id = await idOfStore();
        const actions = kept.map((action) => withCursor(action, id));
        return { actions, cursor: actions.at(-1)?.cursor ?? formatActionCursor(id, after) };
      };
      if (waitMs <= 0 || poll.signal?.aborted) {
        const after = await positionOf(poll.after);
        return page(after, await store.actionsAfter(after, limit));
      }
      // Listening (and the wait's timer armed) before any read: an action recorded meanwhile still wakes it.
      let wake: () => void = () => {};
      const woken = new Promise<void>((resolve) => {
        wake = resolve;
      });
      const unsubscribe = subscribe(() => wake());
      const timer = clock.setTimeout(() => wake(), waitMs);
      const onAbort = () => wake();
      poll.signal?.addEventListener('abort', onAbort, { once: true });
      try {
        const after = await positionOf(poll.after);
        const first = await store.actionsAfter(after, limit);
        if (first.length > 0) return page(after, first);
        await woken;
        return page(after, poll.signal?.aborted ? [] : await store.actionsAfter(after, limit));
      } finally {
        unsubscribe();
        clock.clearTimeout(timer);
        poll.signal?.removeEventListener('abort', onAbort);
      }
    },
    subscribe,
  };
}
