/**
 * Google Chat sends no Retry-After with its 429s and asks clients to back
 * off exponentially. One state per space (the per-space quota is the one a
 * busy space hits): 1 s, 2 s, 4 s … capped at 32 s, back to 1 s after any
 * success in that space. No jitter: the runtime's budget already spreads
 * turns, and a fixed sequence keeps the waits predictable.
 */

export interface BackoffOptions {
  /** First wait (ms). Default 1000. */
  initialMs?: number;
  /** Longest wait (ms). Default 32 000. */
  maxMs?: number;
}

export interface SpaceBackoff {
  /** The wait after another 429 in `space`; each call doubles the next one, up to the cap. */
  next(space: string): number;
  /** A call in `space` succeeded: the next 429 waits the initial time again. */
  reset(space: string): void;
}

export function createSpaceBackoff(opts: BackoffOptions = {}): SpaceBackoff {
  const initialMs = opts.initialMs ?? 1000;
  const maxMs = opts.maxMs ?? 32_000;
  if (!(initialMs > 0) || !(maxMs >= initialMs)) {
    throw new RangeError(
      `backoff: need 0 < initialMs ≤ maxMs, got initialMs ${initialMs} and maxMs ${maxMs}`,
    );
  }
  const streaks = new Map<string, number>();
  return {
    next(space) {
      const streak = streaks.get(space) ?? 0;
      streaks.set(space, streak + 1);
      // 2 ** streak stays finite long before it could overflow: the cap applies from the 6th 429 on.
      return Math.min(maxMs, initialMs * 2 ** Math.min(streak, 52));
    },
    reset(space) {
      streaks.delete(space);
    },
  };
}
