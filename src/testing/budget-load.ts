/**
 * A load simulation of the edit budget (the reference's `cardsLoad`): many
 * live cards asking for a progress frame at a fixed cadence, each ending with
 * a terminal frame, against the real budget actor on a `SimulatedClock`. A
 * refused progress frame is dropped (the card's next tick repaints); a card
 * closes once its terminal frame is funded. The receipt says what reached the
 * platform and whether the budget's promises held.
 */
import type { BudgetInput } from '../budget/config.js';
import { checkBudgetTrace, createBudgetDriver, maxEditsInWindow } from './budget-driver.js';

export interface BudgetLoadOptions {
  input: BudgetInput;
  cards: number;
  /** Cards are spread over this many channels (card i in channel i mod channels). */
  channels: number;
  /** Each live card asks for a progress frame this often. */
  cadenceMs: number;
  /** Card i starts at i × startStaggerMs. */
  startStaggerMs: number;
  /** How long card i asks for progress frames before its terminal frame. */
  lifetimeMs: (cardIndex: number) => number;
}

export interface BudgetLoadReceipt {
  progressRequests: number;
  progressGranted: number;
  progressRefused: number;
  /** Cards that painted at least one progress frame. */
  cardsPainted: number;
  terminalsBooked: number;
  terminalsFunded: number;
  /** The longest a terminal frame waited between its booking and its funding. */
  longestTerminalWaitMs: number;
  /** The most edits (progress + terminal) in any window the platform counts over. */
  mostEditsInAWindow: number;
  /** The window that count is over (the budget's `windowMs`). */
  windowMs: number;
  /** The platform's allowance per window. */
  allowance: number;
  /** Cards still registered as live at the end (every card closes, so 0). */
  liveCardsAtEnd: number;
  /** `checkBudgetTrace` on the whole run. */
  violations: string[];
  durationMs: number;
}

interface SimCard {
  id: string;
  channel: string;
  nextAskAt: number;
  endsAt: number;
  bookedAt: number | null;
}

export function simulateBudgetLoad(options: BudgetLoadOptions): BudgetLoadReceipt {
  const driver = createBudgetDriver(options.input);
  const cards: SimCard[] = Array.from({ length: options.cards }, (_, index) => {
    const startsAt = index * options.startStaggerMs;
    return {
      id: `card-${index}`,
      channel: `channel-${index % options.channels}`,
      nextAskAt: startsAt,
      endsAt: startsAt + options.lifetimeMs(index),
      bookedAt: null,
    };
  });
  const byId = new Map(cards.map((card) => [card.id, card]));
  let longestTerminalWaitMs = 0;
  let traceRead = 0;
  const closeFundedCards = (): void => {
    for (; traceRead < driver.trace.length; traceRead++) {
      const entry = driver.trace[traceRead]!;
      if (entry.kind !== 'funded') continue;
      const card = byId.get(entry.cardId)!;
      longestTerminalWaitMs = Math.max(longestTerminalWaitMs, entry.at - (card.bookedAt ?? entry.at));
      driver.close(card.id);
    }
  };
  for (;;) {
    const asking = cards.filter((card) => card.bookedAt === null);
    const nextAskAt = Math.min(...asking.map((card) => card.nextAskAt));
    const nextTimerAt = driver.nextTimerAt() ?? Number.POSITIVE_INFINITY;
    const next = Math.min(nextAskAt, nextTimerAt);
    if (next === Number.POSITIVE_INFINITY) break;
    driver.advanceTo(next);
    closeFundedCards();
    for (const card of asking) {
      if (card.nextAskAt !== next) continue;
      if (next >= card.endsAt) {
        card.bookedAt = next;
        driver.book(card.id, card.channel);
      } else {
        driver.progress(card.id, card.channel);
        card.nextAskAt = next + options.cadenceMs;
      }
    }
    closeFundedCards();
  }
  const trace = driver.trace;
  const count = (kind: string) => trace.filter((entry) => entry.kind === kind).length;
  const edits = trace.filter((entry) => entry.kind === 'granted' || entry.kind === 'funded');
  const receipt: BudgetLoadReceipt = {
    progressRequests: count('progress'),
    progressGranted: count('granted'),
    progressRefused: count('refused'),
    cardsPainted: new Set(trace.filter((entry) => entry.kind === 'granted').map((entry) => entry.cardId))
      .size,
    terminalsBooked: count('book'),
    terminalsFunded: count('funded'),
    longestTerminalWaitMs,
    mostEditsInAWindow: maxEditsInWindow(
      edits.map((entry) => entry.at),
      driver.config.windowMs,
    ),
    windowMs: driver.config.windowMs,
    allowance: driver.config.allowance,
    liveCardsAtEnd: Object.keys(driver.actor.getSnapshot().context.budget.registry.cards).length,
    violations: checkBudgetTrace(trace, driver.config),
    durationMs: driver.clock.now(),
  };
  driver.stop();
  return receipt;
}
