/**
 * Messages between turn actors and the budget actor (one per platform app,
 * registered under the systemId `budget:<platform>`). Pure types: shared by
 * the machines and their tests.
 */
import type { AnyActorRef } from 'xstate';

/**
 * What a write is, as the platform counts it (src/budget/config.ts): the
 * first post of a message, an edit, a status line, a reaction, typing. The
 * platform's descriptor says which kinds have limits of their own; the rest
 * draw from the edit bucket. Absent: an edit.
 */
export type BudgetWrite = 'post' | 'edit' | 'status' | 'reaction' | 'typing';

export const budgetSystemId = (platform: string): string => `budget:${platform}`;

/** Turn → budget: may I send a progress frame (an edit) now? Answered by GRANTED or REFUSED. */
export interface ProgressRequestEvent {
  type: 'budget.progress.request';
  cardId: string;
  /** Per-channel spacing key (platform space + thread). */
  channel: string;
  /** What the write is (default an edit): a kind the platform limits apart takes no edit token. */
  write?: BudgetWrite;
  replyTo: AnyActorRef;
}

/** Turn → budget: book a slot for a terminal frame. Always answered by FUNDED, now or later. */
export interface TerminalBookEvent {
  type: 'budget.terminal.book';
  cardId: string;
  channel: string;
  /** What the write is (default an edit): an answer is a post. */
  write?: BudgetWrite;
  replyTo: AnyActorRef;
}

/**
 * Delivery → budget: queue a write that must land but yields to terminal
 * frames (a policy card). Answered by FUNDED when its channel is free and a
 * token is there; the channel's groups (`group`: the turn's thread) take
 * turns, so one turn's flood does not hold back another's.
 */
export interface QueuedBookEvent {
  type: 'budget.queued.book';
  cardId: string;
  channel: string;
  group: string;
  /** What the write is (default an edit): a card is a post. */
  write?: BudgetWrite;
  replyTo: AnyActorRef;
}

/**
 * Turn → budget: may an advisory write (Discord's typing indicator) go now?
 * Always answered at once by ADVISORY_ANSWER: granted only from tokens
 * nobody else is owed; refused means skip it (never retried, never queued).
 */
export interface AdvisoryRequestEvent {
  type: 'budget.advisory.request';
  /** What the write is (`typing`): echoed in the answer so the asker can tell its answers apart. */
  purpose: string;
  replyTo: AnyActorRef;
  /** The platform's rate channel the write goes to (a space on Google Chat), when known. */
  channel?: string;
  /** The platform method it calls (`reactions.add`), for a budget that counts per method (Slack). */
  method?: string;
}

/** Anyone → budget: the platform answered 429: cool off the whole scope. */
export interface RateLimitedEvent {
  type: 'budget.rate-limited';
  retryAfterMs: number;
  channel?: string;
}

/** Turn → budget: the card is finished; remove it from the fair share. */
export interface CardClosedEvent {
  type: 'budget.card.closed';
  cardId: string;
}

export type BudgetInEvent =
  | ProgressRequestEvent
  | TerminalBookEvent
  | QueuedBookEvent
  | AdvisoryRequestEvent
  | RateLimitedEvent
  | CardClosedEvent;

/** Budget → turn replies. */
export interface GrantedEvent {
  type: 'budget.granted';
}
export interface RefusedEvent {
  type: 'budget.refused';
  /** When asking again can succeed. */
  retryInMs: number;
  /** `write-limit`: the write kind's own limit (a kind the platform limits apart from edits). */
  reason: 'reserve' | 'fair-share' | 'spacing' | 'cool-off' | 'write-limit';
}
export interface FundedEvent {
  type: 'budget.funded';
}
export interface AdvisoryAnswerEvent {
  type: 'budget.advisory.answer';
  purpose: string;
  granted: boolean;
}
export type BudgetReplyEvent = GrantedEvent | RefusedEvent | FundedEvent | AdvisoryAnswerEvent;
