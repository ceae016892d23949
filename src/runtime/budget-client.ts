/**
 * The one place budget requests are built (machines/budget.protocol.ts): the
 * turn, delivery and stray-log machines and the status booking all ask the
 * space's budget actor (`budget:<platform>`) through it, so a request's card,
 * channel and write kind are spelt one way. With `budget: 'unlimited'` (tests)
 * there is no budget actor and every request is answered at once by the
 * caller (`enabled` is false).
 */
import type { AnyActorRef } from 'xstate';
import {
  type BudgetWrite,
  budgetSystemId,
  type CardClosedEvent,
  type ProgressRequestEvent,
  type QueuedBookEvent,
  type RateLimitedEvent,
  type TerminalBookEvent,
} from '../../machines/budget.protocol.js';
import type { PlatformRegistry } from '../registry/registry.js';

/** Where a write goes: the budget is the space's platform's, its spacing key the space and thread. */
export interface BudgetScope {
  space: string;
  threadId?: string | undefined;
}

/** What every request names: where, for which card, and (default an edit) what kind of write. */
export interface BudgetAsk extends BudgetScope {
  cardId: string;
  write?: BudgetWrite;
}

export interface BudgetClient {
  /** False: no budget actor (`budget: 'unlimited'`); the caller grants or funds itself. */
  readonly enabled: boolean;
  /** The systemId of a space's platform's budget actor. */
  systemIdOf(space: string): string;
  /** The budget actor of a space's platform, looked up in the actor system. */
  actorOf(system: { get(systemId: string): AnyActorRef | undefined }, space: string): AnyActorRef | undefined;
  /** The budget's per-channel spacing key: what the platform rate-limits as one channel. */
  channelOf(scope: BudgetScope): string;
  progress(ask: BudgetAsk, replyTo: AnyActorRef): ProgressRequestEvent;
  terminal(ask: BudgetAsk, replyTo: AnyActorRef): TerminalBookEvent;
  /** A write that must land but yields to terminal frames; `group` takes turns with the channel's other groups. */
  queued(ask: BudgetAsk & { group: string }, replyTo: AnyActorRef): QueuedBookEvent;
  rateLimited(scope: BudgetScope, retryAfterMs: number): RateLimitedEvent;
  cardClosed(cardId: string): CardClosedEvent;
}

/** `write` only when said: absent means an edit to the budget. */
const writeOf = (write: BudgetWrite | undefined) => (write === undefined ? {} : { write });

export function createBudgetClient(opts: {
  platforms: PlatformRegistry;
  budget?: 'system' | 'unlimited';
}): BudgetClient {
  const platforms = opts.platforms;
  const channelOf = ({ space, threadId }: BudgetScope) =>
    platforms.forSpace(space).rateChannel(space, threadId);
  return {
    enabled: (opts.budget ?? 'system') === 'system',
    systemIdOf: (space) => budgetSystemId(platforms.forSpace(space).id),
    actorOf: (system, space) => system.get(budgetSystemId(platforms.forSpace(space).id)),
    channelOf,
    progress: (ask, replyTo) => ({
      type: 'budget.progress.request',
      cardId: ask.cardId,
      channel: channelOf(ask),
      ...writeOf(ask.write),
      replyTo,
    }),
    terminal: (ask, replyTo) => ({
      type: 'budget.terminal.book',
      cardId: ask.cardId,
      channel: channelOf(ask),
      ...writeOf(ask.write),
      replyTo,
    }),
    queued: (ask, replyTo) => ({
      type: 'budget.queued.book',
      cardId: ask.cardId,
      channel: channelOf(ask),
      group: ask.group,
      ...writeOf(ask.write),
      replyTo,
    }),
    rateLimited: (scope, retryAfterMs) => ({
      type: 'budget.rate-limited',
      retryAfterMs,
      channel: channelOf(scope),
    }),
    cardClosed: (cardId) => ({ type: 'budget.card.closed', cardId }),
  };
}
