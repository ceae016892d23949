/**
 * The edit budget's numbers: what a caller gives (`BudgetInput`), the
 * platform defaults (`budgetDefaults`) and the resolved, validated numbers the
 * bucket math works with (`BudgetConfig`).
 *
 * `ratePerMinute` is the platform's allowance: the most edits it accepts in
 * any window of `windowMs`. A bucket that refilled at the full allowance would
 * let `capacity + allowance` through in one window (a full burst, then a
 * window of refill) — over the platform's limit whenever it holds a burst at
 * all. So the bucket keeps `capacity` of the allowance as burst and refills
 * only the rest evenly across the window: a full burst plus a window of refill
 * is exactly the allowance, and no window ever sees more.
 *
 * That costs the burst in every window: under steady demand the bucket sends
 * `allowance − capacity` a window (Slack: 33 of 45 a minute). With
 * `windowLog` the bucket refills at the whole allowance and a log of the
 * window's writes keeps every window within it instead (docs/benchmarks.md,
 * "Slack under load").
 */

import type { BudgetWrite } from '../../machines/budget.protocol.js';

/**
 * What a write is, as the platform counts it: the first post of a message, an
 * edit, a status line (Slack's `assistant.threads.setStatus`), a reaction, a
 * typing indicator. A platform that limits a kind apart from its edits says
 * so in `separateWrites`; every other kind draws from the one bucket.
 */
export type WriteKind = BudgetWrite;
export const WRITE_KINDS: readonly WriteKind[] = ['post', 'edit', 'status', 'reaction', 'typing'];

/**
 * A write kind the platform limits on its own (Slack: `chat.postMessage` per
 * channel, `assistant.threads.setStatus` and `reactions.add` each in their
 * own Tier 3 bucket): it never takes a token of the edit bucket, so it never
 * waits for one and never leaves the edits short.
 */
export interface SeparateWriteInput {
  /** Its own allowance a minute per app; absent: no app-wide limit, only the channel spacing. */
  ratePerMinute?: number;
  /** Whether it keeps the channel spacing (one write per channel per `channelSpacingMs`). Default true. */
  spaced?: boolean;
}

/** A separate write kind, resolved: at most `allowance` in any `windowMs` (null: no app-wide limit). */
export interface SeparateWriteConfig {
  allowance: number | null;
  windowMs: number;
  spaced: boolean;
}

/** A platform id of the registry (`slack`, `gchat`, `discord`, or one a runtime was given). */
export type BudgetPlatform = string;

export interface BudgetInput {
  platform: string;
  /** The platform's allowance in edits per minute (Slack `chat.update`: 50). */
  ratePerMinute: number;
  /** The window the platform counts its allowance over (ms). Default 60 000; Discord's global limit is per second. */
  windowMs?: number;
  /** The share of a window's allowance progress frames leave for terminal frames. Default 0.2. */
  reserveFraction?: number;
  /** A card that has not asked for this long is swept out of the fair share (ms). Default 60 000. */
  liveWindowMs?: number;
  /** At most one edit per channel per this long (ms). Default 1000. */
  channelSpacingMs?: number;
  /** Edits that may go out at once (burst). Default: the reserve plus a twentieth of the window's allowance. */
  capacity?: number;
  /**
   * The share of the platform's limits left unused, for clock skew between us
   * and the platform and for writes the budget does not see: the allowance
   * shrinks by it and the channel spacing grows by it. Default 0; the
   * platform defaults (`budgetDefaults`) keep DEFAULT_MARGIN_FRACTION.
   */
  marginFraction?: number;
  /** Write kinds the platform limits apart from its edits (the descriptor's); the rest share the bucket. */
  separateWrites?: Partial<Record<WriteKind, SeparateWriteInput>>;
  /**
   * Count each window exactly: the bucket refills at the whole allowance and a
   * log of the window's writes (booked ones too) keeps any window within it.
   * Default false: the burst is kept out of the refill.
   */
  windowLog?: boolean;
  /**
   * A card may paint before its fair turn with a token the bucket would
   * otherwise lose (it is one short of its capacity and nobody waits), and a
   * card refused its turn asks again by the time the bucket gets there.
   * Default false: the fair share holds however full the bucket is.
   */
  useSpare?: boolean;
}

export interface BudgetConfig {
  platform: string;
  ratePerMinute: number;
  windowMs: number;
  /** Edits the platform accepts in one window. */
  allowance: number;
  capacity: number;
  /** Tokens progress frames must leave in the bucket for terminal frames. */
  reserve: number;
  reserveFraction: number;
  /** Tokens added per ms: the allowance minus the burst, spread over the window. */
  refillPerMs: number;
  /** The refill progress frames may use (the rest refills the reserve); split across the live cards. */
  progressRatePerMs: number;
  liveWindowMs: number;
  /** The spacing asked for, widened by the margin. */
  channelSpacingMs: number;
  marginFraction: number;
  /** Write kinds with limits of their own (not drawn from the bucket); absent kinds share the bucket. */
  separate: Partial<Record<WriteKind, SeparateWriteConfig>>;
  /** The bucket refills at the whole allowance; a log of the window's writes keeps each window within it. */
  windowLog: boolean;
  /** With `windowLog`: the most writes of the bucket in any window (the allowance, whole writes). */
  windowAllowance: number;
  /** Spare tokens (a bucket about to stop filling) go to whoever asks, fair turn or not. */
  useSpare: boolean;
}

const MINUTE_MS = 60_000;
export const DEFAULT_MARGIN_FRACTION = 0.1;

/**
 * What `budgetDefaults` reads of the platform registry: structural, so the
 * budget does not import the registry (whose descriptors name budget inputs).
 */
export interface BudgetDefaultsSource {
  readonly ids: readonly string[];
  get(id: string): { readonly budget: Omit<BudgetInput, 'platform'> } | undefined;
}

/** The platform's budget defaults, from its descriptor (src/platforms/<id>/descriptor.ts). */
export function budgetDefaults(platform: BudgetPlatform, platforms: BudgetDefaultsSource): BudgetInput {
  const descriptor = platforms.get(platform);
  if (descriptor === undefined) {
    throw new Error(
      `budgetDefaults: unknown platform ${JSON.stringify(platform)} (${platforms.ids.join(', ')})`,
    );
  }
  return { marginFraction: DEFAULT_MARGIN_FRACTION, ...descriptor.budget, platform };
}

function positive(name: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0) {
    throw new RangeError(`budget input: ${name} must be a positive number, got ${value}`);
  }
  return value;
}

function nonNegative(name: string, value: number): number {
  if (!Number.isFinite(value) || value < 0) {
    throw new RangeError(`budget input: ${name} must be a number ≥ 0, got ${value}`);
  }
  return value;
}

/** Validates the input and derives the bucket's numbers; a bad field gets an error that names it. */
export function resolveBudgetConfig(input: BudgetInput): BudgetConfig {
  if (typeof input.platform !== 'string' || input.platform === '') {
    throw new TypeError('budget input: platform must be a non-empty string');
  }
  const ratePerMinute = positive('ratePerMinute', input.ratePerMinute);
  const windowMs = positive('windowMs', input.windowMs ?? MINUTE_MS);
  const reserveFraction = nonNegative('reserveFraction', input.reserveFraction ?? 0.2);
  if (reserveFraction >= 1) {
    throw new RangeError(`budget input: reserveFraction must be below 1, got ${reserveFraction}`);
  }
  const liveWindowMs = positive('liveWindowMs', input.liveWindowMs ?? MINUTE_MS);
  const marginFraction = nonNegative('marginFraction', input.marginFraction ?? 0);
  if (marginFraction >= 1) {
    throw new RangeError(`budget input: marginFraction must be below 1, got ${marginFraction}`);
  }
  const keep = 1 - marginFraction;
  const channelSpacingMs = Math.ceil(nonNegative('channelSpacingMs', input.channelSpacingMs ?? 1000) / keep);
  const allowance = ((ratePerMinute * windowMs) / MINUTE_MS) * keep;
  const reserve = reserveFraction * allowance;
  const capacity = positive('capacity', input.capacity ?? reserve + Math.max(1, Math.ceil(allowance / 20)));
  if (capacity < reserve + 1) {
    throw new RangeError(
      `budget input: capacity ${capacity} leaves no progress token above the reserve of ${reserve} (needs ≥ ${reserve + 1})`,
    );
  }
  if (capacity >= allowance) {
    throw new RangeError(
      `budget input: capacity ${capacity} must be below the window's allowance of ${allowance} (ratePerMinute × windowMs / 60000), or nothing is left to refill`,
    );
  }
  const windowLog = input.windowLog ?? false;
  const refillPerMs = (windowLog ? allowance : allowance - capacity) / windowMs;
  const separate: Partial<Record<WriteKind, SeparateWriteConfig>> = {};
  for (const [kind, own] of Object.entries(input.separateWrites ?? {})) {
    if (!(WRITE_KINDS as readonly string[]).includes(kind)) {
      throw new RangeError(
        `budget input: separateWrites.${kind} is not a write kind (${WRITE_KINDS.join(', ')})`,
      );
    }
    if (own === undefined) continue;
    const rate =
      own.ratePerMinute === undefined
        ? null
        : positive(`separateWrites.${kind}.ratePerMinute`, own.ratePerMinute);
    separate[kind as WriteKind] = {
      // The same margin as the bucket's, whole writes only: at most this many in any minute.
      allowance: rate === null ? null : Math.max(1, Math.floor(rate * keep)),
      windowMs: MINUTE_MS,
      spaced: own.spaced ?? true,
    };
  }
  return {
    platform: input.platform,
    ratePerMinute,
    windowMs,
    allowance,
    capacity,
    reserve,
    reserveFraction,
    refillPerMs,
    progressRatePerMs: refillPerMs * (1 - reserveFraction),
    liveWindowMs,
    channelSpacingMs,
    marginFraction,
    separate,
    windowLog,
    windowAllowance: Math.max(1, Math.floor(allowance + 1e-9)),
    useSpare: input.useSpare ?? false,
  };
}
