/**
 * The budget as it was before it stopped polling (a refused card asked again
 * after the shortest wait, and every request copied and scanned every card),
 * kept only so `npm run bench -- budget` can run it side by side.
 */
/**
 * The budget's registry: which cards are live (for the fair share) and when
 * each channel is next free (for the per-channel spacing).
 *
 * It is an @xstate/store rather than a machine because it has no modes, only
 * bookkeeping: every event applies in every situation, so a machine would add
 * states nobody transitions through. The bucket math applies its events
 * through the store's own pure transition (`store.transition`), so the
 * registry stays plain JSON inside the budget machine's context (one
 * snapshot, persistable, traversable by the model-based tests), while
 * `createStore(registryStoreConfig)` gives the same registry as a live,
 * subscribable store where one is wanted.
 */
import { createStore, createStoreConfig } from '@xstate/store';

export interface LiveCard {
  /** The channel the card last asked to edit in. */
  channel: string;
  /** When the card last asked for a token: a card silent past the live window is swept. */
  seenAt: number;
  /** When the card last painted a progress frame; null before its first. */
  paintedAt: number | null;
}

export interface Registry {
  cards: Record<string, LiveCard>;
  /** Channel → the earliest time its next edit may go out. */
  channels: Record<string, number>;
}

export const emptyRegistry = (): Registry => ({ cards: {}, channels: {} });

/** The record without the entries `drop` picks; the same record when it picks none (most requests). */
function withoutKeys<T>(
  record: Record<string, T>,
  drop: (key: string, value: T) => boolean,
): Record<string, T> {
  const entries = Object.entries(record);
  const kept = entries.filter(([key, value]) => !drop(key, value));
  return kept.length === entries.length ? record : Object.fromEntries(kept);
}

export const registryStoreConfig = createStoreConfig({
  context: emptyRegistry(),
  on: {
    /** The card asked for a token: it is live (registered on first sight). */
    cardSeen: (registry, event: { cardId: string; channel: string; at: number }): Registry => ({
      ...registry,
      cards: {
        ...registry.cards,
        [event.cardId]: {
          channel: event.channel,
          seenAt: event.at,
          paintedAt: registry.cards[event.cardId]?.paintedAt ?? null,
        },
      },
    }),
    cardPainted: (registry, event: { cardId: string; channel: string; at: number }): Registry => ({
      ...registry,
      cards: {
        ...registry.cards,
        [event.cardId]: { channel: event.channel, seenAt: event.at, paintedAt: event.at },
      },
    }),
    cardClosed: (registry, event: { cardId: string }): Registry => ({
      ...registry,
      cards: withoutKeys(registry.cards, (cardId) => cardId === event.cardId),
    }),
    /** Cards silent for longer than the live window belong to turns that ended without closing. */
    silentCardsSwept: (registry, event: { at: number; liveWindowMs: number }): Registry => {
      const cards = withoutKeys(registry.cards, (_, card) => event.at - card.seenAt > event.liveWindowMs);
      return cards === registry.cards ? registry : { ...registry, cards };
    },
    channelBooked: (registry, event: { channel: string; nextFreeAt: number }): Registry => ({
      ...registry,
      channels: { ...registry.channels, [event.channel]: event.nextFreeAt },
    }),
    /** A channel free by now is the same as an unknown one: drop it so the map stays small. */
    freeChannelsPruned: (registry, event: { at: number }): Registry => {
      const channels = withoutKeys(registry.channels, (_, nextFreeAt) => nextFreeAt <= event.at);
      return channels === registry.channels ? registry : { ...registry, channels };
    },
    /** A cool-off moves every booked channel slot after `at` later by `byMs`. */
    channelsDeferred: (registry, event: { after: number; byMs: number }): Registry => ({
      ...registry,
      channels: Object.fromEntries(
        Object.entries(registry.channels).map(([channel, nextFreeAt]) => [
          channel,
          nextFreeAt > event.after ? nextFreeAt + event.byMs : nextFreeAt,
        ]),
      ),
    }),
  },
});

/** Only its pure `transition` is used: nothing is ever sent to this instance, so it holds no state. */
const registryReducer = createStore(registryStoreConfig);

export type RegistryEvent = Parameters<typeof registryReducer.send>[0];

/** Applies one registry event purely: the input is never mutated. */
export function applyRegistry(registry: Registry, event: RegistryEvent): Registry {
  const [next] = registryReducer.transition({ ...registryReducer.getSnapshot(), context: registry }, event);
  return next.context;
}

/** How many cards share the progress rate. */
export function liveCardCount(registry: Registry): number {
  return Object.keys(registry.cards).length;
}

/** How many live cards share a channel's edit slots. */
export function liveCardsIn(registry: Registry, channel: string): number {
  return Object.values(registry.cards).filter((card) => card.channel === channel).length;
}
