/**
 * Google Chat sends no Retry-After with its 429s and asks clients to back
 * off exponentially. One state per space (the per-space quota is the one a
 * busy space hits): 1 s, 2 s, 4 s … capped at 32 s, back to 1 s after any
 * success in that space. No jitter: the runtime's budget already spreads
 * turns, and a fixed sequence keeps the waits predictable.
 *
 * {@link createGchatRateLimiter} is Google Chat's implementation of the
 * budget's RateLimiter, keyed by space: a 429 holds the space back for its
 * Retry-After when Google sends one, else for the next backoff.
 */
import { type RateLimiter, retryAfterMsOf } from '../../budget/rate-limiter.js';

export const BACKOFF_INITIAL_MS = 1000;
export const BACKOFF_MAX_MS = 32_000;

export interface SpaceBackoff {
  /** The wait after another 429 in `space`; each call doubles the next one, up to the cap. */
  next(space: string): number;
  /** A call in `space` succeeded: the next 429 waits the initial time again. */
  reset(space: string): void;
}

export function createSpaceBackoff(): SpaceBackoff {
  const streaks = new Map<string, number>();
  return {
    next(space) {
      const streak = streaks.get(space) ?? 0;
      // The streak stops growing at the cap, so the doubling never overflows.
      if (BACKOFF_INITIAL_MS * 2 ** streak < BACKOFF_MAX_MS) streaks.set(space, streak + 1);
      return Math.min(BACKOFF_MAX_MS, BACKOFF_INITIAL_MS * 2 ** streak);
    },
    reset(space) {
      streaks.delete(space);
    },
  };
}

export function createGchatRateLimiter(opts: { now: () => number }): RateLimiter {
  const backoff = createSpaceBackoff();
  /** Space → when its last 429's wait is over (epoch ms); forgotten once past. */
  const heldUntil = new Map<string, number>();
  return {
    platform: 'gchat',
    // The space's name as the API knows it (`spaces/A`), which is what the surface calls in.
    keyOf: (call) => call.space.replace(/^gchat:/, ''),
    waitMsFor(space) {
      const until = heldUntil.get(space);
      if (until === undefined) return 0;
      const wait = until - opts.now();
      if (wait > 0) return Math.ceil(wait);
      heldUntil.delete(space);
      return 0;
    },
    onRequest() {},
    onResponse(space, { status, headers }) {
      if (status !== 429) {
        if (status < 400) backoff.reset(space);
        return undefined;
      }
      const waitMs = retryAfterMsOf(headers) ?? backoff.next(space);
      heldUntil.set(space, opts.now() + waitMs);
      return waitMs;
    },
  };
}
