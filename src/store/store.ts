/**
 * The persistence seam. The runtime saves each live turn's persisted XState
 * snapshot on every transition, each space's stray log while it is live, the
 * parts of answers not delivered yet, the inbound anchors of each space, the run
 * record (every accepted event with its seq), dead letters, and the refs of
 * posts by client id (so a post retried after a crash finds the message it
 * already made on platforms without idempotent creates).
 *
 * Every method may answer synchronously or with a promise, so an embedded
 * store (SQLite, memory) and a shared one (Redis, later) fit the same seam.
 */
import type { Action, ActionUser, NewAction } from '../actions/types.js';
import type { RunEvent } from '../events/schema.js';
import type { FrameCard } from '../surfaces/frame.js';
import type { PostedMessage, ThreadAnchor } from '../surfaces/surface.js';

export type MaybePromise<T> = T | Promise<T>;

export interface PersistedTurn {
  turnId: string;
  space: string;
  /** `actor.getPersistedSnapshot()` of the turn actor: plain JSON. */
  snapshot: unknown;
  updatedAt: number;
}

/**
 * A space's stray log (machines/stray-log.machine.ts) while it has a message
 * to keep editing or lines to show: a restart resumes it, so the space keeps
 * coalescing into the same message for the rest of its minute.
 */
export interface PersistedStrayLog {
  space: string;
  /** `getPersistedSnapshot()` of the stray log actor: plain JSON. */
  snapshot: unknown;
  updatedAt: number;
}

/**
 * One part of an answer the platform has not accepted yet (docs/architecture.md,
 * "What survives a restart"). An answer is saved as all its parts when it is
 * accepted, with the event that carried it, and each part is forgotten once
 * the platform took it: a restart posts the parts still kept, in order, with
 * the same client ids (idempotent creates never post one twice).
 */
export interface PendingAnswerPart {
  space: string;
  /** The answer's client id (`<turnId>:answer:<seq>`): part 0's; part N's is `<key>-N`. */
  key: string;
  /** 0, 1, 2…: its place among the answer's parts. */
  part: number;
  /** How many parts the answer has. */
  parts: number;
  turnId?: string;
  /** The thread it goes in (`finalReplyInThread`); absent: top-level. */
  thread?: ThreadAnchor;
  /** The part's Markdown, cut from the redacted answer. */
  text: string;
  savedAt: number;
}

/** What is kept of a finished turn, for `GET /v1/turns/:turnId`. */
export interface TurnSummary {
  turnId: string;
  space: string;
  state: string;
  outcome: string | null;
  degraded: boolean;
  logMessages: { messageId: string; threadId?: string; final: boolean }[];
  entries: number;
  deadLetters: number;
  endedAt: number;
}

export interface StoredAnchor {
  messageId: string;
  threadId?: string;
  ref?: string;
}

/**
 * A space's settings changed at run time (`PUT /v1/spaces/:space`), kept
 * across restarts. Each key given wins over the space's config.
 */
export interface StoredSpaceSettings {
  threadsDisabled?: boolean;
  dm?: boolean;
}

export interface DeadLetterRecord {
  at: number;
  /** Where it came from: `ingest`, `intake:<platform>` (a platform intake), `space:<space>`, `turn:<turnId>` … */
  source: string;
  reason: string;
  /** The rejected input or undeliverable text, as received. */
  payload: string;
}

/**
 * A message turnlog posted with buttons (docs/architecture.md, "Cards and
 * clicks"): a policy card, a question card, or a live log with Stop. A click
 * names the message; this says what its buttons mean.
 */
export interface CardRecord {
  space: string;
  /** The platform's id of the message the buttons are on. */
  messageId: string;
  threadId?: string;
  turnId: string;
  kind: 'policy' | 'question' | 'log';
  /** `requestId` of a policy card, `questionId` of a question; the turn id for a log. */
  cardId: string;
  /** The card as posted (policy, question): edited to show the outcome. Absent for a log. */
  card?: FrameCard;
  /** A question's options, by index (`answer:<index>`), with their defaults filled in. */
  options?: { label: string; selectedLabel: string; value: string }[];
  /** Epoch ms it was posted. */
  postedAt: number;
}

/** The first click that counted on a card: who, which button, when. */
export interface CardClaim {
  user: ActionUser;
  /** The button's action id (`approve`, `answer:1`, `stop`). */
  action: string;
  at: number;
}

/** A registered card and, once someone clicked, the click that won. */
export interface StoredCard extends CardRecord {
  claim?: CardClaim;
}

export interface TurnlogStore {
  saveTurn(turn: PersistedTurn): MaybePromise<void>;
  loadTurn(turnId: string): MaybePromise<PersistedTurn | undefined>;
  /** Live (not finished) turns, for restoring after a restart. */
  liveTurns(): MaybePromise<PersistedTurn[]>;
  /** The turn ended: drop its live snapshot, keep its summary. */
  finishTurn(summary: TurnSummary): MaybePromise<void>;
  turnSummary(turnId: string): MaybePromise<TurnSummary | undefined>;

  /** Saves a space's stray log, replacing what was saved for the space. */
  saveStrayLog(log: PersistedStrayLog): MaybePromise<void>;
  /** The space's stray log has nothing left to resume (its minute is over, every line shown). */
  forgetStrayLog(space: string): MaybePromise<void>;
  /** Every saved stray log, for restoring after a restart. */
  strayLogs(): MaybePromise<PersistedStrayLog[]>;

  /** Saves the parts of answers not delivered yet (a part saved again replaces the one kept). */
  saveAnswerParts(parts: PendingAnswerPart[]): MaybePromise<void>;
  /** The platform accepted (or refused for good) a part: it is not posted again after a restart. */
  forgetAnswerPart(space: string, key: string, part: number): MaybePromise<void>;
  /** Every part kept, in the order saved (an answer's parts in order), for restoring after a restart. */
  pendingAnswerParts(): MaybePromise<PendingAnswerPart[]>;

  saveAnchor(space: string, anchor: StoredAnchor): MaybePromise<void>;
  anchors(space: string, limit: number): MaybePromise<StoredAnchor[]>;

  appendEvent(event: RunEvent): MaybePromise<void>;
  events(turnId: string): MaybePromise<RunEvent[]>;

  deadLetter(record: DeadLetterRecord): MaybePromise<void>;
  deadLetters(limit?: number): MaybePromise<DeadLetterRecord[]>;

  recordPost(clientId: string, message: PostedMessage): MaybePromise<void>;
  lookupPost(clientId: string): MaybePromise<PostedMessage | undefined>;

  /** Saves a space's run-time settings, replacing what was saved for it; `{}` forgets them. */
  saveSpaceSettings(space: string, settings: StoredSpaceSettings): MaybePromise<void>;
  /** Every space's saved run-time settings, keyed by space. */
  spaceSettings(): MaybePromise<Record<string, StoredSpaceSettings>>;

  /** Records a posted card (again: its record is replaced, an existing claim kept). */
  registerCard(record: CardRecord): MaybePromise<void>;
  /** The card on a message of a space, with its claim; undefined when turnlog does not know it. */
  card(space: string, messageId: string): MaybePromise<StoredCard | undefined>;
  /**
   * The first claim of a card wins, atomically and durably: answers
   * `{first: true, claim}` for it, `{first: false, claim: <the earlier one>}`
   * for every later one, undefined for an unknown card.
   */
  claimCard(
    space: string,
    messageId: string,
    claim: CardClaim,
  ): MaybePromise<{ first: boolean; claim: CardClaim } | undefined>;

  /**
   * The actions outbox (docs/http-api.md, "Actions"): appends an action
   * (already redacted) under the next cursor, unless one with its `id` is
   * kept already (then that one comes back, `duplicate`). `keptAt` is when it
   * was recorded, for `pruneActions`. Cursors only grow, pruning included.
   */
  appendAction(
    action: NewAction & { id: string },
    keptAt: number,
  ): MaybePromise<{ action: Action; duplicate: boolean }>;
  /** Kept actions with a cursor after `after` (0: from the oldest kept), oldest first, at most `limit`. */
  actionsAfter(after: number, limit: number): MaybePromise<Action[]>;
  /** Forgets at most `max` of the oldest actions recorded before `keptBefore`; answers how many went. */
  pruneActions(keptBefore: number, max: number): MaybePromise<number>;
  /**
   * The store's identity, made with it (the memory store: one per process):
   * actions cursors carry it, so a cursor of a replaced store is refused.
   */
  actionsStoreId(): MaybePromise<string>;
  /** The newest cursor given out (0: none yet); pruning never lowers it. */
  lastActionSeq(): MaybePromise<number>;
  /** The cards of a turn nobody decided yet (they lose their buttons when the turn ends). */
  openCards(turnId: string): MaybePromise<StoredCard[]>;
  /** The cursor a named consumer (the webhook) has delivered up to, kept across restarts. */
  actionCursor(consumer: string): MaybePromise<string | undefined>;
  saveActionCursor(consumer: string, cursor: string): MaybePromise<void>;

  /**
   * The run page's capability tokens (docs/http-api.md, "The run page"): only
   * a sha256 of each is kept. A turn may have several (one per process that
   * linked it); any of them opens the turn's page.
   */
  saveRunToken?(turnId: string, tokenHash: string, createdAt: number): MaybePromise<void>;
  /** The hashes of the turn's run page tokens (none: no page). */
  runTokenHashes?(turnId: string): MaybePromise<string[]>;
  /**
   * Deletes at most `max` finished runs whose turn ended before `endedBefore`:
   * their run record, summary and tokens (`runs.retentionDays`). Answers how many went.
   */
  forgetRunsEndedBefore?(endedBefore: number, max: number): MaybePromise<number>;

  /**
   * Makes everything written so far durable (a store that batches writes
   * commits them now). The ingest API awaits it before acknowledging events.
   */
  flush?(): MaybePromise<void>;

  close(): MaybePromise<void>;
}
