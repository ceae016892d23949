// spec: run-visibility 8 (the process-wide edit budget) — model-based tests generated from the budget
// machine's graph (@xstate/graph): every state and every transition, and on every path the promises
// hold: the bucket never lets more than (capacity + refill × elapsed) edits through in any window,
// every terminal booking is funded, no progress grant while a booking waits in its channel (issue 24.2),
// no grant during a cool-off,
// every queued write (a card) is funded but never while a terminal booking waits; and a bucket that
// counts each window exactly (windowLog, issue 11 item 4: Slack) never lets more than its allowance
// through in any window.
import { beforeAll, describe, expect, it } from 'vitest';
import { resolveBudgetConfig } from '../../src/budget/config.js';
import {
  type BudgetTraceEntry,
  checkBudgetTrace,
  maxEditsInWindow,
} from '../../src/testing/budget-driver.js';
import {
  type BudgetReplay,
  budgetMachineTransitionKeys,
  budgetModelInput,
  budgetModelLongSpacingCommands,
  budgetModelLongSpacingInput,
  budgetModelPaths,
  replayBudgetCommands,
} from '../../src/testing/budget-model.js';

describe('budget machine, model-based', () => {
  let replays: BudgetReplay[] = [];

  beforeAll(() => {
    replays = budgetModelPaths().map((commands) => replayBudgetCommands(commands));
  });

  it('the model paths take every transition the machine defines', () => {
    // With a channel spacing longer than a token's refill too: the line then moves before a booking waiting
    // on its channel, and the serving timer is set again for it (issue 24 item 2).
    const longSpacing = budgetModelPaths(budgetModelLongSpacingInput, budgetModelLongSpacingCommands).map(
      (commands) => replayBudgetCommands(commands, budgetModelLongSpacingInput),
    );
    expect(longSpacing.flatMap((replay) => replay.mismatches)).toEqual([]);
    expect(longSpacing.flatMap((replay) => replay.violations)).toEqual([]);
    const taken = new Set(
      [...replays, ...longSpacing].flatMap((replay) => [...replay.driver.transitionsTaken]),
    );
    const defined = budgetMachineTransitionKeys();
    expect(defined).toHaveLength(17);
    expect(defined.filter((key) => !taken.has(key))).toEqual([]);
  });

  it('the model paths visit every combination of rate mode and funding mode', () => {
    const visited = new Set(
      replays.flatMap((replay) => replay.statesVisited.map((value) => JSON.stringify(value))),
    );
    expect([...visited].sort()).toEqual(
      [
        { rate: 'coolingOff', serving: 'idle' },
        { rate: 'coolingOff', serving: 'waiting' },
        { rate: 'open', serving: 'idle' },
        { rate: 'open', serving: 'waiting' },
      ]
        .map((value) => JSON.stringify(value))
        .sort(),
    );
  });

  it('on every path the live actor is in the state the model predicts', () => {
    expect(replays.length).toBeGreaterThan(100);
    expect(replays.flatMap((replay) => replay.mismatches)).toEqual([]);
  });

  it('on every path the budget keeps its promises', () => {
    expect(replays.flatMap((replay) => replay.violations)).toEqual([]);
    // The paths do exercise the promises: bookings, grants and cool-offs all occur.
    const kinds = new Set(replays.flatMap((replay) => replay.driver.trace.map((entry) => entry.kind)));
    expect([...kinds].sort()).toEqual([
      'advisory',
      'advisory-answer',
      'book',
      'closed',
      'funded',
      'granted',
      'progress',
      'queue',
      'rate-limited',
      'refused',
    ]);
    // Advisory writes are granted from spare tokens, and refused when others wait.
    const advisories = replays.flatMap((replay) =>
      replay.driver.trace.flatMap((entry) => (entry.kind === 'advisory-answer' ? [entry.granted] : [])),
    );
    expect(new Set(advisories)).toEqual(new Set([true, false]));
  });
});

describe('budget machine, model-based, as on Slack (windowLog, useSpare)', () => {
  it('on every path the live actor is where the model says and the budget keeps its promises', () => {
    const input = { ...budgetModelInput, windowLog: true, useSpare: true };
    const replays = budgetModelPaths(input).map((commands) => replayBudgetCommands(commands, input));
    expect(replays.length).toBeGreaterThan(100);
    expect(replays.flatMap((replay) => replay.mismatches)).toEqual([]);
    expect(replays.flatMap((replay) => replay.violations)).toEqual([]);
  });

  it('checkBudgetTrace flags more edits in one window than the log allows', () => {
    const config = resolveBudgetConfig({ ...budgetModelInput, windowLog: true });
    const trace: BudgetTraceEntry[] = Array.from({ length: config.windowAllowance + 1 }, (_, i) => ({
      kind: 'granted',
      at: i * 1000,
      cardId: `c${i}`,
    }));
    expect(checkBudgetTrace(trace, config)).toContainEqual(
      expect.stringMatching(/^13 edits in one window of 60000 ms where the log allows 12/),
    );
  });
});

describe('checkBudgetTrace (the promises the model checks)', () => {
  const config = resolveBudgetConfig(budgetModelInput);

  it('accepts a trace that keeps them', () => {
    const trace: BudgetTraceEntry[] = [
      { kind: 'progress', at: 0, cardId: 'a', channel: 'x' },
      { kind: 'granted', at: 0, cardId: 'a' },
      { kind: 'book', at: 100, cardId: 'a', channel: 'x' },
      { kind: 'funded', at: 1000, cardId: 'a' },
    ];
    expect(checkBudgetTrace(trace, config)).toEqual([]);
  });

  it('flags more edits in a window than capacity + refill', () => {
    // One more edit than the bucket holds, all within 6 ms: far too soon for a refill.
    const trace: BudgetTraceEntry[] = Array.from({ length: config.capacity + 1 }, (_, i) => ({
      kind: 'granted',
      at: i,
      cardId: `c${i}`,
    }));
    expect(checkBudgetTrace(trace, config)).toContainEqual(
      expect.stringMatching(new RegExp(`^${config.capacity + 1} edits in \\[0, ${config.capacity}\\]`)),
    );
  });

  it('flags a progress grant while a booking waits in its channel, not in another (issue 24 item 2)', () => {
    const trace: BudgetTraceEntry[] = [
      { kind: 'book', at: 0, cardId: 'a', channel: 'x' },
      { kind: 'progress', at: 10, cardId: 'b', channel: 'x' },
      { kind: 'granted', at: 10, cardId: 'b' },
      { kind: 'progress', at: 10, cardId: 'c', channel: 'y' },
      { kind: 'granted', at: 10, cardId: 'c' },
      { kind: 'funded', at: 20, cardId: 'a' },
    ];
    expect(checkBudgetTrace(trace, config)).toEqual([
      'b granted a progress frame at 10 while a terminal booking waits in x',
    ]);
  });

  it('flags an edit during a cool-off', () => {
    const trace: BudgetTraceEntry[] = [
      { kind: 'rate-limited', at: 0, retryAfterMs: 1000 },
      { kind: 'granted', at: 999, cardId: 'a' },
    ];
    expect(checkBudgetTrace(trace, config)).toEqual(['a granted at 999 during a cool-off until 1000']);
  });

  it('flags a booking never funded, and a funding without a booking', () => {
    const trace: BudgetTraceEntry[] = [
      { kind: 'book', at: 0, cardId: 'a', channel: 'x' },
      { kind: 'funded', at: 5, cardId: 'b' },
    ];
    expect(checkBudgetTrace(trace, config)).toEqual([
      'b funded at 5 without a booking',
      'a has 1 terminal booking(s) never funded',
    ]);
  });

  it('maxEditsInWindow counts half-open windows (t - window, t]', () => {
    expect(maxEditsInWindow([0, 500, 1000, 1000, 2500], 1000)).toBe(3);
    expect(maxEditsInWindow([], 1000)).toBe(0);
  });
});
