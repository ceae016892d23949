/**
 * The bucket's state, plain JSON (so `cloneBudgetState` is a structured
 * clone), and its refill: `advance` brings the tokens to a time, never
 * backwards. The rules that read the state live beside it (waits.ts,
 * progress.ts, terminal.ts, queued.ts); bucket.ts gathers them.
 */
import type { RefusedEvent } from '../../machines/budget.protocol.js';
import type { BudgetConfig, WriteKind } from './config.js';
import { emptyRegistry, type Registry } from './registry.js';

/** A terminal frame charged to the bucket, sent at `fundedAt`. */
export interface Booking {
  id: number;
  cardId: string;
  channel: string;
  fundedAt: number;
  /** Whether it holds a token of the bucket (false: a separate write kind, on its own limit). Absent: true. */
  token?: boolean;
}

export interface BudgetState {
  /** Negative while terminal frames are booked ahead of the refill. */
  tokens: number;
  /** The latest time seen (the refill reference); null before the first request. */
  clockAt: number | null;
  /** After a 429 no frame goes out before this time. */
  coolOffUntil: number | null;
  /** Terminal frames charged but not yet settled (their funding not yet answered). */
  bookings: Booking[];
  nextBookingId: number;
  registry: Registry;
  /**
   * Queued writes (policy cards) per channel, not yet funded: each must land
   * but yields to every terminal frame, so a flood of them never delays an
   * answer by more than the one write already out in its channel.
   */
  queued: Record<string, QueuedLane>;
  /** Queued writes waiting, across channels. */
  queuedCount: number;
  /** The kind of each queued write that is not an edit of the bucket (by id; absent: it takes a token). */
  queuedWrites?: Record<number, WriteKind>;
  /**
   * Per separate write kind with its own allowance: when its writes went (or
   * are booked to go), oldest first, those a window reaching the present can
   * still hold. Absent in a state saved before separate kinds existed.
   */
  separate?: Partial<Record<WriteKind, number[]>>;
  /** With `config.windowLog`: when the bucket's writes went or are booked to go, oldest first (one window's worth). */
  sent?: number[];
}

/**
 * A channel's queued writes, one FIFO per group (a turn's thread), served
 * round-robin across the groups so one turn's hundred cards do not hold back
 * another turn's first.
 */
export interface QueuedLane {
  /** Groups with writes waiting, in serving order (the next one first). */
  order: string[];
  /** Group → booking ids waiting, oldest first. */
  groups: Record<string, number[]>;
}

/** A queued write's request: its channel, and the group (a turn's thread) it takes turns with. */
export interface QueuedRequest {
  channel: string;
  group: string;
  now: number;
  /** What the write is (a card: a post); default an edit of the bucket. */
  write?: WriteKind;
}

export type RefusalReason = RefusedEvent['reason'];

export interface Refusal {
  granted: false;
  retryInMs: number;
  reason: RefusalReason;
}

/** Granted, or refused with when to ask again: what a turn is told. */
export type ProgressAnswer = { granted: true } | Refusal;

/** An answer now, or a place in the line: `wakeLine` answers it when tokens are there (no reply now). */
export type ProgressDecision = ProgressAnswer | { granted: false; waiting: true; reason: 'reserve' };

/** A card the line answered: granted, or refused for what stands in its own way. */
export interface LineAnswer {
  cardId: string;
  decision: ProgressAnswer;
}

export interface ProgressRequest {
  cardId: string;
  channel: string;
  now: number;
  /** What the write is; default an edit (the bucket). A kind in `config.separate` takes no token. */
  write?: WriteKind;
}

export interface TerminalRequest {
  cardId: string;
  channel: string;
  now: number;
  /** What the write is; default an edit (the bucket). */
  write?: WriteKind;
}

/** A full bucket with nobody live. */
export function createBudgetState(config: BudgetConfig): BudgetState {
  return {
    tokens: config.capacity,
    clockAt: null,
    coolOffUntil: null,
    bookings: [],
    nextBookingId: 1,
    registry: emptyRegistry(),
    queued: {},
    queuedCount: 0,
  };
}

/** An independent copy (the state is plain JSON). */
export function cloneBudgetState(state: BudgetState): BudgetState {
  return structuredClone(state);
}

export function checkNow(now: number): number {
  if (!Number.isFinite(now)) throw new RangeError(`budget: now must be a finite time in ms, got ${now}`);
  return now;
}

export const holdsToken = (booking: Booking): boolean => booking.token !== false;

/** Terminal frames charged to the bucket that have not gone out by `at`. */
export function heldAt(bookings: readonly Booking[], at: number): number {
  let held = 0;
  for (const booking of bookings) if (booking.fundedAt > at && holdsToken(booking)) held++;
  return held;
}

function refill(tokens: number, amount: number, cap: number): number {
  // Never lowers the level: a bucket over the cap (a booking just released) only stops filling.
  return tokens >= cap ? tokens : Math.min(cap, tokens + amount);
}

/**
 * The bucket at `now`: refilled for the time since the last observation, up
 * to the capacity minus the frames still held. The cap changes as held frames
 * go out, so the refill is summed piece by piece between those times.
 */
export function advance(state: BudgetState, config: BudgetConfig, now: number): BudgetState {
  checkNow(now);
  if (state.clockAt === null) {
    state.clockAt = now;
    return state;
  }
  if (now <= state.clockAt) return state;
  const from = state.clockAt;
  if (state.bookings.length === 0) {
    state.tokens = refill(state.tokens, (now - from) * config.refillPerMs, config.capacity);
    state.clockAt = now;
    return state;
  }
  const releases = state.bookings
    .filter(holdsToken)
    .map((booking) => booking.fundedAt)
    .filter((fundedAt) => fundedAt > from && fundedAt < now)
    .sort((a, b) => a - b);
  let tokens = state.tokens;
  let t = from;
  for (const until of [...releases, now]) {
    tokens = refill(tokens, (until - t) * config.refillPerMs, config.capacity - heldAt(state.bookings, t));
    t = until;
  }
  state.tokens = tokens;
  state.clockAt = now;
  return state;
}

/** The effective time of a state that has seen at least one `now`. */
export function timeOf(state: BudgetState): number {
  if (state.clockAt === null) throw new Error('budget: the state has not seen a time yet');
  return state.clockAt;
}
