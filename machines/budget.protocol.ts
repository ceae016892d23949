/**
 * Messages between turn actors and the budget actor (one per platform app,
 * registered under the systemId `budget:<platform>`). Pure types: shared by
 * the machines and their tests.
 */
import type { AnyActorRef } from 'xstate';

export const budgetSystemId = (platform: string): string => `budget:${platform}`;

/** Turn → budget: may I send a progress frame (an edit) now? Answered by GRANTED or REFUSED. */
export interface ProgressRequestEvent {
  type: 'budget.progress.request';
  cardId: string;
  /** Per-channel spacing key (platform space + thread). */
  channel: string;
  replyTo: AnyActorRef;
}

/** Turn → budget: book a slot for a terminal frame. Always answered by FUNDED, now or later. */
export interface TerminalBookEvent {
  type: 'budget.terminal.book';
  cardId: string;
  channel: string;
  replyTo: AnyActorRef;
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

export type BudgetInEvent = ProgressRequestEvent | TerminalBookEvent | RateLimitedEvent | CardClosedEvent;

/** Budget → turn replies. */
export interface GrantedEvent {
  type: 'budget.granted';
}
export interface RefusedEvent {
  type: 'budget.refused';
  /** When asking again can succeed. */
  retryInMs: number;
  reason: 'reserve' | 'fair-share' | 'spacing' | 'cool-off';
}
export interface FundedEvent {
  type: 'budget.funded';
}
export type BudgetReplyEvent = GrantedEvent | RefusedEvent | FundedEvent;
