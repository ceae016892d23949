/**
 * The budget as it was before it stopped polling (a refused card asked again
 * after the shortest wait, and every request copied and scanned every card),
 * kept only so `npm run bench -- budget` can run it side by side.
 */
/**
 * The edit budget's math (docs/architecture.md item 8), as pure functions over
 * plain JSON: each takes a `BudgetState` and an explicit `now`, and returns a
 * new state plus its decision; the input is never mutated.
 *
 * - A token bucket (`config.ts` explains its rate and capacity). Terminal
 *   frames may take it negative: the frame is booked for the time the debt is
 *   repaid, and counts against the cap until it goes out, so a frame waiting
 *   on its channel never lets the bucket hold more than its capacity.
 * - Progress frames take a token only while the reserve stays in the bucket,
 *   no terminal booking is waiting, the card is within its fair share, its
 *   channel is clear, and the platform is not cooling off. The fair share is
 *   the card's turn at the scarcer of two things: the progress rate split
 *   across all live cards, and its channel's slots (one per spacing) split
 *   across the live cards in that channel — without the second, when tokens
 *   are plentiful the card that asks first after the channel frees wins every
 *   time and its neighbours never paint.
 * - A clock that goes backwards neither refills nor drains: the bucket keeps
 *   the latest time it has seen as its reference and judges everything at it.
 */
import type { RefusedEvent } from '../../../machines/budget.protocol.js';
import type { BudgetConfig } from '../../../src/budget/config.js';
import { applyRegistry, emptyRegistry, liveCardCount, liveCardsIn, type Registry } from './registry.js';

/** A terminal frame charged to the bucket, sent at `fundedAt`. */
export interface Booking {
  id: number;
  cardId: string;
  channel: string;
  fundedAt: number;
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
}

export type RefusalReason = RefusedEvent['reason'];

export type ProgressDecision =
  | { granted: true }
  | { granted: false; retryInMs: number; reason: RefusalReason };

export interface ProgressRequest {
  cardId: string;
  channel: string;
  now: number;
}

export interface TerminalRequest {
  cardId: string;
  channel: string;
  now: number;
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
  };
}

function checkNow(now: number): number {
  if (!Number.isFinite(now)) throw new RangeError(`budget: now must be a finite time in ms, got ${now}`);
  return now;
}

/** Terminal frames charged to the bucket that have not gone out by `at`. */
function heldAt(bookings: readonly Booking[], at: number): number {
  return bookings.filter((booking) => booking.fundedAt > at).length;
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
  if (state.clockAt === null) return { ...state, clockAt: now };
  if (now <= state.clockAt) return state;
  const from = state.clockAt;
  const releases = state.bookings
    .map((booking) => booking.fundedAt)
    .filter((fundedAt) => fundedAt > from && fundedAt < now)
    .sort((a, b) => a - b);
  let tokens = state.tokens;
  let t = from;
  for (const until of [...releases, now]) {
    tokens = refill(tokens, (until - t) * config.refillPerMs, config.capacity - heldAt(state.bookings, t));
    t = until;
  }
  return { ...state, tokens, clockAt: now };
}

/** The effective time of a state that has seen at least one `now`. */
function timeOf(state: BudgetState): number {
  if (state.clockAt === null) throw new Error('budget: the state has not seen a time yet');
  return state.clockAt;
}

function observeCard(
  state: BudgetState,
  config: BudgetConfig,
  request: { cardId: string; channel: string },
  at: number,
): BudgetState {
  let registry = applyRegistry(state.registry, {
    type: 'cardSeen',
    cardId: request.cardId,
    channel: request.channel,
    at,
  });
  registry = applyRegistry(registry, { type: 'silentCardsSwept', at, liveWindowMs: config.liveWindowMs });
  registry = applyRegistry(registry, { type: 'freeChannelsPruned', at });
  return { ...state, registry };
}

interface Wait {
  reason: RefusalReason;
  ms: number;
}

/** Everything that stands between this progress frame and a token, with how long each lasts. */
function progressWaits(
  state: BudgetState,
  config: BudgetConfig,
  request: ProgressRequest,
  at: number,
): Wait[] {
  const waits: Wait[] = [];
  if (state.coolOffUntil !== null && state.coolOffUntil > at) {
    waits.push({ reason: 'cool-off', ms: state.coolOffUntil - at });
  }
  // Terminal frames first: progress yields until every booking is funded.
  const unfunded = state.bookings.filter((booking) => booking.fundedAt > at);
  if (unfunded.length > 0) {
    waits.push({ reason: 'reserve', ms: Math.max(...unfunded.map((booking) => booking.fundedAt)) - at });
  }
  if (state.tokens - 1 < config.reserve) {
    waits.push({ reason: 'reserve', ms: (config.reserve + 1 - state.tokens) / config.refillPerMs });
  }
  const card = state.registry.cards[request.cardId];
  if (card?.paintedAt != null) {
    const fairShareIntervalMs = Math.max(
      liveCardCount(state.registry) / config.progressRatePerMs,
      liveCardsIn(state.registry, request.channel) * config.channelSpacingMs,
    );
    const nextTurnAt = card.paintedAt + fairShareIntervalMs;
    if (nextTurnAt > at) waits.push({ reason: 'fair-share', ms: nextTurnAt - at });
  }
  const channelFreeAt = state.registry.channels[request.channel];
  if (channelFreeAt !== undefined && channelFreeAt > at) {
    waits.push({ reason: 'spacing', ms: channelFreeAt - at });
  }
  return waits;
}

/** May this card paint a progress frame in this channel now? A refusal says why and when to ask again. */
export function requestProgress(
  state: BudgetState,
  config: BudgetConfig,
  request: ProgressRequest,
): { state: BudgetState; decision: ProgressDecision } {
  const advanced = advance(state, config, request.now);
  const at = timeOf(advanced);
  const observed = observeCard(advanced, config, request, at);
  const waits = progressWaits(observed, config, request, at);
  if (waits.length > 0) {
    const longest = waits.reduce((a, b) => (b.ms > a.ms ? b : a));
    return {
      state: observed,
      decision: { granted: false, retryInMs: Math.ceil(longest.ms), reason: longest.reason },
    };
  }
  let registry = applyRegistry(observed.registry, {
    type: 'cardPainted',
    cardId: request.cardId,
    channel: request.channel,
    at,
  });
  registry = applyRegistry(registry, {
    type: 'channelBooked',
    channel: request.channel,
    nextFreeAt: at + config.channelSpacingMs,
  });
  return { state: { ...observed, tokens: observed.tokens - 1, registry }, decision: { granted: true } };
}

/**
 * The refusal a progress frame gets while the platform is cooling off,
 * whatever the bucket holds. The card still counts as live.
 */
export function refuseDuringCoolOff(
  state: BudgetState,
  config: BudgetConfig,
  request: ProgressRequest,
): { state: BudgetState; decision: ProgressDecision } {
  const advanced = advance(state, config, request.now);
  const at = timeOf(advanced);
  const observed = observeCard(advanced, config, request, at);
  const retryInMs = Math.max(0, Math.ceil((observed.coolOffUntil ?? at) - at));
  return { state: observed, decision: { granted: false, retryInMs, reason: 'cool-off' } };
}

/**
 * Reserves a slot for a terminal frame: a token now when one is free and the
 * channel is clear, otherwise the bucket goes negative and the frame is booked
 * for when the debt is repaid, its channel is free and any cool-off is over.
 * Always honoured; `fundedAt` is when the frame may be sent.
 */
export function bookTerminal(
  state: BudgetState,
  config: BudgetConfig,
  request: TerminalRequest,
): { state: BudgetState; booking: Booking } {
  const advanced = advance(state, config, request.now);
  const at = timeOf(advanced);
  const registry = applyRegistry(advanced.registry, { type: 'freeChannelsPruned', at });
  const tokens = advanced.tokens - 1;
  const tokenAt = tokens >= 0 ? at : at + Math.ceil(-tokens / config.refillPerMs);
  const channelAt = registry.channels[request.channel] ?? at;
  const fundedAt = Math.max(tokenAt, channelAt, advanced.coolOffUntil ?? at, at);
  const booking: Booking = {
    id: advanced.nextBookingId,
    cardId: request.cardId,
    channel: request.channel,
    fundedAt,
  };
  return {
    state: {
      ...advanced,
      tokens,
      bookings: [...advanced.bookings, booking],
      nextBookingId: advanced.nextBookingId + 1,
      registry: applyRegistry(registry, {
        type: 'channelBooked',
        channel: request.channel,
        nextFreeAt: fundedAt + config.channelSpacingMs,
      }),
    },
    booking,
  };
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
  const advanced = advance(state, config, request.now);
  const at = timeOf(advanced);
  const coolingUntil = Math.max(at, advanced.coolOffUntil ?? at);
  const until = Math.max(coolingUntil, at + request.retryAfterMs);
  const byMs = until - coolingUntil;
  return {
    ...advanced,
    coolOffUntil: until,
    bookings: advanced.bookings.map((booking) =>
      booking.fundedAt > at ? { ...booking, fundedAt: booking.fundedAt + byMs } : booking,
    ),
    registry: applyRegistry(advanced.registry, { type: 'channelsDeferred', after: at, byMs }),
  };
}

/** How long the cool-off still lasts at the state's time (0 when none). */
export function coolOffRemainingMs(state: BudgetState): number {
  if (state.coolOffUntil === null || state.clockAt === null) return 0;
  return Math.max(0, state.coolOffUntil - state.clockAt);
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
  const advanced = advance(state, config, at);
  return {
    state: { ...advanced, bookings: advanced.bookings.filter((booking) => booking.fundedAt > at) },
    funded,
  };
}

/** When the earliest unsettled booking is funded; null when none is waiting. */
export function nextFundingAt(state: BudgetState): number | null {
  if (state.bookings.length === 0) return null;
  return Math.min(...state.bookings.map((booking) => booking.fundedAt));
}

/** The card finished: its share of the progress rate returns to the others. */
export function closeCard(state: BudgetState, cardId: string): BudgetState {
  return { ...state, registry: applyRegistry(state.registry, { type: 'cardClosed', cardId }) };
}
