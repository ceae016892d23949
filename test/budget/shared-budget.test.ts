/**
 * Issue 23 item 5, the shared budget's own rules without a server (the real
 * Redis is test/cluster/shared-budget.test.ts's): `start()` is idempotent
 * (one budget may serve several runtimes); a store that never answered
 * leaves the budget in its fallback, said once; the fallback share is the
 * limit ÷ the live processes last counted.
 */

import { describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { budgetDefaults, resolveBudgetConfig } from '../../src/budget/config.js';
import { sharedBucketsFor, shareOf } from '../../src/budget/shared-bucket.js';
import { SharedBudget, type SharedBudgetStore } from '../../src/budget/shared-budget.js';
import { builtinPlatforms } from '../../src/platforms/all.js';

const slack = resolveBudgetConfig(budgetDefaults('slack', builtinPlatforms));

/** A store whose every call fails once `down` (as a Redis out of reach), counting its calls. */
function fakeStore(live: number) {
  const calls = { connect: 0, heartbeat: 0 };
  let down = false;
  const fail = () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:1'));
  const store: SharedBudgetStore = {
    connect: () => {
      calls.connect++;
      return down ? fail() : Promise.resolve();
    },
    take: () => (down ? fail() : Promise.resolve({ granted: true, waitMs: 0 })),
    heartbeat: () => {
      calls.heartbeat++;
      return down ? fail() : Promise.resolve(live);
    },
    close: () => Promise.resolve(),
  };
  return { store, calls, setDown: (value: boolean) => (down = value) };
}

describe('SharedBudget (issue 23.5)', () => {
  it('start() is idempotent: runtimes given the same budget share one connection and one heartbeat loop', async () => {
    const clock = new SimulatedClock();
    const fake = fakeStore(2);
    const budget = new SharedBudget({
      store: fake.store,
      instanceId: 'a',
      clock,
      logger: { warn: () => {} },
    });
    await Promise.all([budget.start(), budget.start()]);
    await budget.start();
    expect(fake.calls).toEqual({ connect: 1, heartbeat: 1 });
    clock.increment(2000);
    await budget.idle();
    await Promise.resolve();
    expect(fake.calls.heartbeat).toBe(2);
    await budget.stop();
  });

  it('a store out of reach from the start: local-fallback, said once, and answers still taken', async () => {
    const clock = new SimulatedClock();
    const fake = fakeStore(1);
    fake.setDown(true);
    const lines: string[] = [];
    const budget = new SharedBudget({
      store: fake.store,
      instanceId: 'a',
      clock,
      logger: { warn: (m) => lines.push(m) },
    });
    await budget.start();
    expect(budget.mode()).toBe('local-fallback');
    const specs = sharedBucketsFor(slack, 'C1', 'edit');
    for (let i = 0; i < 20; i++) expect((await budget.take(specs, 1, 'terminal')).granted).toBe(true);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/out of reach \(connect ECONNREFUSED/);
    await budget.stop();
  });

  it("the fallback share: each bucket's rate, burst and reserve ÷ the live processes, one token above the reserve", () => {
    const [app] = sharedBucketsFor(slack, 'C1', 'edit');
    const half = shareOf(app!, 2);
    expect(half.ratePerMs).toBeCloseTo(app!.ratePerMs / 2);
    expect(half.reserve).toBeCloseTo(app!.reserve / 2);
    expect(half.capacity).toBeGreaterThanOrEqual(half.reserve + 1);
    const many = shareOf(app!, 40);
    expect(many.capacity).toBeGreaterThanOrEqual(many.reserve + 1);
  });
});
