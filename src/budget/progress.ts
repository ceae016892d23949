/**
 * Progress frames and advisory writes: granted now, refused with when to ask
 * again (what stands in the card's own way), or a place in the line that
 * `wakeLine` answers in order once tokens are there.
 */
import type { BudgetConfig, SeparateWriteConfig, WriteKind } from './config.js';
import {
  bookChannel,
  compactLine,
  expectBack,
  isWaiting,
  joinLine,
  leaveLine,
  lineHead,
  paintCard,
  seeCard,
  sweepSilent,
} from './registry.js';
import {
  advance,
  type BudgetState,
  type LineAnswer,
  type ProgressDecision,
  type ProgressRequest,
  timeOf,
} from './state.js';
import { bookingsWaitMs, cardWaits, coolOffWaitMs, lineWaitMs, refusal, separateWaits } from './waits.js';
import { recordSent, recordSeparate, separateOf, windowFreeAt } from './window-log.js';

function grant(state: BudgetState, config: BudgetConfig, cardId: string, channel: string, at: number): void {
  state.tokens -= 1;
  recordSent(state, config, at);
  paintCard(state.registry, cardId, at);
  bookChannel(state.registry, channel, at + config.channelSpacingMs, at);
}

/** Brings the bucket to `now` and registers the asking card; returns the time it is judged at. */
function observe(state: BudgetState, config: BudgetConfig, request: ProgressRequest): number {
  advance(state, config, request.now);
  const at = timeOf(state);
  sweepSilent(state.registry, at);
  seeCard(state.registry, request.cardId, request.channel, at, config.liveWindowMs);
  return at;
}

/**
 * A write of a separate kind (no token): granted when nothing stands in its
 * way, else refused with exactly when to ask again. A post shows the card,
 * so it counts as the card's paint for the fair share.
 */
function requestSeparate(
  state: BudgetState,
  config: BudgetConfig,
  request: ProgressRequest & { write: WriteKind },
  own: SeparateWriteConfig,
): { state: BudgetState; decision: ProgressDecision } {
  const at = observe(state, config, request);
  const waits = separateWaits(state, own, request.write, request.channel, at);
  if (waits.length > 0) {
    const decision = refusal(waits);
    expectBack(state.registry, request.cardId, at + decision.retryInMs, config.liveWindowMs);
    return { state, decision };
  }
  recordSeparate(state, own, request.write, at);
  if (own.spaced) bookChannel(state.registry, request.channel, at + config.channelSpacingMs, at);
  if (request.write === 'post') paintCard(state.registry, request.cardId, at);
  return { state, decision: { granted: true } };
}

/**
 * May this card paint a progress frame in this channel now? Granted; refused
 * with exactly when to ask again, for what stands in the card's own way; or
 * put in the line (answered later by `wakeLine`) while tokens are short (a
 * debt for a booked terminal frame among them) — also when others are already in the line, so no
 * card jumps it; only a post (`postMayGo`) goes ahead of the line while a
 * token is there. A card already in the line keeps its place.
 */
export function requestProgress(
  state: BudgetState,
  config: BudgetConfig,
  request: ProgressRequest,
): { state: BudgetState; decision: ProgressDecision } {
  const own = separateOf(config, request.write);
  if (own !== undefined && request.write !== undefined) {
    return requestSeparate(state, config, { ...request, write: request.write }, own);
  }
  const at = observe(state, config, request);
  if (isWaiting(state.registry, request.cardId)) {
    return { state, decision: { granted: false, waiting: true, reason: 'reserve' } };
  }
  const waits = cardWaits(state, config, request.cardId, request.channel, at);
  if (waits.length > 0) {
    const decision = refusal(waits);
    expectBack(state.registry, request.cardId, at + decision.retryInMs, config.liveWindowMs);
    return { state, decision };
  }
  if (
    request.write === 'post'
      ? !postMayGo(state, config, at)
      : state.registry.waiting > 0 || lineWaitMs(state, config, at) > 0
  ) {
    joinLine(state.registry, request.cardId);
    return { state, decision: { granted: false, waiting: true, reason: 'reserve' } };
  }
  grant(state, config, request.cardId, request.channel, at);
  return { state, decision: { granted: true } };
}

/**
 * May a post (a card's first message, or a rollover) take a token now? Like
 * a terminal frame it may use the reserve, but never go into debt: a token
 * is there, no cool-off runs and the window has room. It does not queue
 * behind the edits in the line, so a new turn's first post does not wait for
 * other channels' cards (issue 24 item 2: on Discord, with 3 tokens above
 * a reserve of 9, the booked frames of a busy channel held the line, and
 * the quiet channel's first post with it).
 */
function postMayGo(state: BudgetState, config: BudgetConfig, at: number): boolean {
  return coolOffWaitMs(state, at) === 0 && state.tokens >= 1 && windowFreeAt(state, config, at) <= at;
}

/**
 * The refusal a progress frame gets while the platform is cooling off,
 * whatever the bucket holds. The card still counts as live; a card in the
 * line stays there (the line moves after the cool-off).
 */
export function refuseDuringCoolOff(
  state: BudgetState,
  config: BudgetConfig,
  request: ProgressRequest,
): { state: BudgetState; decision: ProgressDecision } {
  const at = observe(state, config, request);
  if (isWaiting(state.registry, request.cardId)) {
    return { state, decision: { granted: false, waiting: true, reason: 'reserve' } };
  }
  const retryInMs = Math.ceil(coolOffWaitMs(state, at));
  expectBack(state.registry, request.cardId, at + retryInMs, config.liveWindowMs);
  return { state, decision: { granted: false, retryInMs, reason: 'cool-off' } };
}

/**
 * Answers the line, oldest first, while a progress token is there at `now`:
 * each card is granted, or refused (and leaves the line) when its own fair
 * share or channel now stands in its way. Stops at the first card the bucket
 * cannot serve; `nextWakeAt` says when to call again.
 */
export function wakeLine(
  state: BudgetState,
  config: BudgetConfig,
  now: number,
): { state: BudgetState; answers: LineAnswer[] } {
  advance(state, config, now);
  const at = timeOf(state);
  const answers: LineAnswer[] = [];
  for (let cardId = lineHead(state.registry); cardId !== undefined; cardId = lineHead(state.registry)) {
    if (lineWaitMs(state, config, at) > 0) break;
    const card = state.registry.cards[cardId]!;
    leaveLine(state.registry, cardId);
    const waits = cardWaits(state, config, cardId, card.channel, at);
    if (waits.length > 0) {
      const decision = refusal(waits);
      expectBack(state.registry, cardId, at + decision.retryInMs, config.liveWindowMs);
      answers.push({ cardId, decision });
      continue;
    }
    grant(state, config, cardId, card.channel, at);
    card.seenAt = at;
    answers.push({ cardId, decision: { granted: true } });
  }
  compactLine(state.registry);
  return { state, answers };
}

/** When the line can next move; null when nobody waits in it. */
export function nextWakeAt(state: BudgetState, config: BudgetConfig): number | null {
  if (state.registry.waiting === 0 || state.clockAt === null) return null;
  return state.clockAt + Math.ceil(lineWaitMs(state, config, state.clockAt));
}

/**
 * May an advisory write (Discord's typing indicator) go now? Only from
 * tokens nobody else is owed: above the reserve, with no terminal frame
 * booked, nobody in the progress line, no queued write waiting and no
 * cool-off. Granted takes the token; refused means skip it (it is advisory:
 * never queued, never retried).
 */
export function requestAdvisory(
  state: BudgetState,
  config: BudgetConfig,
  now: number,
): { state: BudgetState; granted: boolean } {
  advance(state, config, now);
  const at = timeOf(state);
  const free =
    state.registry.waiting === 0 &&
    state.queuedCount === 0 &&
    lineWaitMs(state, config, at) === 0 &&
    bookingsWaitMs(state, at) === 0 &&
    state.tokens - 1 >= config.reserve;
  if (free) {
    state.tokens -= 1;
    recordSent(state, config, at);
  }
  return { state, granted: free };
}
