/**
 * Issue 23 item 5: the buckets several processes of one app share (on Redis,
 * src/cluster/redis-budget.ts) and the same math run locally when the shared
 * store is out of reach (src/budget/shared-budget.ts).
 *
 * A write the local budget actor has let out takes one token from every
 * bucket the platform counts it in (`sharedBucketsFor`): the app's own (the
 * budget's allowance: Slack `chat.update` per app, Discord's global 50/s,
 * Google Chat's per-project writes) and, where the platform also counts a
 * channel app-wide, that channel's (Google Chat: 60 writes/min per space;
 * Discord: 5 per 5 s per channel route). One take checks all of them at once.
 *
 * The classes keep the budget's reserve across processes:
 * - `progress` takes only while the reserve stays in every bucket;
 * - `advisory` likewise, but is never retried (refused: skip it);
 * - `queued` (a card that must land) may use the reserve, never a debt;
 * - `terminal` always takes, into debt if it must, and is told how long
 *   until the debt is repaid: the frame goes then.
 *
 * Each bucket refills evenly at its allowance minus its burst across its
 * window (as the local bucket does without `windowLog`), so a full burst plus
 * a window of refill is the allowance: no window ever sees more.
 */
import type { BudgetConfig, WriteKind } from './config.js';

export type SharedTakeClass = 'progress' | 'advisory' | 'queued' | 'terminal';

/** One shared bucket: its key and numbers. */
export interface SharedBucketSpec {
  key: string;
  /** Tokens added per ms. */
  ratePerMs: number;
  capacity: number;
  /** Tokens progress (and advisory) takes leave in the bucket. */
  reserve: number;
}

/** What a take answered: granted or not, and how long to wait (ms: before asking again, or before a terminal frame goes). */
export interface SharedTakeResult {
  granted: boolean;
  waitMs: number;
}

/** A bucket's state: its level (negative while terminal frames are owed) at a time. */
export interface SharedBucketState {
  level: number;
  at: number;
}

/**
 * A limit the platform counts per channel across the whole app, besides the
 * app's own: at most `limit` writes per `windowMs` in one rate channel (the
 * descriptor's `rateChannel`). Keyed by platform id; the bucket the budget
 * already has (the app's) needs no entry.
 */
export interface ChannelLimit {
  limit: number;
  windowMs: number;
}

/** The platforms' published per-channel limits (docs/emulators.md, docs/platforms). */
export const SHARED_CHANNEL_LIMITS: Readonly<Record<string, ChannelLimit>> = {
  // Google Chat: 60 writes per minute per space.
  gchat: { limit: 60, windowMs: 60_000 },
  // Discord: about 5 messages or edits per 5 s per channel route.
  discord: { limit: 5, windowMs: 5_000 },
};

const KEY_PREFIX = 'turnlog:budget:';

/** A bucket for `limit` writes in any `windowMs`, with the budget's margin, reserve fraction and burst rule. */
function channelSpec(key: string, limit: ChannelLimit, config: BudgetConfig): SharedBucketSpec {
  const allowance = limit.limit * (1 - config.marginFraction);
  const reserve = config.reserveFraction * allowance;
  const capacity = Math.min(allowance - 1e-6, reserve + Math.max(1, Math.ceil(allowance / 20)));
  return { key, ratePerMs: (allowance - capacity) / limit.windowMs, capacity, reserve };
}

/**
 * The shared buckets a write of `write` in rate channel `channel` takes from;
 * empty for a kind the platform limits apart from the budget's bucket
 * (`config.separate`: Slack's posts, statuses and reactions, which keep their
 * own per-method limits).
 */
export function sharedBucketsFor(
  config: BudgetConfig,
  channel: string | undefined,
  write: WriteKind | undefined,
  channelLimits: Readonly<Record<string, ChannelLimit>> = SHARED_CHANNEL_LIMITS,
): SharedBucketSpec[] {
  if (write !== undefined && config.separate[write] !== undefined) return [];
  const app: SharedBucketSpec = {
    key: `${KEY_PREFIX}${config.platform}:app`,
    // The burst kept out of the refill (config.ts), whatever the local bucket's windowLog: no window counts more.
    ratePerMs: (config.allowance - config.capacity) / config.windowMs,
    capacity: config.capacity,
    reserve: config.reserve,
  };
  const perChannel = channelLimits[config.platform];
  if (perChannel === undefined || channel === undefined) return [app];
  return [app, channelSpec(`${KEY_PREFIX}${config.platform}:channel:${channel}`, perChannel, config)];
}

/**
 * One process's share of a bucket when the shared store is out of reach:
 * rate, burst and reserve divided by the live processes, with room for one
 * token above the reserve.
 */
export function shareOf(spec: SharedBucketSpec, processes: number): SharedBucketSpec {
  const n = Math.max(1, Math.floor(processes));
  const reserve = spec.reserve / n;
  return {
    key: spec.key,
    ratePerMs: spec.ratePerMs / n,
    capacity: Math.max(spec.capacity / n, reserve + 1),
    reserve,
  };
}

/** The level a bucket holds at `now`: refilled since its last time, up to capacity; a clock that goes back neither refills nor drains. */
function refilled(
  spec: SharedBucketSpec,
  state: SharedBucketState | undefined,
  now: number,
): SharedBucketState {
  if (state === undefined) return { level: spec.capacity, at: now };
  if (now <= state.at) return { level: state.level, at: state.at };
  const level =
    state.level >= spec.capacity
      ? state.level
      : Math.min(spec.capacity, state.level + (now - state.at) * spec.ratePerMs);
  return { level, at: now };
}

/**
 * Takes `n` tokens from every bucket at once, or from none: the math the
 * Redis script (src/cluster/redis-budget.ts, TAKE_SCRIPT) runs atomically,
 * here over a local map (the fallback, and the reference the tests hold the
 * script to). `states` is updated in place.
 */
export function takeShared(
  states: Map<string, SharedBucketState>,
  specs: readonly SharedBucketSpec[],
  n: number,
  cls: SharedTakeClass,
  now: number,
): SharedTakeResult {
  const levels = specs.map((spec) => refilled(spec, states.get(spec.key), now));
  let waitMs = 0;
  if (cls !== 'terminal') {
    specs.forEach((spec, i) => {
      const need = cls === 'queued' ? n : spec.reserve + n;
      const level = levels[i]!.level;
      if (level < need) waitMs = Math.max(waitMs, Math.ceil((need - level) / spec.ratePerMs));
    });
  }
  const granted = cls === 'terminal' || waitMs === 0;
  specs.forEach((spec, i) => {
    const state = levels[i]!;
    if (granted) state.level -= n;
    if (cls === 'terminal' && state.level < 0)
      waitMs = Math.max(waitMs, Math.ceil(-state.level / spec.ratePerMs));
    states.set(spec.key, state);
  });
  return { granted, waitMs };
}
