/**
 * Turn views (`GET /v1/turns/:turnId`): a live turn's from its actor's
 * snapshot, a finished one's from the summaries kept (recent ones in memory,
 * all in the store), a crashed one's from its last persisted snapshot; and
 * answers refused for good, which degrade their turn's view, live or ended.
 */
import type { AnyMachineSnapshot, StateValue } from 'xstate';
import type { TurnContext } from '../../machines/turn.machine.js';
import type { Clock } from '../clock.js';
import type { TurnlogStore, TurnSummary } from '../store/store.js';
import type { Durability } from './durability.js';
import type { TurnView } from './types.js';

/** What the runtime remembers of recently finished turns without asking the store. */
export const RECENT_SUMMARIES = 1000;

function stateString(value: StateValue): string {
  if (typeof value === 'string') return value;
  return Object.entries(value)
    .map(([key, inner]) => (inner === undefined ? key : `${key}.${stateString(inner)}`))
    .join(',');
}

export function viewOf(snapshot: AnyMachineSnapshot): TurnView {
  const context: TurnContext = snapshot.context;
  return {
    turnId: context.turnId,
    space: context.space,
    state: snapshot.status === 'done' ? 'ended' : stateString(snapshot.value),
    entries: context.entryCount,
    logMessages: context.logMessages.map((m) => ({ ...m })),
    roots: [
      ...(context.anchor?.rootMessageId
        ? [
            {
              messageId: context.anchor.rootMessageId,
              ...(context.anchor.threadId ? { threadId: context.anchor.threadId } : {}),
            },
          ]
        : []),
      ...(context.adopted ?? []).map((m) => ({ ...m })),
    ],
    degraded: context.degradedReason !== null,
    ...(context.outcome ? { outcome: context.outcome } : {}),
    warnings: [...context.warnings],
    deadLetters: context.deadLetters.reduce((n, d) => n + d.entries.length, 0),
  };
}

export function summaryOf(view: TurnView, endedAt: number): TurnSummary {
  return {
    turnId: view.turnId,
    space: view.space,
    state: view.state,
    outcome: view.outcome ?? null,
    degraded: view.degraded,
    logMessages: view.logMessages,
    entries: view.entries,
    deadLetters: view.deadLetters ?? 0,
    endedAt,
  };
}

/** What is known of a turn that crashed for good: its last persisted snapshot, if it had one. */
export function crashedView(turnId: string, space: string, persisted: unknown): TurnView {
  const context = (persisted as { context?: Partial<TurnContext> } | undefined)?.context;
  return {
    turnId,
    space,
    state: 'crashed',
    entries: context?.entryCount ?? 0,
    logMessages: (context?.logMessages ?? []).map((m) => ({ ...m })),
    degraded: true,
    warnings: [...(context?.warnings ?? [])],
    deadLetters: (context?.deadLetters ?? []).reduce((n, d) => n + d.entries.length, 0),
  };
}

export const fromSummary = (summary: TurnSummary): TurnView => ({
  turnId: summary.turnId,
  space: summary.space,
  state: summary.state,
  entries: summary.entries,
  logMessages: summary.logMessages,
  degraded: summary.degraded,
  ...(summary.outcome ? { outcome: summary.outcome } : {}),
  deadLetters: summary.deadLetters,
});

export interface TurnViewsDeps {
  store: TurnlogStore;
  clock: Clock;
  durability: Durability;
  /** Whether a turn has a live actor (its view comes from it, not from here). */
  isLive: (turnId: string) => boolean;
}

export function createTurnViews({ store, clock, durability, isLive }: TurnViewsDeps) {
  const recent = new Map<string, TurnView>();
  /** Answers refused for good, by turn. */
  const failedAnswers = new Map<string, string[]>();
  /**
   * Turns that crashed for good and have not ended yet. Such a turn has no
   * actor any more (its later events go top-level), so nothing of it is live:
   * it is finished in the store at once (state `crashed`, outcome null, its
   * log messages as last persisted), so no restart brings it back as a live
   * turn that can never end. Its `turn_ended` completes the summary.
   */
  const crashed = new Map<string, TurnView>();

  function withFailedAnswers(view: TurnView): TurnView {
    const reasons = failedAnswers.get(view.turnId);
    if (!reasons) return view;
    return {
      ...view,
      degraded: true,
      warnings: [...(view.warnings ?? []), ...reasons],
      deadLetters: (view.deadLetters ?? 0) + reasons.length,
    };
  }

  /** A turn is finished: its summary is kept (recent ones in memory) and its live row goes. */
  function finish(view: TurnView): void {
    recent.delete(view.turnId);
    recent.set(view.turnId, view);
    if (recent.size > RECENT_SUMMARIES) recent.delete(recent.keys().next().value as string);
    durability.persist('finishTurn', store.finishTurn(summaryOf(withFailedAnswers(view), clock.now())));
  }

  /** A stored summary, read whether the store answers at once or later; a failed read is logged. */
  function withSummary(turnId: string, then: (summary: TurnSummary | undefined) => void): void {
    let stored: ReturnType<TurnlogStore['turnSummary']>;
    try {
      stored = store.turnSummary(turnId);
    } catch (error) {
      durability.readFailed('turnSummary')(error);
      return;
    }
    if (stored instanceof Promise) stored.then(then, durability.readFailed('turnSummary'));
    else then(stored);
  }

  return {
    finish,
    /** A live turn's view (from its snapshot) or a recently finished one's, with its refused answers. */
    view(turnId: string, live: AnyMachineSnapshot | undefined): TurnView | undefined {
      const view = live ? viewOf(live) : recent.get(turnId);
      return view && withFailedAnswers(view);
    },
    /**
     * An answer was refused after the delivery's retries. The turn's view says so
     * (`degraded`, the reason in `warnings`, one more dead letter), also when the
     * turn has ended: its stored summary is written again. Views in `recent` are
     * kept as the turn left them; the failures are added when read.
     */
    answerFailed(turnId: string, reason: string): void {
      failedAnswers.set(turnId, [...(failedAnswers.get(turnId) ?? []), reason]);
      if (failedAnswers.size > RECENT_SUMMARIES)
        failedAnswers.delete(failedAnswers.keys().next().value as string);
      const finished = recent.get(turnId);
      if (finished) {
        finish(finished);
        return;
      }
      if (isLive(turnId)) return;
      // Ended before this process kept it in memory: amend the stored summary.
      Promise.resolve(store.turnSummary(turnId))
        .then((summary) => {
          if (summary) finish(fromSummary(summary));
        })
        .catch(durability.readFailed('turnSummary'));
    },
    /** A turn crashed for good: finished at once, as its last persisted snapshot shows it. */
    crashed(space: string, turnId: string, persisted: unknown): void {
      const view = crashedView(turnId, space, persisted);
      crashed.set(turnId, view);
      // Bounded: a crashed turn that never ends is forgotten here first; its summary stays in the store.
      if (crashed.size > RECENT_SUMMARIES) crashed.delete(crashed.keys().next().value as string);
      finish(view);
    },
    /**
     * The `turn_ended` of a turn with no actor: one that crashed for good here
     * (or before its space was restarted), or in an earlier process — then its
     * summary is in the store, `crashed`. For another unknown turn, nothing.
     */
    endedWithoutActor(turnId: string, outcome: string): void {
      const ended = (view: TurnView) => finish({ ...view, state: 'ended', outcome });
      const known = crashed.get(turnId);
      if (known) {
        crashed.delete(turnId);
        ended(known);
        return;
      }
      withSummary(turnId, (summary) => {
        if (summary?.state === 'crashed') ended(fromSummary(summary));
      });
    },
  };
}

export type TurnViews = ReturnType<typeof createTurnViews>;
