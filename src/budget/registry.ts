/**
 * The budget's registry: which cards are live (for the fair share), when each
 * channel is next free (for the per-channel spacing), and the line of cards
 * waiting for a progress token (woken in order, docs/benchmarks.md explains why).
 *
 * Every operation costs O(1) or O(log n) in the number of live cards: counts
 * are kept rather than recounted, silent cards leave through a min-heap
 * ordered by when they fall silent, and the line is a FIFO with lazy removal.
 * So the registry is updated in place (a copy per request would cost O(n));
 * it stays plain JSON — records, numbers and arrays of tuples — so a snapshot
 * of the budget still serializes, and `structuredClone` gives an independent
 * copy where one is wanted (the model-based tests branch from one state).
 */

export interface LiveCard {
  /** The channel the card last asked to edit in. */
  channel: string;
  /** When the card last asked for a token. */
  seenAt: number;
  /** When the card last painted a progress frame; null before its first. */
  paintedAt: number | null;
  /** After this the card counts as silent: the later of its last ask and the time it was told to come back, plus the live window. */
  silentAfter: number;
  /** Its ticket while it waits in the line; null otherwise (a waiting card is never silent). */
  ticket: number | null;
  /** Tells this registration's heap entries from those of an earlier card with the same id. */
  generation: number;
  /** Whether the silence heap holds an entry for this registration. */
  inHeap: boolean;
}

export interface Registry {
  cards: Record<string, LiveCard>;
  liveCards: number;
  /** Channel → live cards whose latest channel it is. */
  cardsPerChannel: Record<string, number>;
  /** Channel → the earliest time its next edit may go out (only channels still busy, give or take). */
  channels: Record<string, number>;
  channelCount: number;
  /** `channelCount` after the last full prune: the next prune waits until the map doubles. */
  channelCountAtPrune: number;
  /** Min-heap of [silentAfter, cardId, generation]; an entry may be stale (checked when it surfaces). */
  silence: Array<[number, string, number]>;
  /** The cards waiting for a progress token, oldest first: [cardId, ticket] from `lineHead` on. */
  line: Array<[string, number]>;
  lineHead: number;
  /** Cards in the line (entries from `lineHead` on may be stale). */
  waiting: number;
  nextTicket: number;
  nextGeneration: number;
}

export const emptyRegistry = (): Registry => ({
  cards: {},
  liveCards: 0,
  cardsPerChannel: {},
  channels: {},
  channelCount: 0,
  channelCountAtPrune: 0,
  silence: [],
  line: [],
  lineHead: 0,
  waiting: 0,
  nextTicket: 1,
  nextGeneration: 1,
});

// ------------------------------------------------------------------ the silence heap

function heapPush(heap: Registry['silence'], entry: [number, string, number]): void {
  heap.push(entry);
  let i = heap.length - 1;
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if (heap[parent]![0] <= entry[0]) break;
    heap[i] = heap[parent]!;
    i = parent;
  }
  heap[i] = entry;
}

function heapPop(heap: Registry['silence']): [number, string, number] | undefined {
  const top = heap[0];
  const last = heap.pop();
  if (top === undefined || last === undefined || heap.length === 0) return top;
  let i = 0;
  for (;;) {
    const left = 2 * i + 1;
    if (left >= heap.length) break;
    const right = left + 1;
    const child = right < heap.length && heap[right]![0] < heap[left]![0] ? right : left;
    if (heap[child]![0] >= last[0]) break;
    heap[i] = heap[child]!;
    i = child;
  }
  heap[i] = last;
  return top;
}

function watchSilence(registry: Registry, cardId: string, card: LiveCard): void {
  if (card.inHeap || card.ticket !== null) return;
  card.inHeap = true;
  heapPush(registry.silence, [card.silentAfter, cardId, card.generation]);
}

// ------------------------------------------------------------------ cards

function moveChannel(registry: Registry, from: string | null, to: string): void {
  if (from === to) return;
  if (from !== null) {
    const left = (registry.cardsPerChannel[from] ?? 1) - 1;
    if (left > 0) registry.cardsPerChannel[from] = left;
    else delete registry.cardsPerChannel[from];
  }
  registry.cardsPerChannel[to] = (registry.cardsPerChannel[to] ?? 0) + 1;
}

/** The card asked for a token at `at`: it is live (registered on first sight), in `channel`. */
export function seeCard(
  registry: Registry,
  cardId: string,
  channel: string,
  at: number,
  liveWindowMs: number,
): LiveCard {
  const known = registry.cards[cardId];
  if (known) {
    moveChannel(registry, known.channel, channel);
    known.channel = channel;
    known.seenAt = at;
    known.silentAfter = Math.max(known.silentAfter, at + liveWindowMs);
    return known;
  }
  const card: LiveCard = {
    channel,
    seenAt: at,
    paintedAt: null,
    silentAfter: at + liveWindowMs,
    ticket: null,
    generation: registry.nextGeneration++,
    inHeap: false,
  };
  registry.cards[cardId] = card;
  registry.liveCards++;
  moveChannel(registry, null, channel);
  watchSilence(registry, cardId, card);
  return card;
}

/** The card was told to come back at `backAt`: it stays live until then, plus the live window. */
export function expectBack(registry: Registry, cardId: string, backAt: number, liveWindowMs: number): void {
  const card = registry.cards[cardId];
  if (card) card.silentAfter = Math.max(card.silentAfter, backAt + liveWindowMs);
}

export function paintCard(registry: Registry, cardId: string, at: number): void {
  const card = registry.cards[cardId];
  if (card) card.paintedAt = at;
}

/** The card is finished (or silent): it leaves the fair share and the line. */
export function removeCard(registry: Registry, cardId: string): void {
  const card = registry.cards[cardId];
  if (!card) return;
  if (card.ticket !== null) registry.waiting--;
  const left = (registry.cardsPerChannel[card.channel] ?? 1) - 1;
  if (left > 0) registry.cardsPerChannel[card.channel] = left;
  else delete registry.cardsPerChannel[card.channel];
  delete registry.cards[cardId];
  registry.liveCards--;
}

/**
 * Sweeps the cards silent past their live window at `at` (silent for longer
 * than the window: one silent for exactly the window stays). Only cards that
 * are due surface from the heap, so a sweep costs O(swept × log n).
 */
export function sweepSilent(registry: Registry, at: number): void {
  const heap = registry.silence;
  while (heap.length > 0 && heap[0]![0] < at) {
    const [, cardId, generation] = heapPop(heap)!;
    const card = registry.cards[cardId];
    if (!card || card.generation !== generation) continue;
    card.inHeap = false;
    // A waiting card is not silent; it is watched again when it leaves the line.
    if (card.ticket !== null) continue;
    if (card.silentAfter < at) removeCard(registry, cardId);
    else watchSilence(registry, cardId, card);
  }
}

/** How many cards share the progress rate. */
export function liveCardCount(registry: Registry): number {
  return registry.liveCards;
}

/** How many live cards share a channel's edit slots. */
export function liveCardsIn(registry: Registry, channel: string): number {
  return registry.cardsPerChannel[channel] ?? 0;
}

// ------------------------------------------------------------------ channels

/** When the channel's next edit may go out; `at` or earlier when it is free. */
export function channelFreeAt(registry: Registry, channel: string, at: number): number {
  const freeAt = registry.channels[channel];
  if (freeAt === undefined) return at;
  if (freeAt <= at) {
    // Free by now is the same as unknown: forget it so the map stays small.
    delete registry.channels[channel];
    registry.channelCount--;
    return at;
  }
  return freeAt;
}

export function bookChannel(registry: Registry, channel: string, nextFreeAt: number, at: number): void {
  if (registry.channels[channel] === undefined) registry.channelCount++;
  registry.channels[channel] = nextFreeAt;
  // Channels nobody asks about again are forgotten in a full pass once the map has doubled: O(1) amortized.
  if (registry.channelCount > 2 * registry.channelCountAtPrune + 64) {
    for (const [key, freeAt] of Object.entries(registry.channels)) {
      if (freeAt <= at) {
        delete registry.channels[key];
        registry.channelCount--;
      }
    }
    registry.channelCountAtPrune = registry.channelCount;
  }
}

/** A cool-off moves every booked channel slot after `after` later by `byMs` (rare: one pass is fine). */
export function deferChannels(registry: Registry, after: number, byMs: number): void {
  for (const [channel, freeAt] of Object.entries(registry.channels)) {
    if (freeAt > after) registry.channels[channel] = freeAt + byMs;
  }
}

// ------------------------------------------------------------------ the line

/** The card waits for a progress token; a card already waiting keeps its place. */
export function joinLine(registry: Registry, cardId: string): void {
  const card = registry.cards[cardId];
  if (!card || card.ticket !== null) return;
  card.ticket = registry.nextTicket++;
  registry.waiting++;
  registry.line.push([cardId, card.ticket]);
}

/** Takes the card out of the line (it was answered, or it stopped waiting). */
export function leaveLine(registry: Registry, cardId: string): void {
  const card = registry.cards[cardId];
  if (!card || card.ticket === null) return;
  card.ticket = null;
  registry.waiting--;
  watchSilence(registry, cardId, card);
}

export function isWaiting(registry: Registry, cardId: string): boolean {
  return registry.cards[cardId]?.ticket != null;
}

/** The card at the head of the line (it stays in the line until `leaveLine`); undefined when none waits. */
export function lineHead(registry: Registry): string | undefined {
  const { line } = registry;
  while (registry.lineHead < line.length) {
    const [cardId, ticket] = line[registry.lineHead]!;
    if (registry.cards[cardId]?.ticket === ticket) return cardId;
    registry.lineHead++;
  }
  // Empty: drop the served prefix in one go.
  line.length = 0;
  registry.lineHead = 0;
  return undefined;
}

/** Drops the served prefix of the line once it is most of the array: O(1) amortized. */
export function compactLine(registry: Registry): void {
  if (registry.lineHead > 1024 && registry.lineHead * 2 > registry.line.length) {
    registry.line.splice(0, registry.lineHead);
    registry.lineHead = 0;
  }
}
