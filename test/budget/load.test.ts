// spec: run-visibility 8 "fifty cards on the budgeted client — zero refusals [from the platform], every
// card painted, every terminal frame landed": fifty cards at a 1 s edit cadence plus their terminal
// frames against the real budget actor on a SimulatedClock.
import { describe, expect, it } from 'vitest';
import { budgetDefaults } from '../../src/budget/config.js';
import { builtinPlatforms } from '../../src/platforms/all.js';
import { simulateBudgetLoad } from '../../src/testing/budget-load.js';

const fiftyCards = {
  cards: 50,
  channels: 10,
  cadenceMs: 1000,
  startStaggerMs: 600,
  // Two to nearly four minutes each, staggered, so terminal frames land among live cards' progress.
  lifetimeMs: (index: number) => 120_000 + ((index * 7) % 11) * 10_000,
};

describe('budget under load', () => {
  it('fifty cards on a 50/min Slack budget: no 60 s window above the limit, every card painted, every terminal funded', () => {
    const receipt = simulateBudgetLoad({ input: budgetDefaults('slack', builtinPlatforms), ...fiftyCards });
    expect(receipt.windowMs).toBe(60_000);
    // The platform's 50 less the default margin of a tenth.
    expect(receipt.allowance).toBe(45);
    expect(receipt.mostEditsInAWindow).toBeLessThanOrEqual(45);
    // The load is real: the cards ask far more often than the platform allows.
    expect(receipt.progressRequests).toBeGreaterThan(50 * 120);
    expect(receipt.progressRefused).toBeGreaterThan(receipt.progressGranted);
    expect(receipt.cardsPainted).toBe(50);
    expect(receipt.terminalsBooked).toBe(50);
    expect(receipt.terminalsFunded).toBe(50);
    expect(receipt.liveCardsAtEnd).toBe(0);
    expect(receipt.violations).toEqual([]);
  });

  it('five cards per channel on Google Chat: the channel spacing is the limit, and every card still paints', () => {
    // The channel spacing exactly at the platform's 60 a minute (no margin): the fairness of the spacing itself.
    const receipt = simulateBudgetLoad({
      input: { ...budgetDefaults('gchat', builtinPlatforms), marginFraction: 0 },
      ...fiftyCards,
    });
    expect(receipt.mostEditsInAWindow).toBeLessThanOrEqual(receipt.allowance);
    // Ten channels at one edit a second at most.
    expect(receipt.mostEditsInAWindow).toBeLessThanOrEqual(10 * 60);
    expect(receipt.cardsPainted).toBe(50);
    expect(receipt.terminalsFunded).toBe(50);
    expect(receipt.violations).toEqual([]);
  });
});
