// spec: run-visibility 8 "the budget — progress frames stop at the reserve (a fifth of the rate by
// default), at each live card's fair share (a card silent past the live window is swept out of it), and
// at the channel spacing; a terminal frame takes a token at once or reserves one (negative bucket,
// funded-at wait, channel slot booked) and progress frames yield to a debt for it (not to one waiting for
// its own channel: issue 24 item 2); refill at the rate,
// capped, never drained by a clock going backwards" — tested on the pure math, with explicit times.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as bucket from '../../src/budget/bucket.js';
import {
  type BudgetState,
  cloneBudgetState,
  createBudgetState,
  nextFundingAt,
  nextWakeAt,
  type ProgressDecision,
} from '../../src/budget/bucket.js';
import { type BudgetConfig, resolveBudgetConfig } from '../../src/budget/config.js';

// The bucket updates its state in place (the actor owns one); these tests branch from one state into
// several, so each call here works on its own copy and leaves its argument as it was.
const advance = (
  state: BudgetState,
  ...rest: Parameters<typeof bucket.advance> extends [unknown, ...infer R] ? R : never
) => bucket.advance(cloneBudgetState(state), ...rest);
const requestProgress = (
  state: BudgetState,
  ...rest: Parameters<typeof bucket.requestProgress> extends [unknown, ...infer R] ? R : never
) => bucket.requestProgress(cloneBudgetState(state), ...rest);
const bookTerminal = (
  state: BudgetState,
  ...rest: Parameters<typeof bucket.bookTerminal> extends [unknown, ...infer R] ? R : never
) => bucket.bookTerminal(cloneBudgetState(state), ...rest);
const coolOff = (
  state: BudgetState,
  ...rest: Parameters<typeof bucket.coolOff> extends [unknown, ...infer R] ? R : never
) => bucket.coolOff(cloneBudgetState(state), ...rest);
const settleBookings = (
  state: BudgetState,
  ...rest: Parameters<typeof bucket.settleBookings> extends [unknown, ...infer R] ? R : never
) => bucket.settleBookings(cloneBudgetState(state), ...rest);
const closeCard = (state: BudgetState, cardId: string) => bucket.closeCard(cloneBudgetState(state), cardId);
const wakeLine = (state: BudgetState, now: number) => bucket.wakeLine(cloneBudgetState(state), config, now);

// Allowance 100 a minute, capacity 40, reserve 10: the bucket refills 60 a minute — one token a second —
// and progress frames share 0.9 a second, so one card paints every ~1.1 s and nine every 10 s.
const config = resolveBudgetConfig({
  platform: 'test',
  ratePerMinute: 100,
  reserveFraction: 0.1,
  capacity: 40,
  channelSpacingMs: 1000,
  liveWindowMs: 60_000,
});

const fresh = (now = 0): BudgetState => advance(createBudgetState(config), config, now);

function progress(state: BudgetState, cardId: string, channel: string, now: number) {
  return requestProgress(state, config, { cardId, channel, now });
}

/** Grants `count` progress frames at `now`, each for its own card in its own channel. */
function drainWithProgress(state: BudgetState, count: number, now: number): BudgetState {
  let current = state;
  for (let i = 0; i < count; i++) {
    const result = progress(current, `drain-${i}`, `drain-channel-${i}`, now);
    expect(result.decision).toEqual({ granted: true });
    current = result.state;
  }
  return current;
}

const refused = (reason: string, retryInMs: number): ProgressDecision =>
  ({ granted: false, reason, retryInMs }) as never;
const waiting: ProgressDecision = { granted: false, waiting: true, reason: 'reserve' };

describe('progress frames and the reserve', () => {
  it('stop at the reserve: the card waits in the line, and is granted once the refill lifts the bucket above it', () => {
    const drained = drainWithProgress(fresh(), 30, 0);
    expect(drained.tokens).toBe(10);
    const late = progress(drained, 'late', 'late-channel', 0);
    expect(late.decision).toEqual(waiting);
    expect(nextWakeAt(late.state, config)).toBe(1000);
    // Asking again keeps its place; nothing is answered before the token is there.
    const again = progress(late.state, 'late', 'late-channel', 500);
    expect(again.decision).toEqual(waiting);
    expect(wakeLine(again.state, 999).answers).toEqual([]);
    expect(wakeLine(again.state, 1000).answers).toEqual([{ cardId: 'late', decision: { granted: true } }]);
    // Asked first when the token is there and nobody waits: granted at once.
    expect(progress(drained, 'late', 'late-channel', 1000).decision).toEqual({ granted: true });
  });

  it('the line is served in order, one card per token, and a newcomer does not jump it', () => {
    let state = drainWithProgress(fresh(), 30, 0);
    for (const cardId of ['first', 'second', 'third']) {
      state = progress(state, cardId, `${cardId}-channel`, 0).state;
    }
    // At 2 s two tokens are above the reserve; a newcomer asking then joins the back of the line.
    const newcomer = progress(state, 'newcomer', 'newcomer-channel', 2000);
    expect(newcomer.decision).toEqual(waiting);
    const woken = wakeLine(newcomer.state, 2000);
    expect(woken.answers.map((answer) => answer.cardId)).toEqual(['first', 'second']);
    expect(nextWakeAt(woken.state, config)).toBe(3000);
    expect(wakeLine(woken.state, 4000).answers.map((answer) => answer.cardId)).toEqual(['third', 'newcomer']);
  });

  it('a card whose own channel is busy when its turn in the line comes is told exactly when, and leaves the line', () => {
    let state = drainWithProgress(fresh(), 30, 0);
    state = progress(state, 'a', 'x', 0).state;
    state = progress(state, 'b', 'x', 0).state;
    // At 2 s two tokens are there; a paints in x, so x is busy until 3 s when b's turn comes.
    const woken = wakeLine(state, 2000);
    expect(woken.answers).toEqual([
      { cardId: 'a', decision: { granted: true } },
      { cardId: 'b', decision: refused('spacing', 1000) },
    ]);
    expect(nextWakeAt(woken.state, config)).toBeNull();
  });

  it('a terminal frame still takes a token at once from the reserve', () => {
    const drained = drainWithProgress(fresh(), 30, 0);
    const { state, booking } = bookTerminal(drained, config, { cardId: 'done', channel: 'c', now: 0 });
    expect(booking.fundedAt).toBe(0);
    expect(state.tokens).toBe(9);
  });
});

describe('the fair share', () => {
  it('a card paints at most once per (live cards ÷ progress rate)', () => {
    let state = fresh();
    for (let i = 0; i < 9; i++) state = progress(state, `card-${i}`, `channel-${i}`, 0).state;
    expect(progress(state, 'card-0', 'channel-0', 5000).decision).toEqual(refused('fair-share', 5000));
    expect(progress(state, 'card-0', 'channel-0', 10_000).decision).toEqual({ granted: true });
  });

  it('alone, a card gets the whole progress rate', () => {
    const state = progress(fresh(), 'card-0', 'channel-0', 0).state;
    expect(progress(state, 'card-0', 'channel-0', 1000).decision).toEqual(refused('fair-share', 112));
    expect(progress(state, 'card-0', 'channel-0', 1112).decision).toEqual({ granted: true });
  });

  it('a card silent past the live window is swept out of the share', () => {
    let state = fresh();
    for (let i = 0; i < 9; i++) state = progress(state, `card-${i}`, `channel-${i}`, 0).state;
    state = progress(state, 'card-0', 'channel-0', 50_000).state;
    // The other eight last asked 52 s ago: still live, so card-0 waits out a nine-card share.
    expect(progress(state, 'card-0', 'channel-0', 52_000).decision).toEqual(refused('fair-share', 8000));
    // 61 s after they last asked, they are swept: card-0 alone paints at once.
    const after = progress(state, 'card-0', 'channel-0', 61_000);
    expect(after.decision).toEqual({ granted: true });
    expect(Object.keys(after.state.registry.cards)).toEqual(['card-0']);
  });

  it('a closed card leaves the share at once', () => {
    let state = progress(fresh(), 'a', 'x', 0).state;
    state = progress(state, 'b', 'y', 0).state;
    expect(progress(state, 'a', 'x', 1500).decision).toEqual(refused('fair-share', 723));
    expect(progress(closeCard(state, 'b'), 'a', 'x', 1500).decision).toEqual({ granted: true });
  });

  it('cards sharing a channel take turns at its slots instead of the first asker winning each one', () => {
    const roomy = resolveBudgetConfig({ platform: 'test', ratePerMinute: 6000, channelSpacingMs: 1000 });
    let state = advance(createBudgetState(roomy), roomy, 0);
    const painters: string[] = [];
    for (let second = 0; second < 6; second++) {
      // Every second all three ask, always in the same order.
      for (const cardId of ['a', 'b', 'c']) {
        const result = requestProgress(state, roomy, { cardId, channel: 'x', now: second * 1000 });
        state = result.state;
        if (result.decision.granted) painters.push(cardId);
      }
    }
    expect(painters).toEqual(['a', 'b', 'c', 'a', 'b', 'c']);
  });
});

describe('the channel spacing', () => {
  it('lets at most one edit per channel per second', () => {
    const state = progress(fresh(), 'a', 'x', 0).state;
    expect(progress(state, 'b', 'x', 500).decision).toEqual(refused('spacing', 500));
    expect(progress(state, 'c', 'y', 500).decision).toEqual({ granted: true });
    expect(progress(state, 'b', 'x', 1000).decision).toEqual({ granted: true });
  });

  it('a terminal frame in a busy channel is booked for its next free slot, and books the one after', () => {
    const busy = progress(fresh(), 'a', 'x', 0).state;
    const first = bookTerminal(busy, config, { cardId: 'b', channel: 'x', now: 200 });
    expect(first.booking.fundedAt).toBe(1000);
    const second = bookTerminal(first.state, config, { cardId: 'c', channel: 'x', now: 300 });
    expect(second.booking.fundedAt).toBe(2000);
    expect(second.state.registry.channels.x).toBe(3000);
  });
});

describe('terminal frames reserve a slot', () => {
  it('with the bucket empty the bucket goes negative and the booking says when it is funded', () => {
    let state = drainWithProgress(fresh(), 30, 0);
    for (let i = 0; i < 10; i++) {
      const taken = bookTerminal(state, config, { cardId: `t-${i}`, channel: `t-channel-${i}`, now: 0 });
      expect(taken.booking.fundedAt).toBe(0);
      state = taken.state;
    }
    expect(state.tokens).toBe(0);
    const first = bookTerminal(state, config, { cardId: 'late-1', channel: 'p', now: 0 });
    expect(first.state.tokens).toBe(-1);
    expect(first.booking.fundedAt).toBe(1000);
    const second = bookTerminal(first.state, config, { cardId: 'late-2', channel: 'q', now: 0 });
    expect(second.state.tokens).toBe(-2);
    expect(second.booking.fundedAt).toBe(2000);
    expect(second.state.registry.channels).toMatchObject({ p: 2000, q: 3000 });
    expect(nextFundingAt(second.state)).toBe(0);
    const settled = settleBookings(second.state, config, 1000);
    expect(settled.funded.map((booking) => booking.cardId)).toEqual([
      ...Array.from({ length: 10 }, (_, i) => `t-${i}`),
      'late-1',
    ]);
    expect(nextFundingAt(settled.state)).toBe(2000);
  });

  it('a terminal frame waiting for its own channel holds back no other channel (issue 24 item 2)', () => {
    const state = progress(fresh(), 'a', 'x', 0).state;
    const booked = bookTerminal(state, config, { cardId: 'b', channel: 'x', now: 0 });
    expect(booked.booking.fundedAt).toBe(1000);
    // Tokens are plentiful and channel y is clear: c goes now, b keeps its slot in x.
    const c = progress(booked.state, 'c', 'y', 100);
    expect(c.decision).toEqual({ granted: true });
    expect(nextWakeAt(c.state, config)).toBeNull();
    expect(nextFundingAt(c.state)).toBe(1000);
    // In b's own channel a progress frame waits for the slot after b's.
    expect(progress(c.state, 'd', 'x', 100).decision).toEqual({
      granted: false,
      retryInMs: 1900,
      reason: 'spacing',
    });
  });

  it('a post (a new card’s first message) may use the reserve, never debt: it does not wait in the line (issue 24 item 2)', () => {
    const drained = drainWithProgress(fresh(), 30, 0);
    expect(drained.tokens).toBe(10);
    // An edit waits in the line for a token above the reserve; a post in a clear channel goes now.
    const edit = progress(drained, 'e', 'y', 0);
    expect(edit.decision).toEqual(waiting);
    const posted = requestProgress(edit.state, config, { cardId: 'p', channel: 'z', now: 0, write: 'post' });
    expect(posted.decision).toEqual({ granted: true });
    expect(posted.state.tokens).toBe(9);
    // Its channel's spacing still holds.
    expect(
      requestProgress(posted.state, config, { cardId: 'q', channel: 'z', now: 0, write: 'post' }).decision,
    ).toEqual({ granted: false, retryInMs: 1000, reason: 'spacing' });
    // In debt a post waits in the line like an edit.
    let state = posted.state;
    for (let i = 0; i < 10; i++) {
      state = bookTerminal(state, config, { cardId: `t-${i}`, channel: `t-channel-${i}`, now: 0 }).state;
    }
    expect(state.tokens).toBe(-1);
    expect(
      requestProgress(state, config, { cardId: 'r', channel: 'w', now: 0, write: 'post' }).decision,
    ).toEqual(waiting);
  });

  it('progress frames yield to every terminal frame the bucket is in debt for, in any channel', () => {
    let state = drainWithProgress(fresh(), 30, 0);
    for (let i = 0; i < 11; i++) {
      state = bookTerminal(state, config, { cardId: `t-${i}`, channel: `t-channel-${i}`, now: 0 }).state;
    }
    expect(state.tokens).toBe(-1);
    const c = progress(state, 'c', 'y', 100);
    expect(c.decision).toEqual(waiting);
    // The debt is repaid at 1000, then the reserve refills before a progress token goes.
    expect(nextWakeAt(c.state, config)).toBe(12_000);
    state = settleBookings(c.state, config, 12_000).state;
    expect(wakeLine(state, 12_000).answers).toEqual([{ cardId: 'c', decision: { granted: true } }]);
  });

  it('a booked frame counts against the cap until it goes out, so the bucket never holds more than its capacity', () => {
    const cooling = coolOff(fresh(), config, { retryAfterMs: 10_000, now: 0 });
    const booked = bookTerminal(cooling, config, { cardId: 'a', channel: 'x', now: 0 });
    expect(booked.booking.fundedAt).toBe(10_000);
    expect(advance(booked.state, config, 9_999).tokens).toBe(39);
    expect(advance(booked.state, config, 11_000).tokens).toBe(40);
  });

  it('a frame held by a cool-off is not refilled for while it waits, even when settled before the next request', () => {
    // Found by the window-bound property: a booking taken at 0 and sent at 1 (after a 1 ms cool-off) was
    // settled before the bucket saw time 1, so the bucket refilled for [0, 1] as if the frame had gone.
    const cooling = coolOff(fresh(), config, { retryAfterMs: 1000, now: 0 });
    const booked = bookTerminal(cooling, config, { cardId: 'a', channel: 'x', now: 0 });
    expect(booked.booking.fundedAt).toBe(1000);
    const settled = settleBookings(booked.state, config, 1000);
    expect(settled.funded.map((booking) => booking.cardId)).toEqual(['a']);
    expect(advance(settled.state, config, 1000).tokens).toBe(39);
    expect(advance(settled.state, config, 2000).tokens).toBeCloseTo(40, 9);
  });
});

describe('the refill', () => {
  it('adds tokens at the refill rate and stops at the capacity', () => {
    const drained = drainWithProgress(fresh(), 30, 0);
    expect(advance(drained, config, 5000).tokens).toBeCloseTo(15, 9);
    expect(advance(drained, config, 3_600_000).tokens).toBe(40);
  });

  it('a clock going backwards neither refills nor drains, and the reference time does not move back', () => {
    const at10s = advance(drainWithProgress(fresh(), 30, 0), config, 10_000);
    expect(at10s.tokens).toBeCloseTo(20, 9);
    const back = advance(at10s, config, 4000);
    expect(back.tokens).toBe(at10s.tokens);
    expect(back.clockAt).toBe(10_000);
    // Recovering credits only the time after the reference: 0.5 s, not 6.5 s.
    expect(advance(back, config, 10_500).tokens).toBeCloseTo(20.5, 9);
  });

  it('judges a request from a clock that went back at the latest time seen', () => {
    const painted = progress(fresh(), 'a', 'x', 10_000).state;
    const tokens = painted.tokens;
    const result = progress(painted, 'b', 'x', 4000);
    expect(result.decision).toEqual(refused('spacing', 1000));
    expect(result.state.tokens).toBe(tokens);
    expect(result.state.clockAt).toBe(10_000);
  });
});

describe('the cool-off after a 429', () => {
  it('no grant until now + retryAfterMs; terminal bookings move to after it', () => {
    const busy = progress(fresh(), 'a', 'x', 0).state;
    const before = bookTerminal(busy, config, { cardId: 'b', channel: 'x', now: 0 });
    expect(before.booking.fundedAt).toBe(1000);
    const cooling = coolOff(before.state, config, { retryAfterMs: 5000, now: 0 });
    expect(cooling.coolOffUntil).toBe(5000);
    // The booking made before keeps its place and spacing, 5 s later.
    expect(cooling.bookings.map((booking) => booking.fundedAt)).toEqual([6000]);
    expect(cooling.registry.channels.x).toBe(7000);
    // Without a booking waiting (which would refuse it anyway), a progress frame is refused for the cool-off.
    const quiet = coolOff(busy, config, { retryAfterMs: 5000, now: 0 });
    expect(progress(quiet, 'c', 'y', 4999).decision).toEqual(refused('cool-off', 1));
    expect(progress(quiet, 'c', 'y', 5000).decision).toEqual({ granted: true });
    const during = bookTerminal(cooling, config, { cardId: 'd', channel: 'y', now: 100 });
    expect(during.booking.fundedAt).toBe(5000);
  });

  it('a later 429 extends the cool-off and moves the bookings by the extension only', () => {
    const cooling = coolOff(fresh(), config, { retryAfterMs: 5000, now: 0 });
    const booked = bookTerminal(cooling, config, { cardId: 'a', channel: 'x', now: 0 });
    expect(booked.booking.fundedAt).toBe(5000);
    const shorter = coolOff(booked.state, config, { retryAfterMs: 2000, now: 1000 });
    expect(shorter.coolOffUntil).toBe(5000);
    expect(shorter.bookings[0]!.fundedAt).toBe(5000);
    const longer = coolOff(booked.state, config, { retryAfterMs: 8000, now: 1000 });
    expect(longer.coolOffUntil).toBe(9000);
    expect(longer.bookings[0]!.fundedAt).toBe(9000);
  });

  it('names a bad Retry-After', () => {
    expect(() => coolOff(fresh(), config, { retryAfterMs: -1, now: 0 })).toThrow(
      /retryAfterMs must be a number of ms ≥ 0, got -1/,
    );
  });
});

describe('a state of plain JSON, updated in place', () => {
  it('stays plain JSON through every operation, and each operation returns the state it was given', () => {
    const state = fresh();
    const steps: BudgetState[] = [
      bucket.requestProgress(state, config, { cardId: 'a', channel: 'x', now: 0 }).state,
      bucket.bookTerminal(state, config, { cardId: 'b', channel: 'x', now: 0 }).state,
      bucket.requestProgress(state, config, { cardId: 'c', channel: 'y', now: 100 }).state,
      bucket.coolOff(state, config, { retryAfterMs: 1000, now: 200 }),
      bucket.settleBookings(state, config, 5000).state,
      bucket.wakeLine(state, config, 5000).state,
      bucket.closeCard(state, 'a'),
      bucket.advance(state, config, 90_000),
      bucket.requestProgress(state, config, { cardId: 'd', channel: 'z', now: 90_000 }).state,
    ];
    for (const step of steps) expect(step).toBe(state);
    expect(JSON.parse(JSON.stringify(state))).toEqual(state);
    // The silent cards were swept; d is the one live card.
    expect(Object.keys(state.registry.cards)).toEqual(['d']);
    expect(state.registry.liveCards).toBe(1);
  });

  it('name a time that is not a number', () => {
    expect(() => progress(fresh(), 'a', 'x', Number.NaN)).toThrow(/now must be a finite time in ms, got NaN/);
  });
});

type Op =
  | { kind: 'progress'; card: number; channel: number; dt: number }
  | { kind: 'book'; card: number; channel: number; dt: number }
  | { kind: 'cool'; retryAfterMs: number; dt: number }
  | { kind: 'close'; card: number; dt: number };

describe('the window bound (property)', () => {
  // Sends: a granted progress frame goes out when granted; a terminal frame at its fundedAt.
  function sendTimes(ops: Op[], budget: BudgetConfig): number[] {
    let state = createBudgetState(budget);
    let now = 0;
    const sends: number[] = [];
    for (const op of ops) {
      now += op.dt;
      state = settleBookings(state, budget, now).state;
      // The line is served at every step too: a card granted from it sends then.
      const woken = bucket.wakeLine(state, budget, now);
      state = woken.state;
      for (const answer of woken.answers) if (answer.decision.granted) sends.push(now);
      if (op.kind === 'progress') {
        const result = requestProgress(state, budget, {
          cardId: `c${op.card}`,
          channel: `h${op.channel}`,
          now,
        });
        state = result.state;
        if (result.decision.granted) sends.push(now);
      } else if (op.kind === 'book') {
        const result = bookTerminal(state, budget, { cardId: `c${op.card}`, channel: `h${op.channel}`, now });
        state = result.state;
        sends.push(result.booking.fundedAt);
      } else if (op.kind === 'cool') {
        state = coolOff(state, budget, { retryAfterMs: op.retryAfterMs, now });
      } else {
        state = closeCard(state, `c${op.card}`);
      }
    }
    return sends.sort((a, b) => a - b);
  }

  const op: fc.Arbitrary<Op> = fc.oneof(
    fc.record({
      kind: fc.constant('progress' as const),
      card: fc.nat(4),
      channel: fc.nat(2),
      dt: fc.nat(3000),
    }),
    fc.record({ kind: fc.constant('book' as const), card: fc.nat(4), channel: fc.nat(2), dt: fc.nat(3000) }),
    fc.record({ kind: fc.constant('cool' as const), retryAfterMs: fc.nat(8000), dt: fc.nat(3000) }),
    fc.record({ kind: fc.constant('close' as const), card: fc.nat(4), dt: fc.nat(3000) }),
  );

  it('no window ever sees more sends than capacity + refill × its length', () => {
    const small = resolveBudgetConfig({
      platform: 'test',
      ratePerMinute: 12,
      reserveFraction: 0.25,
      capacity: 5,
    });
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
        const sends = sendTimes(ops, small);
        for (let i = 0; i < sends.length; i++) {
          for (let j = i; j < sends.length; j++) {
            const allowed = small.capacity + small.refillPerMs * (sends[j]! - sends[i]!);
            expect(j - i + 1).toBeLessThanOrEqual(allowed + 1e-9);
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('queued writes (policy cards) yield to terminal frames', () => {
  const queue = (state: BudgetState, group: string, now: number, channel = 'c') =>
    bucket.bookQueued(state, config, { channel, group, now }).id;

  it('one per channel slot, the channel’s groups taking turns (one turn’s flood does not hold back another’s)', () => {
    const state = fresh(0);
    const a = [queue(state, 'turn-a', 0), queue(state, 'turn-a', 0), queue(state, 'turn-a', 0)];
    const b = [queue(state, 'turn-b', 0)];
    const served: number[] = [];
    for (let at = 0; at <= 4000; at += 1000) {
      const { funded } = bucket.serveQueued(state, config, at);
      expect(funded.length).toBeLessThanOrEqual(1);
      served.push(...funded);
    }
    expect(served).toEqual([a[0], b[0], a[1], a[2]]);
    expect(state.queuedCount).toBe(0);
    expect(bucket.nextQueuedAt(state, config)).toBeNull();
  });

  it('an answer booked behind a hundred queued cards goes at the next slot of its channel', () => {
    const state = fresh(0);
    for (let i = 0; i < 100; i++) queue(state, `turn-${i % 10}`, 0);
    expect(bucket.serveQueued(state, config, 0).funded).toHaveLength(1);
    const { booking } = bucket.bookTerminal(state, config, { cardId: 'answer', channel: 'c', now: 10 });
    // The card already out holds the channel for one spacing; the answer takes the next slot.
    expect(booking.fundedAt).toBe(config.channelSpacingMs);
    // No card goes in the slot the answer booked: the next one waits for the slot after it.
    expect(bucket.serveQueued(state, config, config.channelSpacingMs).funded).toEqual([]);
    expect(bucket.nextQueuedAt(state, config)).toBe(2 * config.channelSpacingMs);
  });

  it('a queued write never takes the bucket into debt: it waits while terminal frames are owed', () => {
    const state = drainWithProgress(fresh(0), 30, 0);
    for (let i = 0; i < 12; i++)
      bucket.bookTerminal(state, config, { cardId: `t${i}`, channel: `t${i}`, now: 0 });
    expect(state.tokens).toBeLessThan(0);
    queue(state, 'turn-a', 0, 'cards');
    expect(bucket.serveQueued(state, config, 0).funded).toEqual([]);
    const readyAt = bucket.nextQueuedAt(state, config)!;
    expect(readyAt).toBeGreaterThan(0);
    bucket.settleBookings(state, config, readyAt);
    expect(bucket.serveQueued(state, config, readyAt).funded).toHaveLength(1);
  });
});

describe('advisory writes (typing)', () => {
  it('take a spare token, and are refused (never queued) while anyone else waits or the bucket is at its reserve', () => {
    const state = fresh(0);
    expect(bucket.requestAdvisory(state, config, 0).granted).toBe(true);
    bucket.bookQueued(state, config, { channel: 'c', group: 'g', now: 0 });
    expect(bucket.requestAdvisory(state, config, 0).granted).toBe(false);
    // One token above the reserve: one advisory write, then none (the reserve is the terminal frames').
    const low = drainWithProgress(fresh(0), 29, 0);
    expect(bucket.requestAdvisory(low, config, 0).granted).toBe(true);
    expect(low.tokens).toBe(config.reserve);
    expect(bucket.requestAdvisory(low, config, 0).granted).toBe(false);
  });
});
