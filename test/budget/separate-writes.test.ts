// spec: issue 11 item 4 "the budget with Slack's limits: 50 chat.update a minute per app, with a reserve
// of 10 for terminal frames; 1 s between writes to one channel; every write goes through it" — Slack
// limits each method apart (chat.postMessage per channel, assistant.threads.setStatus and reactions.add
// each a Tier 3 bucket of their own), so a post, a status or a reaction never takes a chat.update token,
// and the chat.update bucket still never lets more than 50 through in any 60 s. Pure math, explicit times.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type Booking,
  type BudgetState,
  bookTerminal,
  createBudgetState,
  requestProgress,
  settleBookings,
  wakeLine,
} from '../../src/budget/bucket.js';
import { budgetDefaults, resolveBudgetConfig } from '../../src/budget/config.js';
import { builtinPlatforms } from '../../src/platforms/all.js';
import { maxEditsInWindow } from '../../src/testing/budget-driver.js';

const slack = resolveBudgetConfig(budgetDefaults('slack', builtinPlatforms));

const started = (now = 0): BudgetState => {
  const state = createBudgetState(slack);
  requestProgress(state, slack, { cardId: 'warm-up', channel: 'warm-up', now, write: 'status' });
  return state;
};

describe('Slack describes its methods apart (src/platforms/slack/descriptor.ts)', () => {
  it('posts only keep the channel spacing; setStatus and reactions have 50 a minute each, less the margin', () => {
    expect(slack.separate.post).toEqual({ allowance: null, windowMs: 60_000, spaced: true });
    expect(slack.separate.status).toEqual({ allowance: 45, windowMs: 60_000, spaced: false });
    expect(slack.separate.reaction).toEqual({ allowance: 45, windowMs: 60_000, spaced: false });
    expect(slack.separate.edit).toBeUndefined();
  });

  it('Google Chat and Discord count every write in the one bucket, as before', () => {
    expect(resolveBudgetConfig(budgetDefaults('gchat', builtinPlatforms)).separate).toEqual({});
    expect(resolveBudgetConfig(budgetDefaults('discord', builtinPlatforms)).separate).toEqual({});
  });

  it('a write kind that does not exist is refused by name', () => {
    expect(() =>
      resolveBudgetConfig({ platform: 'x', ratePerMinute: 50, separateWrites: { poke: {} } as never }),
    ).toThrow(/separateWrites\.poke is not a write kind/);
  });
});

describe('Slack: a post takes no chat.update token', () => {
  it('100 cards post at once in 100 channels: all granted, the update bucket untouched, the next edit granted', () => {
    const state = started();
    const full = state.tokens;
    for (let i = 0; i < 100; i++) {
      const { decision } = requestProgress(state, slack, {
        cardId: `c${i}`,
        channel: `C${i}`,
        now: 0,
        write: 'post',
      });
      expect(decision).toEqual({ granted: true });
    }
    expect(state.tokens).toBe(full);
    const edit = requestProgress(state, slack, { cardId: 'other', channel: 'C-other', now: 0 });
    expect(edit.decision).toEqual({ granted: true });
    expect(state.tokens).toBe(full - 1);
  });

  it('posts to one channel are spaced by the channel spacing (1 s and the margin)', () => {
    const state = started();
    const granted: number[] = [];
    for (let now = 0; now <= 10_000; now += 100) {
      const { decision } = requestProgress(state, slack, {
        cardId: `c${now}`,
        channel: 'C1',
        now,
        write: 'post',
      });
      if (decision.granted) granted.push(now);
      else expect('retryInMs' in decision && decision.reason).toBe('spacing');
    }
    expect(granted.length).toBeGreaterThan(5);
    for (let i = 1; i < granted.length; i++) {
      expect(granted[i]! - granted[i - 1]!).toBeGreaterThanOrEqual(slack.channelSpacingMs);
    }
  });

  it('an answer (a booked post) is funded when its channel is free, however deep the edits are in debt', () => {
    const state = started();
    for (let i = 0; i < 40; i++) {
      bookTerminal(state, slack, { cardId: `t${i}`, channel: `E${i}`, now: 0 });
    }
    expect(state.tokens).toBeLessThan(0);
    const debt = state.tokens;
    const { booking } = bookTerminal(state, slack, { cardId: 'answer', channel: 'A', now: 0, write: 'post' });
    expect(booking.fundedAt).toBe(0);
    expect(state.tokens).toBe(debt);
  });

  it('a status has its own 45 a minute: the 46th is refused until the first leaves the window', () => {
    const state = started(0);
    // started() already sent one status at 0.
    for (let i = 1; i < 45; i++) {
      const { decision } = requestProgress(state, slack, {
        cardId: `s${i}`,
        channel: 'C1',
        now: i * 10,
        write: 'status',
      });
      expect(decision).toEqual({ granted: true });
    }
    const over = requestProgress(state, slack, { cardId: 's45', channel: 'C1', now: 1000, write: 'status' });
    expect(over.decision).toEqual({ granted: false, reason: 'write-limit', retryInMs: 59_000 });
    const later = requestProgress(state, slack, {
      cardId: 's45',
      channel: 'C1',
      now: 60_000,
      write: 'status',
    });
    expect(later.decision).toEqual({ granted: true });
  });
});

type Kind = 'post' | 'edit' | 'terminal-edit' | 'answer' | 'status';

describe('Slack: under any mix of writes', () => {
  it('chat.update never exceeds 50 in any 60 s, writes to a channel stay ≥ 1 s apart, statuses ≤ 50 a minute', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            dt: fc.integer({ min: 0, max: 2500 }),
            card: fc.integer({ min: 0, max: 15 }),
            kind: fc.constantFrom<Kind>('post', 'edit', 'edit', 'edit', 'terminal-edit', 'answer', 'status'),
          }),
          { minLength: 20, maxLength: 300 },
        ),
        (steps) => {
          const state = createBudgetState(slack);
          const updates: number[] = [];
          const statuses: number[] = [];
          const byChannel = new Map<string, number[]>();
          const wrote = (channel: string, at: number) =>
            byChannel.set(channel, [...(byChannel.get(channel) ?? []), at]);
          const booked = new Map<number, { kind: Kind; channel: string }>();
          const channelOf = (card: number) => `C${card % 5}`;
          const serve = (at: number) => {
            for (const booking of settleBookings(state, slack, at).funded as Booking[]) {
              const what = booked.get(booking.id)!;
              if (what.kind === 'terminal-edit') updates.push(booking.fundedAt);
              wrote(what.channel, booking.fundedAt);
            }
            for (const answer of wakeLine(state, slack, at).answers) {
              if (answer.decision.granted) {
                updates.push(at);
                wrote(state.registry.cards[answer.cardId]!.channel, at);
              }
            }
          };
          let now = 0;
          for (const { dt, card, kind } of steps) {
            now += dt;
            serve(now);
            const cardId = `c${card}`;
            const channel = channelOf(card);
            if (kind === 'terminal-edit' || kind === 'answer') {
              const write = kind === 'answer' ? 'post' : 'edit';
              const { booking } = bookTerminal(state, slack, { cardId, channel, now, write });
              booked.set(booking.id, { kind, channel });
              continue;
            }
            const write = kind;
            const { decision } = requestProgress(state, slack, { cardId, channel, now, write });
            if (!decision.granted) continue;
            if (write === 'edit') updates.push(now);
            if (write === 'status') statuses.push(now);
            else wrote(channel, now);
          }
          for (let at = now; at <= now + 30 * 60_000; at += 500) serve(at);
          expect(maxEditsInWindow(updates, 60_000)).toBeLessThanOrEqual(50);
          expect(maxEditsInWindow(updates, 60_000)).toBeLessThanOrEqual(slack.allowance);
          expect(maxEditsInWindow(statuses, 60_000)).toBeLessThanOrEqual(45);
          for (const times of byChannel.values()) {
            const sorted = [...times].sort((a, b) => a - b);
            for (let i = 1; i < sorted.length; i++)
              expect(sorted[i]! - sorted[i - 1]!).toBeGreaterThanOrEqual(1000);
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});
