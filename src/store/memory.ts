/**
 * The in-memory store: the default for tests and for `createRuntime` without
 * a store. Bounded where a long-running process would otherwise grow: finished
 * turn summaries, anchors per space, dead letters and the run record are
 * capped (oldest dropped first).
 */
import type { RunEvent } from '../events/schema.js';
import type { PostedMessage } from '../surfaces/surface.js';
import { createMemoryOutbox } from './outbox-memory.js';
import { createMemoryRunTokens } from './run-tokens-memory.js';
import type {
  CardRecord,
  DeadLetterRecord,
  PendingAnswerPart,
  PersistedStrayLog,
  PersistedTurn,
  StoredAnchor,
  StoredCard,
  StoredSpaceSettings,
  TurnlogStore,
  TurnSummary,
} from './store.js';

export interface MemoryStoreLimits {
  summaries: number;
  anchorsPerSpace: number;
  deadLetters: number;
  eventsPerTurn: number;
  /** Run records kept; the least recently appended go first, a live turn's never. */
  turnsWithEvents: number;
  posts: number;
  /** Cards (messages with buttons) kept for their clicks; the oldest registered go first. */
  cards: number;
}

export const MEMORY_STORE_LIMITS: MemoryStoreLimits = {
  summaries: 10_000,
  anchorsPerSpace: 200,
  deadLetters: 10_000,
  eventsPerTurn: 10_000,
  turnsWithEvents: 1_000,
  posts: 100_000,
  cards: 100_000,
};

/** A Map that forgets its oldest keys past a size (insertion order). */
function setBounded<K, V>(map: Map<K, V>, key: K, value: V, max: number): void {
  map.delete(key);
  map.set(key, value);
  while (map.size > max) {
    const oldest = map.keys().next();
    if (oldest.done) break;
    map.delete(oldest.value);
  }
}

export function createMemoryStore(limits: Partial<MemoryStoreLimits> = {}): TurnlogStore {
  const max = { ...MEMORY_STORE_LIMITS, ...limits };
  const live = new Map<string, PersistedTurn>();
  /** One per space at most, and only while its log is live (the runtime forgets it when it goes quiet). */
  const strayLogs = new Map<string, PersistedStrayLog>();
  /** Answer parts not delivered yet, by `<space> <key> <part>`, in the order saved. */
  const answerParts = new Map<string, PendingAnswerPart>();
  const partKey = (space: string, key: string, part: number) => `${space}\u0000${key}\u0000${part}`;
  const summaries = new Map<string, TurnSummary>();
  const anchors = new Map<string, StoredAnchor[]>();
  const events = new Map<string, RunEvent[]>();
  const dead: DeadLetterRecord[] = [];
  const posts = new Map<string, PostedMessage>();
  const settings = new Map<string, StoredSpaceSettings>();
  /** Cards by `<space> <messageId>` (a message id is unique within its space only). */
  const cards = new Map<string, StoredCard>();
  const cardKey = (space: string, messageId: string) => `${space} ${messageId}`;

  return {
    saveTurn: (turn) => void live.set(turn.turnId, turn),
    loadTurn: (turnId) => live.get(turnId),
    liveTurns: () => [...live.values()],
    finishTurn: (summary) => {
      live.delete(summary.turnId);
      setBounded(summaries, summary.turnId, summary, max.summaries);
    },
    turnSummary: (turnId) => summaries.get(turnId),
    saveStrayLog: (log) => void strayLogs.set(log.space, log),
    forgetStrayLog: (space) => void strayLogs.delete(space),
    strayLogs: () => [...strayLogs.values()],
    saveAnswerParts: (parts) => {
      for (const part of parts)
        answerParts.set(partKey(part.space, part.key, part.part), structuredClone(part));
    },
    forgetAnswerPart: (space, key, part) => void answerParts.delete(partKey(space, key, part)),
    pendingAnswerParts: () => [...answerParts.values()].map((part) => structuredClone(part)),
    saveAnchor: (space, anchor) => {
      const list = anchors.get(space) ?? [];
      list.push(anchor);
      if (list.length > max.anchorsPerSpace) list.splice(0, list.length - max.anchorsPerSpace);
      anchors.set(space, list);
    },
    anchors: (space, limit) => (anchors.get(space) ?? []).slice(-limit),
    appendEvent: (event) => {
      const key = event.turnId ?? `space:${event.space}`;
      const list = events.get(key) ?? [];
      list.push(event);
      if (list.length > max.eventsPerTurn) list.splice(0, list.length - max.eventsPerTurn);
      events.delete(key);
      events.set(key, list);
      // The least recently appended records go first; a live turn's never (its seq resumes from it).
      if (events.size > max.turnsWithEvents) {
        for (const oldest of events.keys()) {
          if (events.size <= max.turnsWithEvents) break;
          if (!live.has(oldest)) events.delete(oldest);
        }
      }
    },
    events: (turnId) => [...(events.get(turnId) ?? [])],
    deadLetter: (record) => {
      dead.push(record);
      if (dead.length > max.deadLetters) dead.splice(0, dead.length - max.deadLetters);
    },
    deadLetters: (limit = max.deadLetters) => dead.slice(-limit),
    recordPost: (clientId, message) => setBounded(posts, clientId, message, max.posts),
    lookupPost: (clientId) => posts.get(clientId),
    saveSpaceSettings: (space, saved) => {
      if (Object.keys(saved).length === 0) settings.delete(space);
      else settings.set(space, { ...saved });
    },
    spaceSettings: () => Object.fromEntries([...settings].map(([space, saved]) => [space, { ...saved }])),
    ...createMemoryOutbox(),
    ...createMemoryRunTokens({ summaries, events }),
    registerCard: (record: CardRecord) => {
      const key = cardKey(record.space, record.messageId);
      const claim = cards.get(key)?.claim;
      // Insertion order is registration order: a card registered again keeps its place.
      if (cards.has(key)) cards.set(key, { ...record, ...(claim ? { claim } : {}) });
      else setBounded(cards, key, { ...record }, max.cards);
    },
    card: (space, messageId) => {
      const card = cards.get(cardKey(space, messageId));
      return card ? { ...card } : undefined;
    },
    openCards: (turnId) =>
      [...cards.values()].filter((c) => c.turnId === turnId && !c.claim).map((c) => ({ ...c })),
    claimCard: (space, messageId, claim) => {
      const card = cards.get(cardKey(space, messageId));
      if (!card) return undefined;
      if (card.claim) return { first: false, claim: card.claim };
      card.claim = claim;
      return { first: true, claim };
    },
    close: () => {},
  };
}
