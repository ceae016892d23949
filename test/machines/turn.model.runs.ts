/**
 * The model-based runs of the turn machine (spec: Actor-runtime item 7), shared by
 * test/machines/turn.model.test.ts and turn.model-strategies.test.ts: each file
 * runs some of them, so the two halves of this CPU-bound work run side by side
 * on two workers.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  runTurnModel,
  type TurnModelOptions,
  type TurnModelResult,
  turnMachineStateIds,
  turnMachineTransitionKeys,
  turnRolloverTransitionKeys,
  turnStatusRefreshTransitionKeys,
  turnTickingStateIds,
  turnTickingTransitionKeys,
  turnTransitionsNotReachable,
} from '../../src/testing/turn-model.js';
import type { CondenseStrategy } from '../../src/turnlog/types.js';

/**
 * Paths per run: those needed to take every transition the graph reaches and
 * to end in every situation it reaches (about 140), then a spread of the rest.
 */
const MAX_PATHS = 150;
/** Not reachable, and the live log's clock, which the kit leaves to test/machines/turn-ticking.test.ts. */
export const NOT_REACHABLE = turnMachineTransitionKeys().filter(
  (key) => Object.hasOwn(turnTransitionsNotReachable, key) || turnTickingTransitionKeys().includes(key),
);
/** Not taken on the model's surfaces (no live status): the above, and the status refresh (Slack). */
const NOT_TAKEN = turnMachineTransitionKeys().filter(
  (key) => NOT_REACHABLE.includes(key) || turnStatusRefreshTransitionKeys().includes(key),
);
const REFRESHING = turnMachineStateIds().filter((id) => id.startsWith('turn.opened.refreshingStatus'));

export function expectNoFailures(result: TurnModelResult): void {
  // Names the path and what broke, not just a count.
  expect(result.failures.slice(0, 3)).toEqual([]);
}

export interface ModelRun {
  name: string;
  opts: TurnModelOptions;
  notTaken: string[];
}

export const defaultRun = (): ModelRun => ({
  name: 'the default settings (Google Chat)',
  opts: {},
  notTaken: NOT_TAKEN,
});

export const strategyRun = (strategy: CondenseStrategy, platform: 'gchat' | 'discord'): ModelRun => ({
  name: `${strategy} with a tiny maxChars (${platform})`,
  opts: { platform, settings: { strategy, maxChars: 100 } } satisfies TurnModelOptions,
  // drop-earliest never rolls over, by design.
  notTaken:
    strategy === 'drop-earliest'
      ? turnMachineTransitionKeys().filter(
          (key) => NOT_TAKEN.includes(key) || turnRolloverTransitionKeys().includes(key),
        )
      : NOT_TAKEN,
});

/** A run computes its paths once (CPU-bound: a minute or more on a busy machine), then checks them. */
const RUN_TIMEOUT_MS = 180_000;

export function describeModelRuns(runs: ModelRun[]): void {
  describe.each(runs)('turn machine, model-based: $name', ({ opts, notTaken }) => {
    let result: TurnModelResult;

    beforeAll(async () => {
      result = await runTurnModel({ ...opts, maxPaths: MAX_PATHS });
    }, RUN_TIMEOUT_MS);

    it('keeps every promise on every path', () => {
      expect(result.paths).toBeGreaterThanOrEqual(MAX_PATHS);
      expectNoFailures(result);
    });

    it('takes every transition the machine defines (except those no path can take)', () => {
      expect(result.coverage.transitions.missing).toEqual(notTaken);
      expect(result.coverage.transitions.total).toBe(turnMachineTransitionKeys().length);
    });

    it('visits every state (a strategy that never rolls over never rolls over)', () => {
      const dropping = opts.settings?.strategy === 'drop-earliest';
      const ticking = turnTickingStateIds();
      const expected = turnMachineStateIds().filter(
        (id) =>
          (dropping && id.startsWith('turn.rolling-over')) || REFRESHING.includes(id) || ticking.includes(id),
      );
      expect(result.coverage.states.missing).toEqual(expected);
    });

    it('goes through the situations the promises are about', () => {
      const { exercised } = result;
      expect(exercised.degraded).toBeGreaterThan(0);
      expect(exercised.deadLetters).toBeGreaterThan(0);
      expect(exercised.restarted).toBeGreaterThan(0);
      expect(exercised.deletedByAPerson).toBeGreaterThan(0);
      // Several log messages: rollovers, or a fresh one after a deleted or abandoned message.
      expect(exercised.severalLogMessages).toBeGreaterThan(0);
      expect(exercised.flushed).toBeGreaterThan(0);
      expect(exercised.headed).toBeGreaterThan(0);
    });
  });
}
