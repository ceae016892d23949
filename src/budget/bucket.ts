/**
 * The edit budget's math (docs/architecture.md item 8), over plain JSON: each
 * function takes a `BudgetState` and an explicit `now`, updates the state in
 * place and returns it with its decision. In place because the registry of
 * live cards is large (one entry per live turn) and a copy per request made
 * every request O(n) (docs/benchmarks.md, "the budget at scale"); the state
 * stays JSON, so `cloneBudgetState` gives an independent copy where a caller
 * branches from one state.
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
 * - What stands in one card's way (its fair share, its channel, a cool-off) is
 *   a refusal that says exactly when to ask again. What stands in everyone's
 *   way (the reserve, a terminal booking) puts the card in a line instead:
 *   `wakeLine` answers the line in order when tokens are there, so no card
 *   polls for a token that the next asker would take first.
 * - A clock that goes backwards neither refills nor drains: the bucket keeps
 *   the latest time it has seen as its reference and judges everything at it.
 * - A write kind the platform limits apart from its edits (`config.separate`:
 *   Slack's `chat.postMessage`, `assistant.threads.setStatus`,
 *   `reactions.add`) takes no token: it goes when its channel is clear (if it
 *   is spaced), no cool-off runs and its own limit (a log of its writes in
 *   the last window) has room. It never waits in the line and never leaves
 *   the edits short; a booked one still goes before progress frames.
 * - With `config.windowLog` (Slack) the bucket refills at the whole
 *   allowance, and a log of its writes (`sent`: grants, and terminal frames
 *   at their funding time) keeps every window within the allowance: a write
 *   that would be one too many waits until the window's oldest has left.
 */
import type { RefusedEvent } from '../../machines/budget.protocol.js';
import type { BudgetConfig, SeparateWriteConfig, WriteKind } from './config.js';
import {
  bookChannel,
  channelFreeAt,
  compactLine,
  deferChannels,
  emptyRegistry,
  expectBack,
  isWaiting,
  joinLine,
  leaveLine,
  lineHead,
  liveCardCount,
  liveCardsIn,
  paintCard,
  type Registry,
  removeCard,
  seeCard,
  sweepSilent,
} from './registry.js';

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

function checkNow(now: number): number {
  if (!Number.isFinite(now)) throw new RangeError(`budget: now must be a finite time in ms, got ${now}`);
  return now;
}

const holdsToken = (booking: Booking): boolean => booking.token !== false;

/** Terminal frames charged to the bucket that have not gone out by `at`. */
function heldAt(bookings: readonly Booking[], at: number): number {
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
function timeOf(state: BudgetState): number {
  if (state.clockAt === null) throw new Error('budget: the state has not seen a time yet');
  return state.clockAt;
}

interface Wait {
  reason: RefusalReason;
  ms: number;
}

/** What stands in this card's own way (its fair share, its channel, a cool-off), with how long each lasts. */
function cardWaits(
  state: BudgetState,
  config: BudgetConfig,
  cardId: string,
  channel: string,
  at: number,
): Wait[] {
  const waits: Wait[] = [];
  if (state.coolOffUntil !== null && state.coolOffUntil > at) {
    waits.push({ reason: 'cool-off', ms: state.coolOffUntil - at });
  }
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
 * of its capacity, so a token not taken is a refill lost — assuming nobody
 * takes one meanwhile; 0 when it holds one now. Null while others are owed
 * tokens (a card in the line, a terminal frame booked): nothing is spare then.
 */
function spareInMsAt(state: BudgetState, config: BudgetConfig, at: number): number | null {
  if (state.registry.waiting > 0 || heldAt(state.bookings, at) > 0) return null;
  const spareAt = config.capacity - 1;
  return state.tokens >= spareAt ? 0 : Math.ceil((spareAt - state.tokens) / config.refillPerMs);
}

/**
 * How long until a progress token may go to anyone: the reserve must stay in
 * the bucket, every booked terminal frame goes first, and nothing goes out
 * during a cool-off. 0 when a token is there now.
 */
function lineWaitMs(state: BudgetState, config: BudgetConfig, at: number): number {
  let ms = 0;
  if (state.coolOffUntil !== null && state.coolOffUntil > at) ms = state.coolOffUntil - at;
  for (const booking of state.bookings) if (booking.fundedAt > at) ms = Math.max(ms, booking.fundedAt - at);
  if (state.tokens - 1 < config.reserve) {
    ms = Math.max(ms, (config.reserve + 1 - state.tokens) / config.refillPerMs);
  }
  return Math.max(ms, windowFreeAt(state, config, at) - at);
}

function refusal(waits: readonly Wait[]): Refusal {
  const longest = waits.reduce((a, b) => (b.ms > a.ms ? b : a));
  return { granted: false, retryInMs: Math.ceil(longest.ms), reason: longest.reason };
}

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

// ------------------------------------------------------------------ window logs

/**
 * The earliest time from `at` on at which one more write keeps every window
 * of `windowMs` (half-open, `(t - windowMs, t]`) of `log` (oldest first)
 * within `allowance`, counting the writes booked after `at` too. Writes no
 * window reaching `at` holds are forgotten.
 */
function logFreeAt(log: number[], allowance: number, windowMs: number, at: number): number {
  let drop = 0;
  while (drop < log.length && log[drop]! <= at - windowMs) drop++;
  if (drop > 0) log.splice(0, drop);
  if (log.length < allowance) return at;
  // All but allowance − 1 of the writes must have left the window.
  return Math.max(at, log[log.length - allowance]! + windowMs);
}

/** Adds a write at `at` to a log kept oldest first. */
function logWrite(log: number[], at: number): void {
  let i = log.length;
  while (i > 0 && log[i - 1]! > at) i--;
  log.splice(i, 0, at);
}

/** With `windowLog`: when the bucket's window has room for one more write, from `at` on (else `at`). */
function windowFreeAt(state: BudgetState, config: BudgetConfig, at: number): number {
  if (!config.windowLog) return at;
  state.sent ??= [];
  return logFreeAt(state.sent, config.windowAllowance, config.windowMs, at);
}

/** With `windowLog`: a write of the bucket goes (or is booked to go) at `at`. */
function recordSent(state: BudgetState, config: BudgetConfig, at: number): void {
  if (!config.windowLog) return;
  state.sent ??= [];
  logWrite(state.sent, at);
}

// ------------------------------------------------------------------ separate write kinds

/** The kind's own limits, when the platform limits it apart from the bucket. */
function separateOf(config: BudgetConfig, write: WriteKind | undefined): SeparateWriteConfig | undefined {
  return write === undefined ? undefined : config.separate?.[write];
}

/** The kind's log of writes (oldest first), created on first use. */
function writeLog(state: BudgetState, kind: WriteKind): number[] {
  state.separate ??= {};
  let log = state.separate[kind];
  if (log === undefined) {
    log = [];
    state.separate[kind] = log;
  }
  return log;
}

/**
 * The earliest time from `at` on at which one more write of the kind keeps
 * every window of `windowMs` (half-open, `(t - windowMs, t]`) within its
 * allowance, counting the writes already booked after `at` too.
 */
function separateFreeAt(state: BudgetState, own: SeparateWriteConfig, kind: WriteKind, at: number): number {
  if (own.allowance === null) return at;
  return logFreeAt(writeLog(state, kind), own.allowance, own.windowMs, at);
}

function recordSeparate(state: BudgetState, own: SeparateWriteConfig, kind: WriteKind, at: number): void {
  if (own.allowance === null) return;
  logWrite(writeLog(state, kind), at);
}

/** What stands in the way of a separate write: a cool-off, its channel (when spaced), its own limit. */
function separateWaits(
  state: BudgetState,
  own: SeparateWriteConfig,
  kind: WriteKind,
  channel: string,
  at: number,
): Wait[] {
  const waits: Wait[] = [];
  if (state.coolOffUntil !== null && state.coolOffUntil > at) {
    waits.push({ reason: 'cool-off', ms: state.coolOffUntil - at });
  }
  if (own.spaced) {
    const freeAt = channelFreeAt(state.registry, channel, at);
    if (freeAt > at) waits.push({ reason: 'spacing', ms: freeAt - at });
  }
  const ownAt = separateFreeAt(state, own, kind, at);
  if (ownAt > at) waits.push({ reason: 'write-limit', ms: ownAt - at });
  return waits;
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
 * put in the line (answered later by `wakeLine`) while tokens are short or a
 * terminal frame waits — also when others are already in the line, so no
 * card jumps it. A card already in the line keeps its place.
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
  if (state.registry.waiting > 0 || lineWaitMs(state, config, at) > 0) {
    joinLine(state.registry, request.cardId);
    return { state, decision: { granted: false, waiting: true, reason: 'reserve' } };
  }
  grant(state, config, request.cardId, request.channel, at);
  return { state, decision: { granted: true } };
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
  const retryInMs = Math.max(0, Math.ceil((state.coolOffUntil ?? at) - at));
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
    const fundedAt = Math.max(
      channelAt,
      state.coolOffUntil ?? at,
      at,
      separateFreeAt(state, own, request.write, Math.max(channelAt, state.coolOffUntil ?? at, at)),
    );
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
  const readyAt = Math.max(tokenAt, channelAt, state.coolOffUntil ?? at, at);
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
  const coolingUntil = Math.max(at, state.coolOffUntil ?? at);
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

// ------------------------------------------------------------------ queued writes

/**
 * Queues a write that must land but yields to terminal frames (a policy
 * card): it is funded by `serveQueued` when its channel is free, a token is
 * in the bucket (it may use the reserve, never go into debt: a debt is a
 * terminal frame waiting) and no cool-off runs. Returns its id.
 */
export function bookQueued(
  state: BudgetState,
  config: BudgetConfig,
  request: QueuedRequest,
): { state: BudgetState; id: number } {
  advance(state, config, request.now);
  const id = state.nextBookingId;
  state.nextBookingId += 1;
  const lane = state.queued[request.channel] ?? { order: [], groups: {} };
  state.queued[request.channel] = lane;
  const waiting = lane.groups[request.group];
  if (waiting) waiting.push(id);
  else {
    lane.groups[request.group] = [id];
    lane.order.push(request.group);
  }
  state.queuedCount += 1;
  if (separateOf(config, request.write) !== undefined && request.write !== undefined) {
    state.queuedWrites ??= {};
    state.queuedWrites[id] = request.write;
  }
  return { state, id };
}

/** The channel's next queued write: its id and, when it is a separate kind, that kind and its limits. */
function queuedHead(
  state: BudgetState,
  config: BudgetConfig,
  lane: QueuedLane,
): { id: number; kind?: WriteKind; own?: SeparateWriteConfig } {
  const id = lane.groups[lane.order[0]!]![0]!;
  const kind = state.queuedWrites?.[id];
  const own = separateOf(config, kind);
  return kind === undefined || own === undefined ? { id } : { id, kind, own };
}

/**
 * When a queued write may go: the channel free, no cool-off, and a token (no
 * debt) — or, for a separate kind, room in its own limit (and the channel
 * only when it is spaced).
 */
function queuedReadyAt(
  state: BudgetState,
  config: BudgetConfig,
  channel: string,
  lane: QueuedLane,
  at: number,
): number {
  const head = queuedHead(state, config, lane);
  if (head.own !== undefined && head.kind !== undefined) {
    const channelAt = head.own.spaced ? channelFreeAt(state.registry, channel, at) : at;
    const from = Math.max(channelAt, state.coolOffUntil ?? at, at);
    return separateFreeAt(state, head.own, head.kind, from);
  }
  const tokenAt = state.tokens >= 1 ? at : at + Math.ceil((1 - state.tokens) / config.refillPerMs);
  const readyAt = Math.max(tokenAt, channelFreeAt(state.registry, channel, at), state.coolOffUntil ?? at);
  return windowFreeAt(state, config, readyAt);
}

/**
 * Funds the queued writes that may go at `at`: at most one per channel (it
 * books the channel's next slot), the channel's groups taking turns. Returns
 * the funded ids, oldest channel first.
 */
export function serveQueued(
  state: BudgetState,
  config: BudgetConfig,
  at: number,
): { state: BudgetState; funded: number[] } {
  const funded: number[] = [];
  if (state.queuedCount === 0) return { state, funded };
  advance(state, config, at);
  const now = timeOf(state);
  for (const [channel, lane] of Object.entries(state.queued)) {
    if (queuedReadyAt(state, config, channel, lane, now) > now) continue;
    const head = queuedHead(state, config, lane);
    const group = lane.order.shift()!;
    const waiting = lane.groups[group]!;
    funded.push(waiting.shift()!);
    if (waiting.length > 0) lane.order.push(group);
    else delete lane.groups[group];
    if (lane.order.length === 0) delete state.queued[channel];
    state.queuedCount -= 1;
    if (head.own !== undefined && head.kind !== undefined) {
      delete state.queuedWrites?.[head.id];
      recordSeparate(state, head.own, head.kind, now);
      if (head.own.spaced) bookChannel(state.registry, channel, now + config.channelSpacingMs, now);
      continue;
    }
    state.tokens -= 1;
    recordSent(state, config, now);
    bookChannel(state.registry, channel, now + config.channelSpacingMs, now);
  }
  return { state, funded };
}

/** When the next queued write may be funded; null when none waits. */
export function nextQueuedAt(state: BudgetState, config: BudgetConfig): number | null {
  if (state.queuedCount === 0 || state.clockAt === null) return null;
  let earliest = Number.POSITIVE_INFINITY;
  for (const [channel, lane] of Object.entries(state.queued)) {
    earliest = Math.min(earliest, queuedReadyAt(state, config, channel, lane, state.clockAt));
  }
  return earliest;
}

// ------------------------------------------------------------------ advisory writes

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
    state.tokens - 1 >= config.reserve;
  if (free) {
    state.tokens -= 1;
    recordSent(state, config, at);
  }
  return { state, granted: free };
}
