/**
 * Discord's rate limits, read from the answers rather than hard-coded
 * (https://discord.com/developers/docs/topics/rate-limits):
 *
 * - a route maps to a bucket (`X-RateLimit-Bucket`), counted per top-level
 *   resource (the channel, the "major parameter"): the bucket has
 *   `X-RateLimit-Limit` calls, `-Remaining` left, refilled after
 *   `-Reset-After` seconds;
 * - a 429 says how long to wait (`Retry-After`), and whether the limit was
 *   the global one (`X-RateLimit-Global`, `X-RateLimit-Scope: global`),
 *   this bot's (`user`) or the resource's, shared with others (`shared`);
 * - besides, a bot may make about 50 requests per second in all.
 *
 * {@link createRateLimitTracker} keeps that state per bucket, on an injected
 * clock, and answers how long to wait before the next call on a route: it is
 * Discord's implementation of the budget's RateLimiter (keyed by route), so
 * the budget consults it and the surface refuses a call that would be
 * refused anyway, so no request is spent on a known 429. It is the strategy
 * discord.js keeps inside its own handlers, lifted out so the waits are
 * visible to the caller (`rejectOnRateLimit`) instead of queued out of sight.
 *
 * {@link createInvalidRequestGuard} counts invalid requests (401, 403 and
 * 429 answers other than shared-scope 429s) over a sliding 10 minutes:
 * Discord bans the IP at 10,000, so the guard stops writing to a space (and
 * everywhere) long before, saying why.
 */
import {
  headerOf as header,
  numberHeaderOf as numberHeader,
  type RateLimitedCall,
  type RateLimiter,
} from '../../budget/rate-limiter.js';
import { channelOf, snowflake } from './ids.js';

export type { HeaderSource } from '../../budget/rate-limiter.js';

/** A route as the tracker keys it: `METHOD /path`, ids in the path as sent (`POST /channels/123/messages`). */
export type Route = string;

export interface RouteParts {
  /** The route with every id replaced (`PATCH /channels/:id/messages/:id`): what maps to a bucket. */
  template: string;
  /** The top-level resource the bucket is counted for (a channel, guild or webhook id), or `global`. */
  major: string;
}

const SNOWFLAKE = /\d{16,20}/g;
const MAJOR = /^\/(?:channels|guilds|webhooks)\/(\d{16,20})/;

/** Splits `METHOD /path` into the bucket route template and its major parameter (as discord.js does). */
export function routeParts(route: Route): RouteParts {
  const space = route.indexOf(' ');
  const method = (space < 0 ? 'GET' : route.slice(0, space)).toUpperCase();
  const path = (space < 0 ? route : route.slice(space + 1)).split('?')[0]!;
  const major = MAJOR.exec(path)?.[1] ?? 'global';
  const template = path.replace(SNOWFLAKE, ':id').replace(/\/reactions\/.*/, '/reactions/:reaction');
  return { template: `${method} ${template}`, major };
}

/** The route a write goes to: what Discord's buckets are keyed by. */
export function routeFor(call: RateLimitedCall): Route {
  const channel = call.threadId === undefined ? channelOf(call.space) : snowflake(call.threadId, 'thread');
  if (call.write === 'edit')
    return `PATCH /channels/${channel}/messages/${snowflake(call.messageId ?? '', 'message')}`;
  if (call.write === 'typing') return `POST /channels/${channel}/typing`;
  if (call.write === 'reaction')
    return `PUT /channels/${channel}/messages/${snowflake(call.messageId ?? '', 'message')}/reactions/:reaction/@me`;
  return `POST /channels/${channel}/messages`;
}

export interface RateLimitTrackerOptions {
  /** Epoch ms. */
  now: () => number;
  /** Requests per second in all (Discord's global limit for bots). Default 50. */
  globalPerSecond?: number;
  /**
   * Added to the global one-second window, for the clocks of two machines.
   * Default 50 ms. (A request counts from when its answer arrives, which is
   * after Discord counted it, so a window never ends early here.)
   */
  globalMarginMs?: number;
  /**
   * A request with no answer yet counts against the global limit until its
   * answer comes, or this long after it was sent (the client's timeout: no
   * answer will come). Default 15,000.
   */
  unansweredForMs?: number;
}

interface BucketState {
  limit: number;
  remaining: number;
  /** Epoch ms when the bucket is full again. */
  resetAt: number;
}

export interface RateLimitTracker extends RateLimiter {
  /** A bucket's state as last seen, for tests and diagnostics. */
  bucketOf(
    route: Route,
  ): { hash: string | undefined; limit: number; remaining: number; resetAt: number } | undefined;
}

export const GLOBAL_WINDOW_MS = 1000;

/** Past this many buckets (one per route and channel or thread), those already reset are forgotten. */
const MAX_BUCKETS = 10_000;

export function createRateLimitTracker(opts: RateLimitTrackerOptions): RateLimitTracker {
  const globalPerSecond = opts.globalPerSecond ?? 50;
  const windowMs = GLOBAL_WINDOW_MS + (opts.globalMarginMs ?? 50);
  const unansweredForMs = Math.max(windowMs, opts.unansweredForMs ?? 15_000);
  if (!(globalPerSecond > 0)) {
    throw new RangeError(`rate-limit tracker: globalPerSecond must be positive, got ${globalPerSecond}`);
  }
  /** Route template → the bucket hash Discord named for it. */
  const hashes = new Map<string, string>();
  /** `hash-or-template:major` → state. */
  const buckets = new Map<string, BucketState>();
  /**
   * Requests within the last global window (the global limit): stamped when
   * sent, restamped when their answer comes back, so each counts until a
   * window after Discord counted it.
   */
  let sent: { at: number; answered: boolean }[] = [];
  let globalUntil = 0;

  const keyOf = (route: Route) => {
    const { template, major } = routeParts(route);
    return `${hashes.get(template) ?? template}:${major}`;
  };

  // A request still waiting for its answer may not have reached Discord yet (the client queues
  // requests of one route one after the other): it counts until answered, so a queue of them
  // released at once never makes a burst over the limit.
  const pruneSent = (now: number) => {
    sent = sent.filter((request) => request.at > now - (request.answered ? windowMs : unansweredForMs));
  };

  return {
    platform: 'discord',
    keyOf: routeFor,
    waitMsFor(route) {
      const now = opts.now();
      pruneSent(now);
      let wait = Math.max(0, globalUntil - now);
      if (sent.length >= globalPerSecond) {
        // One still waiting for its answer frees its slot a window after the answer at the earliest.
        const times = sent.map((request) => (request.answered ? request.at : now)).sort((a, b) => a - b);
        wait = Math.max(wait, times[times.length - globalPerSecond]! + windowMs - now);
      }
      const bucket = buckets.get(keyOf(route));
      if (bucket && bucket.remaining <= 0 && bucket.resetAt > now)
        wait = Math.max(wait, bucket.resetAt - now);
      return Math.ceil(wait);
    },
    onRequest(route) {
      const now = opts.now();
      pruneSent(now);
      sent.push({ at: now, answered: false });
      const bucket = buckets.get(keyOf(route));
      if (!bucket) return;
      // The window passed: the bucket is full again (the answer will say until when).
      if (bucket.resetAt <= now) bucket.remaining = bucket.limit;
      bucket.remaining = Math.max(0, bucket.remaining - 1);
    },
    onResponse(route, { status, headers }) {
      const now = opts.now();
      const request = sent.find((entry) => !entry.answered);
      if (request) {
        request.at = now;
        request.answered = true;
      }
      const { template } = routeParts(route);
      const hash = header(headers, 'X-RateLimit-Bucket');
      if (hash) hashes.set(template, hash);
      const key = keyOf(route);
      const limit = numberHeader(headers, 'X-RateLimit-Limit');
      const remaining = numberHeader(headers, 'X-RateLimit-Remaining');
      const resetAfterS = numberHeader(headers, 'X-RateLimit-Reset-After');
      if (limit !== undefined && remaining !== undefined && resetAfterS !== undefined) {
        buckets.set(key, { limit, remaining, resetAt: now + resetAfterS * 1000 });
        // A bucket that has reset says nothing a fresh one wouldn't: forget those when there are many.
        if (buckets.size > MAX_BUCKETS) {
          for (const [other, state] of buckets) if (state.resetAt <= now) buckets.delete(other);
        }
      }
      if (status !== 429) return undefined;
      const retryAfterMs = (numberHeader(headers, 'Retry-After') ?? 1) * 1000;
      const global =
        header(headers, 'X-RateLimit-Global') === 'true' || header(headers, 'X-RateLimit-Scope') === 'global';
      if (global) {
        globalUntil = Math.max(globalUntil, now + retryAfterMs);
        return retryAfterMs;
      }
      const bucket = buckets.get(key) ?? { limit: limit ?? 1, remaining: 0, resetAt: now };
      bucket.remaining = 0;
      bucket.resetAt = Math.max(bucket.resetAt, now + retryAfterMs);
      buckets.set(key, bucket);
      return retryAfterMs;
    },
    bucketOf(route) {
      const bucket = buckets.get(keyOf(route));
      if (!bucket) return undefined;
      return { hash: hashes.get(routeParts(route).template), ...bucket };
    },
  };
}

/** Discord bans an IP at 10,000 invalid requests in 10 minutes. */
export const DISCORD_INVALID_REQUEST_BAN = 10_000;
export const INVALID_REQUEST_WINDOW_MS = 10 * 60_000;

export interface InvalidRequestGuardOptions {
  now: () => number;
  /** Invalid requests in the window after which writes to one space stop. Default 1,000. */
  spaceLimit?: number;
  /** Invalid requests in the window (all spaces) after which every write stops. Default 5,000, half the ban. */
  globalLimit?: number;
  /** Default 10 minutes, as Discord counts. */
  windowMs?: number;
}

export type GuardVerdict = { ok: true } | { ok: false; reason: string; retryAfterMs: number };

export interface InvalidRequestGuard {
  /** Counts an answer on `space` when it is an invalid request (401, 403, 429 other than shared-scope). */
  record(space: string, status: number, scope?: string | null): void;
  /** May the surface write to `space` now? When not, why and for how long. */
  check(space: string): GuardVerdict;
  /** Invalid requests in the window: for `space`, or in all. */
  count(space?: string): number;
}

export function isInvalidRequest(status: number, scope?: string | null): boolean {
  if (status === 401 || status === 403) return true;
  return status === 429 && scope !== 'shared';
}

export function createInvalidRequestGuard(opts: InvalidRequestGuardOptions): InvalidRequestGuard {
  const spaceLimit = opts.spaceLimit ?? 1000;
  const globalLimit = opts.globalLimit ?? 5000;
  const windowMs = opts.windowMs ?? INVALID_REQUEST_WINDOW_MS;
  for (const [name, value] of [
    ['spaceLimit', spaceLimit],
    ['globalLimit', globalLimit],
    ['windowMs', windowMs],
  ] as const) {
    if (!(Number.isInteger(value) && value > 0)) {
      throw new RangeError(`invalid-request guard: ${name} must be a positive integer, got ${value}`);
    }
  }
  if (globalLimit >= DISCORD_INVALID_REQUEST_BAN) {
    throw new RangeError(
      `invalid-request guard: globalLimit ${globalLimit} must stay below Discord's ban at ${DISCORD_INVALID_REQUEST_BAN}`,
    );
  }
  const bySpace = new Map<string, number[]>();
  let all: number[] = [];

  const prune = (times: number[], now: number) => {
    const first = times.findIndex((at) => at > now - windowMs);
    return first < 0 ? [] : first === 0 ? times : times.slice(first);
  };
  const spaceTimes = (space: string, now: number) => {
    const times = prune(bySpace.get(space) ?? [], now);
    if (times.length === 0) bySpace.delete(space);
    else bySpace.set(space, times);
    return times;
  };
  /** When enough of the oldest leave the window to be under `limit` again. */
  const reopensIn = (times: number[], limit: number, now: number) =>
    Math.max(0, times[times.length - limit]! + windowMs - now);
  const minutes = Math.round(windowMs / 60_000);

  return {
    record(space, status, scope) {
      if (!isInvalidRequest(status, scope)) return;
      const now = opts.now();
      const times = spaceTimes(space, now);
      times.push(now);
      bySpace.set(space, times);
      all = prune(all, now);
      all.push(now);
    },
    check(space) {
      const now = opts.now();
      all = prune(all, now);
      if (all.length >= globalLimit) {
        return {
          ok: false,
          reason: `stopped writing to Discord: ${all.length} invalid requests (401/403/429) in the last ${minutes} min across all spaces (limit ${globalLimit}; Discord bans the IP at ${DISCORD_INVALID_REQUEST_BAN})`,
          retryAfterMs: reopensIn(all, globalLimit, now),
        };
      }
      const times = spaceTimes(space, now);
      if (times.length >= spaceLimit) {
        return {
          ok: false,
          reason: `stopped writing to ${space}: ${times.length} invalid requests (401/403/429) in the last ${minutes} min (limit ${spaceLimit}; Discord bans the IP at ${DISCORD_INVALID_REQUEST_BAN})`,
          retryAfterMs: reopensIn(times, spaceLimit, now),
        };
      }
      return { ok: true };
    },
    count(space) {
      const now = opts.now();
      if (space !== undefined) return spaceTimes(space, now).length;
      all = prune(all, now);
      return all.length;
    },
  };
}
