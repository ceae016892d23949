// The registry of live cards and channel slots behind spec run-visibility 8's fair share and spacing.
import { createStore } from '@xstate/store';
import { describe, expect, it } from 'vitest';
import {
  applyRegistry,
  emptyRegistry,
  liveCardsIn,
  type RegistryEvent,
  registryStoreConfig,
} from '../../src/budget/registry.js';

const events: RegistryEvent[] = [
  { type: 'cardSeen', cardId: 'a', channel: 'x', at: 0 },
  { type: 'cardPainted', cardId: 'b', channel: 'x', at: 100 },
  { type: 'channelBooked', channel: 'x', nextFreeAt: 1100 },
  { type: 'channelBooked', channel: 'y', nextFreeAt: 400 },
  { type: 'cardSeen', cardId: 'c', channel: 'y', at: 50_000 },
  { type: 'silentCardsSwept', at: 60_050, liveWindowMs: 60_000 },
  { type: 'freeChannelsPruned', at: 500 },
  { type: 'cardClosed', cardId: 'c' },
];

describe('budget registry', () => {
  it('as a live @xstate/store it ends where the pure transitions end', () => {
    const store = createStore(registryStoreConfig);
    let registry = emptyRegistry();
    for (const event of events) {
      store.send(event);
      registry = applyRegistry(registry, event);
    }
    expect(store.getSnapshot().context).toEqual(registry);
    expect(registry).toEqual({
      cards: { b: { channel: 'x', seenAt: 100, paintedAt: 100 } },
      channels: { x: 1100 },
    });
  });

  it('sweeps a card silent for longer than the live window, and keeps one silent for exactly the window', () => {
    let registry = applyRegistry(emptyRegistry(), { type: 'cardSeen', cardId: 'a', channel: 'x', at: 0 });
    registry = applyRegistry(registry, { type: 'cardSeen', cardId: 'b', channel: 'x', at: 1 });
    const swept = applyRegistry(registry, { type: 'silentCardsSwept', at: 60_001, liveWindowMs: 60_000 });
    expect(Object.keys(swept.cards)).toEqual(['b']);
    expect(liveCardsIn(swept, 'x')).toBe(1);
  });

  it('keeps a card painted earlier painted when it is seen again, in its latest channel', () => {
    let registry = applyRegistry(emptyRegistry(), { type: 'cardPainted', cardId: 'a', channel: 'x', at: 10 });
    registry = applyRegistry(registry, { type: 'cardSeen', cardId: 'a', channel: 'y', at: 20 });
    expect(registry.cards.a).toEqual({ channel: 'y', seenAt: 20, paintedAt: 10 });
  });

  it('defers only the channel slots after the given time', () => {
    let registry = applyRegistry(emptyRegistry(), { type: 'channelBooked', channel: 'x', nextFreeAt: 900 });
    registry = applyRegistry(registry, { type: 'channelBooked', channel: 'y', nextFreeAt: 1500 });
    expect(applyRegistry(registry, { type: 'channelsDeferred', after: 1000, byMs: 5000 }).channels).toEqual({
      x: 900,
      y: 6500,
    });
  });

  it('never mutates the registry it is given', () => {
    const filled = events.slice(0, 4).reduce(applyRegistry, emptyRegistry());
    const frozen = structuredClone(filled);
    for (const value of [frozen, frozen.cards, frozen.channels, ...Object.values(frozen.cards)])
      Object.freeze(value);
    for (const event of events) applyRegistry(frozen, event);
    expect(frozen).toEqual(filled);
  });
});
