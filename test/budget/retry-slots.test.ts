/**
 * Issue 24 item 1 (fewer microsteps per event): cards waiting on a busy
 * channel are told to come back one spacing apart. Before, each was told to
 * come back when the channel freed, so all came back at once and all but
 * one were refused again: 10 first posts in one space cost 55 refusals (and
 * as many budget and turn transitions). Every card is still posted, one per
 * spacing, in the order they first asked.
 */
import { describe, expect, it } from 'vitest';
import { createBudgetState, requestProgress } from '../../src/budget/bucket.js';
import { resolveBudgetConfig } from '../../src/budget/config.js';

const SPACING = 1000;
const config = resolveBudgetConfig({ platform: 'gchat', ratePerMinute: 3000, channelSpacingMs: SPACING });

/** Cards that all ask at 0, each asking again when told; when each was granted, and refusals in all. */
function serve(cards: string[], channel: (card: string) => string) {
  const state = createBudgetState(config);
  const asks = cards.map((cardId) => ({ cardId, at: 0 }));
  const grantedAt = new Map<string, number>();
  let refusals = 0;
  while (asks.length > 0) {
    asks.sort((a, b) => a.at - b.at);
    const ask = asks.shift()!;
    const { decision } = requestProgress(state, config, {
      cardId: ask.cardId,
      channel: channel(ask.cardId),
      now: ask.at,
    });
    if (decision.granted) grantedAt.set(ask.cardId, ask.at);
    else if ('retryInMs' in decision) {
      refusals += 1;
      asks.push({ cardId: ask.cardId, at: ask.at + decision.retryInMs });
    } else throw new Error(`unexpected decision ${JSON.stringify(decision)}`);
  }
  return { grantedAt, refusals };
}

describe('budget retry slots on a busy channel (issue 24 item 1)', () => {
  const cards = Array.from({ length: 10 }, (_, i) => `card${i}`);

  it('ten cards asking at once in one channel: each refused once, granted one spacing apart, in order', () => {
    const { grantedAt, refusals } = serve(cards, () => 'space-A');
    expect(refusals).toBe(9);
    expect(cards.map((card) => grantedAt.get(card))).toEqual(cards.map((_, i) => i * SPACING));
  });

  it('channels do not share slots: two channels of five are each served from 0', () => {
    const { grantedAt, refusals } = serve(cards, (card) => (Number(card.slice(4)) % 2 === 0 ? 'A' : 'B'));
    expect(refusals).toBe(8);
    expect(Math.max(...grantedAt.values())).toBe(4 * SPACING);
  });
});
