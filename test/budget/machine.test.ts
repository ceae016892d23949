// spec: run-visibility 8 (the process-wide edit budget) — the budget actor, on a SimulatedClock:
// every transition of machines/budget.machine.ts, with a recorder standing in for each turn.

import { describe, expect, it, vi } from 'vitest';
import { createActor, fromCallback, SimulatedClock } from 'xstate';
import { budgetMachine } from '../../machines/budget.machine.js';
import type { BudgetReplyEvent } from '../../machines/budget.protocol.js';
import type { BudgetInput } from '../../src/budget/config.js';
import { createBudgetImplementations } from '../../src/budget/implementations.js';
import { createBudgetDriver } from '../../src/testing/budget-driver.js';

// Allowance 100 a minute, capacity 40, reserve 10: one token a second refills.
const input: BudgetInput = { platform: 'test', ratePerMinute: 100, reserveFraction: 0.1, capacity: 40 };

const repliesOf = (driver: ReturnType<typeof createBudgetDriver>, cardId: string) =>
  driver.trace.filter(
    (entry) =>
      'cardId' in entry && entry.cardId === cardId && !['progress', 'book', 'closed'].includes(entry.kind),
  );

/** Spends the whole bucket on terminal frames funded at once, each in its own channel. */
function emptyBucket(driver: ReturnType<typeof createBudgetDriver>): void {
  for (let i = 0; i < 40; i++) driver.book(`drain-${i}`, `drain-channel-${i}`);
  expect(driver.actor.getSnapshot().context.budget.tokens).toBe(0);
}

describe('budget machine', () => {
  it('answers progress requests at once: granted, or refused with when to ask again and why', () => {
    const clock = new SimulatedClock();
    const replies: Array<{ at: number; reply: BudgetReplyEvent }> = [];
    const turn = createActor(
      fromCallback<BudgetReplyEvent>(({ receive }) =>
        receive((reply) => replies.push({ at: clock.now(), reply })),
      ),
    ).start();
    const budget = createActor(
      budgetMachine.provide(createBudgetImplementations({ now: () => clock.now() })),
      {
        clock,
        input,
      },
    ).start();
    budget.send({ type: 'budget.progress.request', cardId: 'a', channel: 'x', replyTo: turn });
    clock.increment(400);
    budget.send({ type: 'budget.progress.request', cardId: 'b', channel: 'x', replyTo: turn });
    expect(replies).toEqual([
      { at: 0, reply: { type: 'budget.granted' } },
      { at: 400, reply: { type: 'budget.refused', retryInMs: 600, reason: 'spacing' } },
    ]);
    expect(budget.getSnapshot().value).toEqual({ rate: 'open', serving: 'idle' });
  });

  it('funds a terminal frame at once when a token is free and the channel clear; funding stays idle', () => {
    const driver = createBudgetDriver(input);
    driver.book('a', 'x');
    expect(repliesOf(driver, 'a')).toEqual([{ kind: 'funded', at: 0, cardId: 'a' }]);
    expect(driver.actor.getSnapshot().value).toEqual({ rate: 'open', serving: 'idle' });
  });

  it('books an unfundable terminal frame and answers budget.funded exactly when it is funded', () => {
    const driver = createBudgetDriver(input);
    emptyBucket(driver);
    driver.book('a', 'x');
    expect(driver.actor.getSnapshot().value).toEqual({ rate: 'open', serving: 'waiting' });
    driver.advance(999);
    expect(repliesOf(driver, 'a')).toEqual([]);
    driver.advance(1);
    expect(repliesOf(driver, 'a')).toEqual([{ kind: 'funded', at: 1000, cardId: 'a' }]);
    expect(driver.actor.getSnapshot().value).toEqual({ rate: 'open', serving: 'idle' });
  });

  it('a terminal booking waiting for its channel holds back no other channel (issue 24 item 2)', () => {
    const driver = createBudgetDriver(input);
    driver.progress('a', 'x');
    driver.book('b', 'x');
    driver.advance(100);
    driver.progress('c', 'y');
    expect(repliesOf(driver, 'c')).toEqual([{ kind: 'granted', at: 100, cardId: 'c' }]);
    expect(driver.actor.getSnapshot().value).toEqual({ rate: 'open', serving: 'waiting' });
    driver.advance(900);
    expect(repliesOf(driver, 'b')).toEqual([{ kind: 'funded', at: 1000, cardId: 'b' }]);
    expect(driver.actor.getSnapshot().value).toEqual({ rate: 'open', serving: 'idle' });
  });

  it('while the bucket is in debt for a terminal booking a progress request waits in the line, and is woken after it', () => {
    const driver = createBudgetDriver(input);
    emptyBucket(driver);
    driver.book('b', 'x');
    driver.advance(100);
    driver.progress('c', 'y');
    expect(repliesOf(driver, 'c')).toEqual([]);
    expect(driver.actor.getSnapshot().value).toEqual({ rate: 'open', serving: 'waiting' });
    driver.advance(900);
    expect(repliesOf(driver, 'b')).toEqual([{ kind: 'funded', at: 1000, cardId: 'b' }]);
    expect(repliesOf(driver, 'c')).toEqual([]);
    driver.settle();
    // Woken without asking again, once the reserve is back: one request, one answer.
    expect(repliesOf(driver, 'c')).toEqual([{ kind: 'granted', at: 12_000, cardId: 'c' }]);
    expect(driver.actor.getSnapshot().value).toEqual({ rate: 'open', serving: 'idle' });
  });

  it('a card joining the line is woken when the line can move, not at a later booking waiting on its channel (issue 24 item 2)', () => {
    const driver = createBudgetDriver({ ...input, channelSpacingMs: 20_000 });
    // Thirty progress frames in thirty channels leave the reserve of 10; b's terminal frame waits 20 s for x.
    driver.progress('a', 'x');
    for (let i = 1; i < 30; i++) driver.progress(`drain-${i}`, `drain-channel-${i}`);
    driver.book('a', 'x');
    driver.progress('c', 'y');
    expect(repliesOf(driver, 'c')).toEqual([]);
    expect(driver.nextTimerAt()).toBe(2000);
    driver.advance(2000);
    expect(repliesOf(driver, 'c')).toEqual([{ kind: 'granted', at: 2000, cardId: 'c' }]);
    expect(repliesOf(driver, 'a').filter((reply) => reply.kind === 'funded')).toEqual([]);
    driver.settle();
    expect(repliesOf(driver, 'a').filter((reply) => reply.kind === 'funded')).toEqual([
      { kind: 'funded', at: 20_000, cardId: 'a' },
    ]);
  });

  it('nobody polls: cards that find the bucket at its reserve each get one answer, in order, a token apart', () => {
    const driver = createBudgetDriver(input);
    // Thirty progress frames leave the reserve of 10.
    for (let i = 0; i < 30; i++) driver.progress(`drain-${i}`, `drain-channel-${i}`);
    for (let i = 0; i < 50; i++) driver.progress(`card-${i}`, `channel-${i}`);
    // A card that asks again while it waits keeps its place and is answered once.
    driver.advance(500);
    driver.progress('card-0', 'channel-0');
    driver.settle();
    const answers = driver.trace.filter(
      (entry) => (entry.kind === 'granted' || entry.kind === 'refused') && entry.cardId.startsWith('card-'),
    );
    expect(answers.map((entry) => [entry.kind, entry.at, entry.kind === 'granted' && entry.cardId])).toEqual(
      Array.from({ length: 50 }, (_, i) => ['granted', (i + 1) * 1000, `card-${i}`]),
    );
    expect(driver.transitionsTaken).toContain(
      'budget.serving.waiting xstate.after.nextDue.budget.serving.waiting → budget.serving.waiting',
    );
  });

  it('a card whose turn ends (its terminal booking) or that closes leaves the line and is never woken', () => {
    const driver = createBudgetDriver(input);
    for (let i = 0; i < 30; i++) driver.progress(`drain-${i}`, `drain-channel-${i}`);
    driver.progress('ending', 'x');
    driver.progress('closing', 'y');
    driver.progress('staying', 'z');
    driver.book('ending', 'x');
    driver.close('closing');
    driver.settle();
    expect(repliesOf(driver, 'ending')).toEqual([{ kind: 'funded', at: 0, cardId: 'ending' }]);
    expect(repliesOf(driver, 'closing')).toEqual([]);
    // The booking took a reserve token: the line's first token is there at 2 s.
    expect(repliesOf(driver, 'staying')).toEqual([{ kind: 'granted', at: 2000, cardId: 'staying' }]);
    expect(driver.actor.getSnapshot().context.lineReplyTo).toEqual({});
  });

  it('answers several waiting bookings one by one, each at its own funding time', () => {
    const driver = createBudgetDriver(input);
    emptyBucket(driver);
    driver.book('x-1', 'x'); // token at 1 s
    driver.book('x-2', 'x'); // token at 2 s, x free at 2 s
    driver.book('y', 'y'); // token at 3 s
    expect(driver.nextTimerAt()).toBe(1000);
    driver.settle();
    const funded = driver.trace.filter(
      (entry) => entry.kind === 'funded' && !entry.cardId.startsWith('drain'),
    );
    expect(funded.map((entry) => [entry.kind === 'funded' && entry.cardId, entry.at])).toEqual([
      ['x-1', 1000],
      ['x-2', 2000],
      ['y', 3000],
    ]);
    expect(driver.transitionsTaken).toContain(
      'budget.serving.waiting xstate.after.nextDue.budget.serving.waiting → budget.serving.waiting',
    );
  });

  it('re-enters waiting on every booking, so a later booking funded earlier moves the timer forward', () => {
    // Channels 5 s apart, one token a second: a channel can hold a frame back longer than the bucket.
    const driver = createBudgetDriver({ ...input, channelSpacingMs: 5000 });
    emptyBucket(driver);
    driver.book('first', 'x'); // token at 1 s; x then booked until 6 s
    driver.book('held', 'x'); // token at 2 s, but x is free only at 6 s
    driver.advance(1000);
    expect(driver.nextTimerAt()).toBe(6000);
    driver.book('clear', 'y'); // token at 3 s, y clear: funded before 'held'
    expect(driver.nextTimerAt()).toBe(3000);
    expect(driver.transitionsTaken).toContain(
      'budget.serving.waiting budget.terminal.book → budget.serving.waiting',
    );
    driver.settle();
    const funded = driver.trace.filter(
      (entry) => entry.kind === 'funded' && !entry.cardId.startsWith('drain'),
    );
    expect(funded.map((entry) => [entry.kind === 'funded' && entry.cardId, entry.at])).toEqual([
      ['first', 1000],
      ['clear', 3000],
      ['held', 6000],
    ]);
  });

  it('a 429 cools off: progress refused as cool-off, bookings funded after it, back to open when it ends', () => {
    const driver = createBudgetDriver(input);
    driver.rateLimited(5000);
    expect(driver.actor.getSnapshot().value).toEqual({ rate: 'coolingOff', serving: 'idle' });
    driver.advance(1000);
    driver.progress('a', 'x');
    driver.book('b', 'y');
    expect(repliesOf(driver, 'a')).toEqual([
      { kind: 'refused', at: 1000, cardId: 'a', retryInMs: 4000, reason: 'cool-off' },
    ]);
    expect(driver.actor.getSnapshot().value).toEqual({ rate: 'coolingOff', serving: 'waiting' });
    driver.advance(3999);
    expect(repliesOf(driver, 'b')).toEqual([]);
    expect(driver.actor.getSnapshot().value).toEqual({ rate: 'coolingOff', serving: 'waiting' });
    driver.advance(1);
    expect(repliesOf(driver, 'b')).toEqual([{ kind: 'funded', at: 5000, cardId: 'b' }]);
    expect(driver.actor.getSnapshot().value).toEqual({ rate: 'open', serving: 'idle' });
    driver.progress('a', 'x');
    expect(repliesOf(driver, 'a').at(-1)).toEqual({ kind: 'granted', at: 5000, cardId: 'a' });
  });

  it('another 429 while cooling off re-enters coolingOff and extends the wait', () => {
    const driver = createBudgetDriver(input);
    driver.rateLimited(2000);
    driver.advance(1000);
    driver.rateLimited(3000);
    driver.advance(2999);
    expect(driver.actor.getSnapshot().value).toMatchObject({ rate: 'coolingOff' });
    driver.advance(1);
    expect(driver.actor.getSnapshot().value).toMatchObject({ rate: 'open' });
    expect(driver.transitionsTaken).toContain(
      'budget.rate.coolingOff budget.rate-limited → budget.rate.coolingOff',
    );
  });

  it('a 429 while a booking waits moves it after the cool-off and re-arms the funding timer', () => {
    const driver = createBudgetDriver(input);
    driver.progress('a', 'x');
    driver.book('b', 'x');
    driver.rateLimited(5000);
    expect(driver.nextTimerAt()).toBe(5000);
    driver.settle();
    expect(repliesOf(driver, 'b')).toEqual([{ kind: 'funded', at: 6000, cardId: 'b' }]);
  });

  it('budget.card.closed takes the card out of the fair share', () => {
    const driver = createBudgetDriver(input);
    driver.progress('a', 'x');
    driver.progress('b', 'y');
    driver.advance(1500);
    driver.progress('a', 'x');
    expect(repliesOf(driver, 'a').at(-1)).toMatchObject({ kind: 'refused', reason: 'fair-share' });
    driver.close('b');
    driver.progress('a', 'x');
    expect(repliesOf(driver, 'a').at(-1)).toEqual({ kind: 'granted', at: 1500, cardId: 'a' });
    expect(Object.keys(driver.actor.getSnapshot().context.budget.registry.cards)).toEqual(['a']);
  });

  it('without createBudgetImplementations it fails with an error that says what to provide', async () => {
    const turn = createActor(fromCallback(() => {})).start();
    const budget = createActor(budgetMachine, { input });
    const errors: unknown[] = [];
    budget.subscribe({ error: (error) => errors.push(error) });
    budget.start();
    budget.send({ type: 'budget.progress.request', cardId: 'a', channel: 'x', replyTo: turn });
    await vi.waitFor(() => expect(errors).toHaveLength(1), { timeout: 5000 });
    expect(String(errors[0])).toMatch(/answerProgress.*createBudgetImplementations/);
  });

  it('refuses bad input with an error that names the field', () => {
    const errors: unknown[] = [];
    const budget = createActor(budgetMachine, { input: { ...input, ratePerMinute: -1 } });
    budget.subscribe({ error: (error) => errors.push(error) });
    budget.start();
    expect(String(errors[0])).toMatch(/ratePerMinute must be a positive number, got -1/);
  });
});
