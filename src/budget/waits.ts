/**
 * What stands in a write's way, and for how long: a cool-off (everyone's),
 * the card's fair share, its channel's spacing, the reserve and the bookings
 * ahead of it (the line's), a separate kind's own limit. A refusal names the
 * longest of them, so the card asks again once, when all are past.
 */
import type { BudgetConfig, SeparateWriteConfig, WriteKind } from './config.js';
import { channelFreeAt, liveCardCount, liveCardsIn } from './registry.js';
import { type BudgetState, heldAt, type Refusal, type RefusalReason } from './state.js';
import { separateFreeAt, windowFreeAt } from './window-log.js';

export interface Wait {
  reason: RefusalReason;
  ms: number;
}

/** How long the cool-off after a 429 still lasts at `at` (0 when none runs): the one place it is read. */
export function coolOffWaitMs(state: BudgetState, at: number): number {
  return state.coolOffUntil === null ? 0 : Math.max(0, state.coolOffUntil - at);
}

/** The earliest time from `at` on that no cool-off holds a write back. */
export function coolOffEndsAt(state: BudgetState, at: number): number {
  return at + coolOffWaitMs(state, at);
}

/** The cool-off as a wait, when one runs at `at`. */
function coolOffWaits(state: BudgetState, at: number): Wait[] {
  const ms = coolOffWaitMs(state, at);
  return ms > 0 ? [{ reason: 'cool-off', ms }] : [];
}

/** What stands in this card's own way (its fair share, its channel, a cool-off), with how long each lasts. */
export function cardWaits(
  state: BudgetState,
  config: BudgetConfig,
  cardId: string,
  channel: string,
  at: number,
): Wait[] {
  const waits = coolOffWaits(state, at);
  const card = state.registry.cards[cardId];
  if (card?.paintedAt != null) {
    const fairShareIntervalMs = Math.max(
      liveCardCount(state.registry) / config.progressRatePerMs,
      liveCardsIn(state.registry, channel) * config.channelSpacingMs,
    );
    const nextTurnAt = card.paintedAt + fairShareIntervalMs;
    if (nextTurnAt > at) {
      // With useSpare, a token the bucket would lose goes to whoever asks; a card refused asks again by then.
      const spareInMs = config.useSpare ? spareInMsAt(state, config, at) : null;
      if (spareInMs === null) waits.push({ reason: 'fair-share', ms: nextTurnAt - at });
      else if (spareInMs > 0) waits.push({ reason: 'fair-share', ms: Math.min(nextTurnAt - at, spareInMs) });
    }
  }
  const freeAt = channelFreeAt(state.registry, channel, at);
  if (freeAt > at) waits.push({ reason: 'spacing', ms: freeAt - at });
  return waits;
}

/**
 * With `useSpare`: how long until the bucket holds a spare token — one short
 * of what it may fill to (its capacity less the booked frames still holding
 * theirs), so a token not taken is a refill lost — assuming nobody takes one
 * meanwhile; 0 when it holds one now. Null while others are owed tokens (a
 * card in the line, a terminal frame the bucket is in debt for): nothing is
 * spare then. A booked frame waiting only for its own channel holds its
 * token already and owes nothing (issue 24 item 2).
 */
function spareInMsAt(state: BudgetState, config: BudgetConfig, at: number): number | null {
  if (state.registry.waiting > 0 || state.tokens < 0) return null;
  const spareAt = config.capacity - heldAt(state.bookings, at) - 1;
  return state.tokens >= spareAt ? 0 : Math.ceil((spareAt - state.tokens) / config.refillPerMs);
}

/**
 * How long until a progress token may go to anyone: the reserve must stay in
 * the bucket (so every booked terminal frame the bucket owes goes first: its
 * debt keeps the tokens below the reserve until it is repaid), and nothing
 * goes out during a cool-off. 0 when a token is there now.
 *
 * A booked frame that waits only for its own channel's spacing (or its own
 * write kind's limit) already holds its token: it holds back nobody else
 * (issue 24 item 2: a busy channel's booked answer once held every other
 * channel's first post until it had gone, 2 s on Google Chat).
 */
export function lineWaitMs(state: BudgetState, config: BudgetConfig, at: number): number {
  let ms = coolOffWaitMs(state, at);
  if (state.tokens - 1 < config.reserve) {
    ms = Math.max(ms, (config.reserve + 1 - state.tokens) / config.refillPerMs);
  }
  return Math.max(ms, windowFreeAt(state, config, at) - at);
}

/**
 * How long until every booked frame has gone, whichever channel it waits
 * for (0 when none waits). Only an advisory write (typing, never queued,
 * never retried) yields to it: it takes nothing anyone is booked for.
 */
export function bookingsWaitMs(state: BudgetState, at: number): number {
  let ms = 0;
  for (const booking of state.bookings) if (booking.fundedAt > at) ms = Math.max(ms, booking.fundedAt - at);
  return ms;
}

export function refusal(waits: readonly Wait[]): Refusal {
  const longest = waits.reduce((a, b) => (b.ms > a.ms ? b : a));
  return { granted: false, retryInMs: Math.ceil(longest.ms), reason: longest.reason };
}

/** What stands in the way of a separate write: a cool-off, its channel (when spaced), its own limit. */
export function separateWaits(
  state: BudgetState,
  own: SeparateWriteConfig,
  kind: WriteKind,
  channel: string,
  at: number,
): Wait[] {
  const waits = coolOffWaits(state, at);
  if (own.spaced) {
    const freeAt = channelFreeAt(state.registry, channel, at);
    if (freeAt > at) waits.push({ reason: 'spacing', ms: freeAt - at });
  }
  const ownAt = separateFreeAt(state, own, kind, at);
  if (ownAt > at) waits.push({ reason: 'write-limit', ms: ownAt - at });
  return waits;
}
