/**
 * People's actions for the host, as the clients offer them (docs/library.md,
 * "Actions"): an async iterator over a long poll (`GET /v1/actions` or
 * `Runtime.actions`) that yields each action and moves its cursor on, and
 * the per-turn watch behind a turn scope's `onDecision`/`onAnswer`/`onStop`.
 */
import type { Action } from '../actions/types.js';

export interface ActionsOptions {
  /** Start after this cursor; default: the oldest action kept. */
  after?: string;
  /** How long one poll waits for a new action, in seconds (≤ 30). Default 25. */
  waitS?: number;
  /** Ends the iteration (the loop returns; a poll in flight is aborted). */
  signal?: AbortSignal;
  /**
   * Told when serve refused the cursor as one it never gave out (serve
   * restarted with a memory store, another store file): the iterator then
   * reads on from the oldest action kept, so none recorded since is missed
   * (some may come again: they keep their ids). Default: a console warning.
   */
  onCursorRefused?: (refusal: CursorRefusal) => void;
}

export interface CursorRefusal {
  /** The cursor refused. */
  cursor: string;
  /** What serve said. */
  reason: string;
}

/** A poll refused for its cursor (HTTP 400 with `cursor`, or the runtime's ActionCursorError). */
function refusedCursor(error: unknown): string | undefined {
  const cursor = (error as { cursor?: unknown } | null)?.cursor;
  const name = (error as { name?: unknown } | null)?.name;
  return typeof cursor === 'string' && (name === 'ActionCursorError' || name === 'ActionsRequestError')
    ? cursor
    : undefined;
}

const warnRefused = (refusal: CursorRefusal) =>
  console.warn(
    `turnlog: serve refused actions cursor ${refusal.cursor} (${refusal.reason}); reading on from the oldest action kept`,
  );

export const DEFAULT_ACTIONS_WAIT_S = 25;

/** One long poll: the actions after `after`, waiting up to `waitS` for one. */
export type ActionsPoll = (
  after: string | undefined,
  waitS: number,
  signal: AbortSignal,
) => Promise<{ actions: Action[]; cursor: string }>;

/** Yields each action after the cursor, in order, until the signal aborts. */
export async function* iterateActions(
  poll: ActionsPoll,
  options: ActionsOptions = {},
): AsyncGenerator<Action> {
  const waitS = options.waitS ?? DEFAULT_ACTIONS_WAIT_S;
  if (!(waitS >= 0 && waitS <= 30))
    throw new RangeError(`actions: waitS must be 0 to 30 seconds, got ${waitS}`);
  const signal = options.signal ?? new AbortController().signal;
  let after = options.after;
  while (!signal.aborted) {
    let page: { actions: Action[]; cursor: string };
    try {
      page = await poll(after, waitS, signal);
    } catch (error) {
      if (signal.aborted) return;
      // A cursor refused from the start (no `after`) is not one the iterator can do better with.
      if (after === undefined || refusedCursor(error) === undefined) throw error;
      (options.onCursorRefused ?? warnRefused)({ cursor: after, reason: (error as Error).message });
      after = undefined;
      continue;
    }
    for (const action of page.actions) {
      if (signal.aborted) return;
      yield action;
      after = action.cursor;
    }
    after = page.cursor;
  }
}

type Listener = { type: Action['type']; key?: string; callback: (action: Action) => void };

/** What a listener of a turn hears, by action type: decisions by requestId, answers by questionId. */
const keyOf = (action: Action): string | undefined =>
  action.type === 'decision' ? action.requestId : action.type === 'answer' ? action.questionId : undefined;

export interface TurnActionWatch {
  /** Calls `callback` with each action of the turn of `type` (and `key`, when given), those seen before included. */
  on(type: Action['type'], key: string | undefined, callback: (action: Action) => void): () => void;
  /** Stops listening (the turn ended). */
  close(): void;
}

/**
 * Watches one turn's actions: one iterator from the oldest kept, started by
 * the first listener; a listener added later hears the turn's earlier
 * actions first, so a callback registered after the click still sees it.
 */
export function watchTurnActions(
  turnId: string,
  iterate: (signal: AbortSignal) => AsyncIterable<Action>,
  onError: (error: unknown) => void,
): TurnActionWatch {
  const listeners = new Set<Listener>();
  const seen: Action[] = [];
  const ids = new Set<string>();
  let stop: AbortController | undefined;

  const hears = (listener: Listener, action: Action) =>
    action.type === listener.type && (listener.key === undefined || keyOf(action) === listener.key);
  const call = (listener: Listener, action: Action) => {
    try {
      listener.callback(action);
    } catch (error) {
      onError(error);
    }
  };

  const run = async (signal: AbortSignal) => {
    try {
      for await (const action of iterate(signal)) {
        if ((action as { turnId?: string }).turnId !== turnId || ids.has(action.id)) continue;
        ids.add(action.id);
        seen.push(action);
        for (const listener of [...listeners]) if (hears(listener, action)) call(listener, action);
      }
    } catch (error) {
      if (!signal.aborted) onError(error);
    }
  };

  return {
    on(type, key, callback) {
      const listener: Listener = { type, ...(key !== undefined ? { key } : {}), callback };
      listeners.add(listener);
      for (const action of seen) if (hears(listener, action)) call(listener, action);
      if (stop === undefined) {
        stop = new AbortController();
        void run(stop.signal);
      }
      return () => void listeners.delete(listener);
    },
    close() {
      stop?.abort();
      listeners.clear();
    },
  };
}
