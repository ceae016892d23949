/**
 * Terminal frames and 429s: a terminal frame is always booked (the bucket
 * may go into debt for it) and funded in order; a 429 cools everything off
 * and moves what was booked later by the same amount.
 */
import type { BudgetConfig } from './config.js';
import { bookChannel, channelFreeAt, deferChannels, leaveLine, removeCard } from './registry.js';
import { advance, type Booking, type BudgetState, checkNow, type TerminalRequest, timeOf } from './state.js';
import { coolOffEndsAt, coolOffWaitMs } from './waits.js';
import { recordSent, recordSeparate, separateFreeAt, separateOf, windowFreeAt } from './window-log.js';

/**
 * Reserves a slot for a terminal frame: a token now when one is free and the
 * channel is clear, otherwise the bucket goes negative and the frame is booked
 * for when the debt is repaid, its channel is free and any cool-off is over.
 * Always honoured; `fundedAt` is when the frame may be sent. The card stops
 * waiting for a progress token: its turn is ending.
 */
export function bookTerminal(
  state: BudgetState,
  config: BudgetConfig,
  request: TerminalRequest,
): { state: BudgetState; booking: Booking } {
  advance(state, config, request.now);
  const at = timeOf(state);
  leaveLine(state.registry, request.cardId);
  const own = separateOf(config, request.write);
  if (own !== undefined && request.write !== undefined) {
    // No token: its channel (when spaced), its own limit and any cool-off.
    const channelAt = own.spaced ? channelFreeAt(state.registry, request.channel, at) : at;
    const readyAt = Math.max(channelAt, coolOffEndsAt(state, at));
    const fundedAt = Math.max(readyAt, separateFreeAt(state, own, request.write, readyAt));
    recordSeparate(state, own, request.write, fundedAt);
    const booking: Booking = {
      id: state.nextBookingId,
      cardId: request.cardId,
      channel: request.channel,
      fundedAt,
      token: false,
    };
    state.bookings.push(booking);
    state.nextBookingId += 1;
    if (own.spaced) bookChannel(state.registry, request.channel, fundedAt + config.channelSpacingMs, at);
    return { state, booking };
  }
  state.tokens -= 1;
  const tokenAt = state.tokens >= 0 ? at : at + Math.ceil(-state.tokens / config.refillPerMs);
  const channelAt = channelFreeAt(state.registry, request.channel, at);
  const readyAt = Math.max(tokenAt, channelAt, coolOffEndsAt(state, at));
  const fundedAt = windowFreeAt(state, config, readyAt);
  recordSent(state, config, fundedAt);
  const booking: Booking = {
    id: state.nextBookingId,
    cardId: request.cardId,
    channel: request.channel,
    fundedAt,
  };
  state.bookings.push(booking);
  state.nextBookingId += 1;
  bookChannel(state.registry, request.channel, fundedAt + config.channelSpacingMs, at);
  return { state, booking };
}

/**
 * The platform answered 429: nothing goes out before `now + retryAfterMs`.
 * Booked terminal frames and channel slots move later by the extension, which
 * keeps their order and their spacing.
 */
export function coolOff(
  state: BudgetState,
  config: BudgetConfig,
  request: { retryAfterMs: number; now: number },
): BudgetState {
  if (!Number.isFinite(request.retryAfterMs) || request.retryAfterMs < 0) {
    throw new RangeError(`budget: retryAfterMs must be a number of ms ≥ 0, got ${request.retryAfterMs}`);
  }
  advance(state, config, request.now);
  const at = timeOf(state);
  const coolingUntil = coolOffEndsAt(state, at);
  const until = Math.max(coolingUntil, at + request.retryAfterMs);
  const byMs = until - coolingUntil;
  state.coolOffUntil = until;
  for (const booking of state.bookings) if (booking.fundedAt > at) booking.fundedAt += byMs;
  for (const log of [...Object.values(state.separate ?? {}), state.sent ?? []]) {
    for (let i = 0; i < log.length; i++) if (log[i]! > at) log[i] = log[i]! + byMs;
  }
  deferChannels(state.registry, at, byMs);
  return state;
}

/** How long the cool-off still lasts at the state's time (0 when none). */
export function coolOffRemainingMs(state: BudgetState): number {
  return state.clockAt === null ? 0 : coolOffWaitMs(state, state.clockAt);
}

/**
 * Takes the bookings funded by `at` out of the state, so their frames can be
 * sent. The bucket is first brought to `at`, while those bookings still hold
 * their tokens: a frame that waited (on a cool-off, or on its channel) is not
 * refilled for the time it waited.
 */
export function settleBookings(
  state: BudgetState,
  config: BudgetConfig,
  at: number,
): { state: BudgetState; funded: Booking[] } {
  checkNow(at);
  const funded = state.bookings.filter((booking) => booking.fundedAt <= at);
  if (funded.length === 0) return { state, funded };
  advance(state, config, at);
  state.bookings = state.bookings.filter((booking) => booking.fundedAt > at);
  return { state, funded };
}

/** When the earliest unsettled booking is funded; null when none is waiting. */
export function nextFundingAt(state: BudgetState): number | null {
  if (state.bookings.length === 0) return null;
  let earliest = Number.POSITIVE_INFINITY;
  for (const booking of state.bookings) earliest = Math.min(earliest, booking.fundedAt);
  return earliest;
}

/** The card finished: its share of the progress rate returns to the others, and it leaves the line. */
export function closeCard(state: BudgetState, cardId: string): BudgetState {
  removeCard(state.registry, cardId);
  return state;
}
