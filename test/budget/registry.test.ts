// The registry of live cards, channel slots and the line behind spec run-visibility 8's fair share,
// spacing and reserve: kept as counts, a heap and a FIFO so no request scans or copies every card.
import { describe, expect, it } from 'vitest';
import {
  bookChannel,
  channelFreeAt,
  deferChannels,
  emptyRegistry,
  expectBack,
  joinLine,
  leaveLine,
  lineHead,
  liveCardCount,
  liveCardsIn,
  removeCard,
  seeCard,
  sweepSilent,
} from '../../src/budget/registry.js';

const WINDOW = 60_000;

describe('budget registry', () => {
  it('counts live cards, per channel too, as cards arrive, move and leave', () => {
    const registry = emptyRegistry();
    seeCard(registry, 'a', 'x', 0, WINDOW);
    seeCard(registry, 'b', 'x', 0, WINDOW);
    seeCard(registry, 'c', 'y', 0, WINDOW);
    expect([liveCardCount(registry), liveCardsIn(registry, 'x'), liveCardsIn(registry, 'y')]).toEqual([
      3, 2, 1,
    ]);
    seeCard(registry, 'b', 'y', 10, WINDOW);
    expect([liveCardsIn(registry, 'x'), liveCardsIn(registry, 'y')]).toEqual([1, 2]);
    removeCard(registry, 'a');
    removeCard(registry, 'a');
    expect([liveCardCount(registry), liveCardsIn(registry, 'x')]).toEqual([2, 0]);
    expect(registry.cardsPerChannel).toEqual({ y: 2 });
  });

  it('sweeps a card silent for longer than the live window, and keeps one silent for exactly the window', () => {
    const registry = emptyRegistry();
    seeCard(registry, 'a', 'x', 0, WINDOW);
    seeCard(registry, 'b', 'x', 1, WINDOW);
    sweepSilent(registry, 60_001);
    expect(Object.keys(registry.cards)).toEqual(['b']);
    expect(liveCardsIn(registry, 'x')).toBe(1);
  });

  it('a card seen again, or told to come back later, stays live until its latest time plus the window', () => {
    const registry = emptyRegistry();
    seeCard(registry, 'seen-again', 'x', 0, WINDOW);
    seeCard(registry, 'told-later', 'y', 0, WINDOW);
    seeCard(registry, 'seen-again', 'x', 30_000, WINDOW);
    expectBack(registry, 'told-later', 50_000, WINDOW);
    sweepSilent(registry, 89_000);
    expect(Object.keys(registry.cards).sort()).toEqual(['seen-again', 'told-later']);
    sweepSilent(registry, 90_001);
    expect(Object.keys(registry.cards)).toEqual(['told-later']);
    sweepSilent(registry, 110_001);
    expect(registry.liveCards).toBe(0);
    // Every heap entry was answered: nothing stale is left behind.
    expect(registry.silence).toEqual([]);
  });

  it('a card waiting in the line is never swept; it is watched again once it leaves', () => {
    const registry = emptyRegistry();
    seeCard(registry, 'a', 'x', 0, WINDOW);
    joinLine(registry, 'a');
    sweepSilent(registry, 500_000);
    expect(liveCardCount(registry)).toBe(1);
    leaveLine(registry, 'a');
    sweepSilent(registry, 500_001);
    expect(liveCardCount(registry)).toBe(0);
  });

  it('a card closed and seen again under the same id is a new card, not swept by its old entry', () => {
    const registry = emptyRegistry();
    seeCard(registry, 'a', 'x', 0, WINDOW);
    removeCard(registry, 'a');
    seeCard(registry, 'a', 'x', 50_000, WINDOW);
    sweepSilent(registry, 60_001);
    expect(registry.cards.a?.seenAt).toBe(50_000);
  });

  it('keeps a card painted earlier painted when it is seen again, in its latest channel', () => {
    const registry = emptyRegistry();
    seeCard(registry, 'a', 'x', 10, WINDOW);
    registry.cards.a!.paintedAt = 10;
    seeCard(registry, 'a', 'y', 20, WINDOW);
    expect(registry.cards.a).toMatchObject({ channel: 'y', seenAt: 20, paintedAt: 10 });
  });

  it('the line is first come, first served; a card keeps its place when it asks again, and leaves when answered', () => {
    const registry = emptyRegistry();
    for (const cardId of ['a', 'b', 'c']) {
      seeCard(registry, cardId, cardId, 0, WINDOW);
      joinLine(registry, cardId);
    }
    joinLine(registry, 'a');
    expect(registry.waiting).toBe(3);
    leaveLine(registry, 'b');
    expect(lineHead(registry)).toBe('a');
    leaveLine(registry, 'a');
    expect(lineHead(registry)).toBe('c');
    // b joins again: behind c, not in its old place.
    joinLine(registry, 'b');
    leaveLine(registry, 'c');
    expect(lineHead(registry)).toBe('b');
    removeCard(registry, 'b');
    expect(lineHead(registry)).toBeUndefined();
    expect(registry.waiting).toBe(0);
    expect(registry.line).toEqual([]);
  });

  it('a free channel is forgotten when asked about; deferring moves only the slots after the given time', () => {
    const registry = emptyRegistry();
    bookChannel(registry, 'x', 900, 0);
    bookChannel(registry, 'y', 1500, 0);
    deferChannels(registry, 1000, 5000);
    expect(registry.channels).toEqual({ x: 900, y: 6500 });
    expect(channelFreeAt(registry, 'x', 1000)).toBe(1000);
    expect(channelFreeAt(registry, 'y', 1000)).toBe(6500);
    expect(registry.channels).toEqual({ y: 6500 });
    expect(registry.channelCount).toBe(1);
  });

  it('channels nobody asks about again are pruned once the map doubles, so it stays bounded', () => {
    const registry = emptyRegistry();
    for (let i = 0; i < 10_000; i++) bookChannel(registry, `c${i}`, i + 1000, i);
    // Only channels still busy (free after the last booking's time) remain, give or take one doubling.
    expect(registry.channelCount).toBeLessThan(2 * 1000 + 64 + 1);
    expect(Object.keys(registry.channels)).toHaveLength(registry.channelCount);
  });
});
