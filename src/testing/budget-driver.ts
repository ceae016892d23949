/**
 * Drives a real budget actor on a `SimulatedClock` and records what every
 * card asked and was answered, so tests can check the budget's promises on
 * the trace (`checkBudgetTrace`). Time only moves when the test moves it, and
 * every timer due on the way fires at its own time, as it would in production.
 */
import { type Actor, type AnyActorRef, createActor, fromCallback, SimulatedClock } from 'xstate';
import { type BudgetMachine, budgetMachine } from '../../machines/budget.machine.js';
import type { BudgetReplyEvent } from '../../machines/budget.protocol.js';
import type { RefusalReason } from '../budget/bucket.js';
import type { BudgetConfig, BudgetInput } from '../budget/config.js';
import { createBudgetImplementations } from '../budget/implementations.js';
import { watchTimers } from './timers.js';

export type BudgetTraceEntry =
  | { kind: 'progress'; at: number; cardId: string; channel: string }
  | { kind: 'book'; at: number; cardId: string; channel: string }
  | { kind: 'queue'; at: number; cardId: string; channel: string; group: string }
  | { kind: 'advisory'; at: number; cardId: string }
  | { kind: 'advisory-answer'; at: number; cardId: string; granted: boolean }
  | { kind: 'rate-limited'; at: number; retryAfterMs: number }
  | { kind: 'closed'; at: number; cardId: string }
  | { kind: 'granted'; at: number; cardId: string }
  | { kind: 'refused'; at: number; cardId: string; retryInMs: number; reason: RefusalReason }
  | { kind: 'funded'; at: number; cardId: string };

export interface BudgetDriver {
  readonly clock: SimulatedClock;
  readonly actor: Actor<BudgetMachine>;
  readonly config: BudgetConfig;
  /** Requests and replies in the order they happened. */
  readonly trace: BudgetTraceEntry[];
  /** Every machine transition taken, as `transitionKey` names it. */
  readonly transitionsTaken: Set<string>;
  progress(cardId: string, channel: string): void;
  book(cardId: string, channel: string): void;
  /** A queued write (a policy card): funded after every terminal booking, a channel's groups taking turns. */
  queue(cardId: string, channel: string, group: string): void;
  /** An advisory write (typing): answered at once. */
  advisory(cardId: string): void;
  rateLimited(retryAfterMs: number): void;
  close(cardId: string): void;
  /** When the budget's next timer fires; null when none is set. */
  nextTimerAt(): number | null;
  /** Moves the clock to `at`, stopping at every timer due on the way. */
  advanceTo(at: number): void;
  advance(ms: number): void;
  /** Runs the clock until no timer is left: every booking funded, any cool-off over. */
  settle(): void;
  stop(): void;
}

/** A transition's identity in the machine definition: source state, event, targets. */
export function transitionKey(transition: {
  source: { id: string };
  eventType: string;
  target?: ReadonlyArray<{ id: string }> | undefined;
}): string {
  const targets = transition.target?.map((node) => node.id).join(',') ?? '';
  return `${transition.source.id} ${transition.eventType || '(always)'} → ${targets || '(self)'}`;
}

/** A stand-in for a turn actor: it records every reply the budget sends it. */
function createCardRecorder(cardId: string, clock: SimulatedClock, trace: BudgetTraceEntry[]): AnyActorRef {
  const recorder = createActor(
    fromCallback<BudgetReplyEvent>(({ receive }) => {
      receive((reply) => {
        const at = clock.now();
        if (reply.type === 'budget.granted') trace.push({ kind: 'granted', at, cardId });
        else if (reply.type === 'budget.funded') trace.push({ kind: 'funded', at, cardId });
        else if (reply.type === 'budget.advisory.answer')
          trace.push({ kind: 'advisory-answer', at, cardId, granted: reply.granted });
        else if (reply.type === 'budget.refused')
          trace.push({ kind: 'refused', at, cardId, retryInMs: reply.retryInMs, reason: reply.reason });
      });
    }),
    { clock },
  );
  recorder.start();
  return recorder;
}

export function createBudgetDriver(input: BudgetInput): BudgetDriver {
  const clock = new SimulatedClock();
  const trace: BudgetTraceEntry[] = [];
  const transitionsTaken = new Set<string>();
  const recorders = new Map<string, AnyActorRef>();
  const actor = createActor(budgetMachine.provide(createBudgetImplementations({ now: () => clock.now() })), {
    clock,
    input,
    inspect: (inspection) => {
      // Recorders run in their own systems; only the budget's own steps count.
      if (inspection.type !== '@xstate.microstep' || inspection.actorRef !== actor) return;
      for (const transition of inspection._transitions) transitionsTaken.add(transitionKey(transition));
    },
  });
  actor.start();
  const recorderFor = (cardId: string): AnyActorRef => {
    const existing = recorders.get(cardId);
    if (existing) return existing;
    const recorder = createCardRecorder(cardId, clock, trace);
    recorders.set(cardId, recorder);
    return recorder;
  };
  const { noteTimers, nextTimerAt } = watchTimers(actor, clock);
  const step = (ms: number): void => {
    clock.increment(ms);
    noteTimers();
  };
  const advanceTo = (at: number): void => {
    for (let due = nextTimerAt(); due !== null && due <= at; due = nextTimerAt()) {
      step(Math.max(0, due - clock.now()));
    }
    step(Math.max(0, at - clock.now()));
  };
  const send = (event: Parameters<typeof actor.send>[0]): void => {
    actor.send(event);
    noteTimers();
  };
  return {
    clock,
    actor,
    config: actor.getSnapshot().context.config,
    trace,
    transitionsTaken,
    progress(cardId, channel) {
      trace.push({ kind: 'progress', at: clock.now(), cardId, channel });
      send({ type: 'budget.progress.request', cardId, channel, replyTo: recorderFor(cardId) });
    },
    book(cardId, channel) {
      trace.push({ kind: 'book', at: clock.now(), cardId, channel });
      send({ type: 'budget.terminal.book', cardId, channel, replyTo: recorderFor(cardId) });
    },
    queue(cardId, channel, group) {
      trace.push({ kind: 'queue', at: clock.now(), cardId, channel, group });
      send({ type: 'budget.queued.book', cardId, channel, group, replyTo: recorderFor(cardId) });
    },
    advisory(cardId) {
      trace.push({ kind: 'advisory', at: clock.now(), cardId });
      send({ type: 'budget.advisory.request', purpose: 'typing', replyTo: recorderFor(cardId) });
    },
    rateLimited(retryAfterMs) {
      trace.push({ kind: 'rate-limited', at: clock.now(), retryAfterMs });
      send({ type: 'budget.rate-limited', retryAfterMs });
    },
    close(cardId) {
      trace.push({ kind: 'closed', at: clock.now(), cardId });
      send({ type: 'budget.card.closed', cardId });
    },
    nextTimerAt,
    advanceTo,
    advance: (ms) => advanceTo(clock.now() + ms),
    settle() {
      for (let due = nextTimerAt(); due !== null; due = nextTimerAt()) advanceTo(due);
    },
    stop() {
      actor.stop();
      for (const recorder of recorders.values()) recorder.stop();
    },
  };
}

const EPSILON = 1e-9;

/**
 * The budget's promises, checked on a trace; returns what was broken (empty
 * when nothing was):
 * - no window lets more edits through than the bucket holds plus its refill
 *   over the window (`capacity + refillPerMs × elapsed`);
 * - every terminal booking is answered with `budget.funded`, once;
 * - no progress frame is granted in a channel while a booking in that
 *   channel is still unanswered (a booking elsewhere, waiting for its own
 *   channel, holds its token already and holds back nobody: issue 24 item 2;
 *   one the bucket is in debt for is kept by the window bound above);
 * - every queued write is funded, once, and never while a terminal booking
 *   waits (cards never go before answers);
 * - an advisory write is granted only while nothing else waits;
 * - no edit goes out during a cool-off.
 */
export function checkBudgetTrace(trace: readonly BudgetTraceEntry[], config: BudgetConfig): string[] {
  const violations: string[] = [];
  const edits = trace.filter(
    (entry) =>
      entry.kind === 'granted' ||
      entry.kind === 'funded' ||
      (entry.kind === 'advisory-answer' && entry.granted),
  );
  for (let first = 0; first < edits.length; first++) {
    for (let last = first; last < edits.length; last++) {
      const from = edits[first]!.at;
      const to = edits[last]!.at;
      const allowed = config.capacity + config.refillPerMs * (to - from);
      if (last - first + 1 > allowed + EPSILON) {
        violations.push(`${last - first + 1} edits in [${from}, ${to}] where the bucket allows ${allowed}`);
      }
    }
  }
  // A bucket that counts its windows exactly (windowLog) also promises the allowance in any window.
  if (config.windowLog) {
    const most = maxEditsInWindow(
      edits.map((entry) => entry.at),
      config.windowMs,
    );
    if (most > config.windowAllowance) {
      violations.push(
        `${most} edits in one window of ${config.windowMs} ms where the log allows ${config.windowAllowance}`,
      );
    }
  }
  const booked = new Map<string, number>();
  const queued = new Map<string, number>();
  /** Each card's channel (from its requests), and the unanswered bookings per channel. */
  const channelOf = new Map<string, string>();
  const bookedIn = new Map<string, string[]>();
  let unanswered = 0;
  let queuedWaiting = 0;
  let coolingUntil = Number.NEGATIVE_INFINITY;
  for (const entry of trace) {
    if (entry.kind === 'progress') channelOf.set(entry.cardId, entry.channel);
    if (entry.kind === 'book') {
      booked.set(entry.cardId, (booked.get(entry.cardId) ?? 0) + 1);
      bookedIn.set(entry.cardId, [...(bookedIn.get(entry.cardId) ?? []), entry.channel]);
      unanswered++;
    } else if (entry.kind === 'queue') {
      queued.set(entry.cardId, (queued.get(entry.cardId) ?? 0) + 1);
      queuedWaiting++;
    } else if (
      entry.kind === 'funded' &&
      (booked.get(entry.cardId) ?? 0) === 0 &&
      (queued.get(entry.cardId) ?? 0) > 0
    ) {
      queued.set(entry.cardId, (queued.get(entry.cardId) ?? 0) - 1);
      queuedWaiting--;
      if (unanswered > 0) {
        violations.push(`${entry.cardId} queued write funded at ${entry.at} while a terminal booking waits`);
      }
    } else if (entry.kind === 'funded') {
      const left = (booked.get(entry.cardId) ?? 0) - 1;
      if (left < 0) violations.push(`${entry.cardId} funded at ${entry.at} without a booking`);
      booked.set(entry.cardId, left);
      bookedIn.get(entry.cardId)?.shift();
      unanswered--;
    } else if (entry.kind === 'rate-limited') {
      coolingUntil = Math.max(coolingUntil, entry.at + entry.retryAfterMs);
    }
    if (entry.kind === 'granted') {
      const channel = channelOf.get(entry.cardId);
      const waitsThere = [...bookedIn.values()].some((channels) => channels.includes(channel ?? ''));
      if (waitsThere) {
        violations.push(
          `${entry.cardId} granted a progress frame at ${entry.at} while a terminal booking waits in ${channel}`,
        );
      }
    }
    if (entry.kind === 'advisory-answer' && entry.granted && (unanswered > 0 || queuedWaiting > 0)) {
      violations.push(`${entry.cardId} granted an advisory write at ${entry.at} while others wait`);
    }
    const wrote = entry.kind === 'granted' || entry.kind === 'funded';
    if ((wrote || (entry.kind === 'advisory-answer' && entry.granted)) && entry.at < coolingUntil) {
      violations.push(`${entry.cardId} ${entry.kind} at ${entry.at} during a cool-off until ${coolingUntil}`);
    }
  }
  for (const [cardId, left] of booked) {
    if (left > 0) violations.push(`${cardId} has ${left} terminal booking(s) never funded`);
  }
  for (const [cardId, left] of queued) {
    if (left > 0) violations.push(`${cardId} has ${left} queued write(s) never funded`);
  }
  return violations;
}

/** The most edits any window of `windowMs` (half-open, `(t - windowMs, t]`) holds. */
export function maxEditsInWindow(times: readonly number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  let start = 0;
  for (let end = 0; end < sorted.length; end++) {
    while (sorted[start]! <= sorted[end]! - windowMs) start++;
    most = Math.max(most, end - start + 1);
  }
  return most;
}
