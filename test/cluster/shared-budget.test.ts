/**
 * Issue 23 item 5, "One budget for the app, shared across processes", on a
 * real redis-server (test/cluster/servers.ts):
 * - the Lua token bucket takes exactly what the reference math
 *   (`takeShared`) takes, class by class, step by step;
 * - two budgets (two ioredis clients, as two processes would) never let out
 *   more than the app's limit in sum (Slack's chat.update per app, Google
 *   Chat's per-space quota), on a simulated clock given to the script;
 * - terminal frames keep their reserve across processes;
 * - Redis killed mid-run: both fall back to limit ÷ 2 and say so
 *   (mode, one log line); Redis back: shared again.
 * No real-clock sleeps: time is the simulated clock's; the only waits are
 * `vi.waitFor` on a condition (a reconnect), with a generous bound.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { SimulatedClock } from 'xstate';
import { type BudgetConfig, budgetDefaults, resolveBudgetConfig } from '../../src/budget/config.js';
import {
  type SharedBucketSpec,
  type SharedBucketState,
  type SharedTakeClass,
  sharedBucketsFor,
  takeShared,
} from '../../src/budget/shared-bucket.js';
import { SharedBudget, type SharedBudgetStore } from '../../src/budget/shared-budget.js';
import { createRedisBudgetStore } from '../../src/cluster/redis-budget.js';
import { builtinPlatforms } from '../../src/platforms/all.js';
import { type RunningServer, redisBin, startRedis } from './servers.js';

const slack: BudgetConfig = resolveBudgetConfig(budgetDefaults('slack', builtinPlatforms));
const gchat: BudgetConfig = resolveBudgetConfig(budgetDefaults('gchat', builtinPlatforms));

let redis: RunningServer;
let restarted: ChildProcess | undefined;
const open: SharedBudget[] = [];
const stores: SharedBudgetStore[] = [];

beforeAll(async () => {
  redis = await startRedis();
}, 120_000);

afterAll(async () => {
  restarted?.kill('SIGKILL');
  await redis?.stop();
});

afterEach(async () => {
  for (const budget of open.splice(0)) await budget.stop();
  for (const store of stores.splice(0)) await store.close();
  // A fresh Redis for the next test (same server): every key gone.
  const { Redis } = await import('ioredis');
  const client = new Redis(redis.url);
  await client.flushall();
  await client.quit();
});

/** A store on the test's Redis (its own ioredis client), closed after the test. */
async function storeOn(url = redis.url): Promise<SharedBudgetStore> {
  const store = createRedisBudgetStore({ url, commandTimeoutMs: 2000 });
  stores.push(store);
  await store.connect();
  return store;
}

interface Logged {
  message: string;
  fields?: Record<string, unknown>;
}

/** A process's shared budget on the simulated clock, its log lines kept. */
async function processOn(clock: SimulatedClock, instanceId: string, url = redis.url) {
  const logged: Logged[] = [];
  const budget = new SharedBudget({
    store: createRedisBudgetStore({ url, commandTimeoutMs: 2000 }),
    instanceId,
    clock,
    storeNow: () => clock.now(),
    logger: { warn: (message, fields) => logged.push({ message, ...(fields ? { fields } : {}) }) },
    heartbeatMs: 1000,
  });
  open.push(budget);
  await budget.start();
  return { budget, logged };
}

/** Grants in any window of `windowMs` (half-open), at most. */
function maxInWindow(times: readonly number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  let from = 0;
  for (let to = 0; to < sorted.length; to++) {
    while (sorted[to]! - sorted[from]! >= windowMs) from++;
    most = Math.max(most, to - from + 1);
  }
  return most;
}

/**
 * Both processes ask for a progress token every `stepMs` for `durationMs`
 * (each as often as it is granted: a process with frames to spare). Returns
 * the grant times of each.
 */
async function drive(
  clock: SimulatedClock,
  budgets: readonly SharedBudget[],
  specsOf: (i: number) => SharedBucketSpec[],
  durationMs: number,
  stepMs = 250,
): Promise<number[][]> {
  const grants = budgets.map(() => [] as number[]);
  const start = clock.now();
  for (let step = 0; clock.now() - start < durationMs; step++) {
    // Each asks first in turn, as processes do that are not in step.
    for (let j = 0; j < budgets.length; j++) {
      const i = (j + step) % budgets.length;
      for (let k = 0; k < 5; k++) {
        const { granted } = await budgets[i]!.take(specsOf(i), 1, 'progress');
        if (!granted) break;
        grants[i]!.push(clock.now());
      }
    }
    clock.increment(stepMs);
  }
  return grants;
}

describe('the Lua token bucket (issue 23.5)', () => {
  it('takes what the reference math takes, class by class, as time goes (and back)', async () => {
    const store = await storeOn();
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            dt: fc.integer({ min: -500, max: 4000 }),
            cls: fc.constantFrom<SharedTakeClass>('progress', 'advisory', 'queued', 'terminal'),
            n: fc.integer({ min: 1, max: 3 }),
            channel: fc.constantFrom('spaces/A', 'spaces/B'),
          }),
          { minLength: 1, maxLength: 40 },
        ),
        async (steps) => {
          run += 1;
          const local = new Map<string, SharedBucketState>();
          let now = 1_000_000;
          for (const step of steps) {
            now += step.dt;
            // Fresh keys per run (the app's bucket too): the same keys in Redis and in the map.
            const specs = sharedBucketsFor(gchat, step.channel, 'edit').map((spec) => ({
              ...spec,
              key: `${spec.key}:run${run}`,
            }));
            const expected = takeShared(local, specs, step.n, step.cls, now);
            const got = await store.take(specs, step.n, step.cls, now);
            expect(got).toEqual(expected);
          }
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe('one budget for the app across processes (issue 23.5)', () => {
  it("two processes never exceed Slack's chat.update allowance per minute in sum, and share it", async () => {
    const clock = new SimulatedClock();
    clock.set(10_000_000);
    const a = await processOn(clock, 'host:1');
    const b = await processOn(clock, 'host:2');
    const specs = sharedBucketsFor(slack, 'C0123', 'edit');
    const [ga, gb] = await drive(clock, [a.budget, b.budget], () => specs, 5 * 60_000);
    const all = [...ga!, ...gb!];
    // The app's allowance (50/min less the margin): 45 in any minute, for both together.
    expect(maxInWindow(all, 60_000)).toBeLessThanOrEqual(Math.floor(slack.allowance));
    // Each got a part of it; alone, either would have taken it all (the control below).
    expect(ga!.length).toBeGreaterThan(10);
    expect(gb!.length).toBeGreaterThan(10);
    // And the pair used the allowance: the burst, then the refill (allowance − burst a minute).
    const perMinute = slack.allowance - slack.capacity;
    expect(all.length).toBeGreaterThanOrEqual(Math.floor(slack.capacity - slack.reserve + 4.5 * perMinute));
  });

  it('control: two processes on two Redis key spaces (no sharing) take twice the allowance', async () => {
    // What the test above would see without the shared bucket: each process alone takes a full allowance.
    const clock = new SimulatedClock();
    clock.set(10_000_000);
    const a = await processOn(clock, 'host:1');
    const b = await processOn(clock, 'host:2');
    const specsOf = (i: number) =>
      sharedBucketsFor(slack, 'C0123', 'edit').map((spec) => ({ ...spec, key: `${spec.key}:p${i}` }));
    const [ga, gb] = await drive(clock, [a.budget, b.budget], specsOf, 5 * 60_000);
    expect(maxInWindow([...ga!, ...gb!], 60_000)).toBeGreaterThan(Math.floor(slack.allowance));
  });

  it("Google Chat's 60 writes a minute per space hold for the sum, whatever the project's allowance", async () => {
    const clock = new SimulatedClock();
    clock.set(10_000_000);
    const a = await processOn(clock, 'host:1');
    const b = await processOn(clock, 'host:2');
    const specs = sharedBucketsFor(gchat, 'spaces/AAAA', 'edit');
    expect(specs.map((s) => s.key)).toEqual([
      'turnlog:budget:gchat:app',
      'turnlog:budget:gchat:channel:spaces/AAAA',
    ]);
    const [ga, gb] = await drive(clock, [a.budget, b.budget], () => specs, 3 * 60_000, 100);
    expect(maxInWindow([...ga!, ...gb!], 60_000)).toBeLessThanOrEqual(54);
  });

  it("terminal frames keep their reserve: one process's progress frames never take it from another's answers", async () => {
    const clock = new SimulatedClock();
    clock.set(10_000_000);
    const a = await processOn(clock, 'host:1');
    const b = await processOn(clock, 'host:2');
    const specs = sharedBucketsFor(slack, 'C0123', 'edit');
    // A takes every progress token it can, with no time passing.
    let progress = 0;
    while ((await a.budget.take(specs, 1, 'progress')).granted) progress++;
    expect(progress).toBe(Math.floor(slack.capacity - slack.reserve));
    // B's answers: the whole reserve goes at once…
    const reserve = Math.floor(slack.reserve);
    for (let i = 0; i < reserve; i++) {
      expect(await b.budget.take(specs, 1, 'terminal')).toEqual({ granted: true, waitMs: 0 });
    }
    // …and past it an answer is still taken, booked for when the debt is repaid (never refused).
    const late = await b.budget.take(specs, 1, 'terminal');
    expect(late.granted).toBe(true);
    expect(late.waitMs).toBeGreaterThan(0);
    // Progress waits until the reserve is back, above the debt.
    const refused = await a.budget.take(specs, 1, 'progress');
    expect(refused.granted).toBe(false);
    expect(refused.waitMs).toBeGreaterThan(late.waitMs);
  });

  it('Redis killed mid-run: both fall back to limit ÷ 2 and say so; Redis back: shared again', async () => {
    // Its own Redis, on a port kept for the restart.
    const own = await startRedis();
    const clock = new SimulatedClock();
    clock.set(10_000_000);
    const a = await processOn(clock, 'host:1', own.url);
    const b = await processOn(clock, 'host:2', own.url);
    // A counts B at its next beat.
    await a.budget.heartbeat();
    expect([a.budget.mode(), b.budget.mode()]).toEqual(['shared', 'shared']);
    expect([a.budget.liveProcesses(), b.budget.liveProcesses()]).toEqual([2, 2]);
    const specs = sharedBucketsFor(slack, 'C0123', 'edit');
    await drive(clock, [a.budget, b.budget], () => specs, 60_000);

    await own.stop();
    // The next take finds Redis gone (or the connection's close already said so): the fallback, at once.
    const [ga, gb] = await drive(clock, [a.budget, b.budget], () => specs, 5 * 60_000);
    expect([a.budget.mode(), b.budget.mode()]).toEqual(['local-fallback', 'local-fallback']);
    // Each keeps half of the allowance: the sum stays within it.
    for (const grants of [ga!, gb!]) {
      expect(maxInWindow(grants, 60_000)).toBeLessThanOrEqual(Math.floor(slack.allowance / 2));
      expect(grants.length).toBeGreaterThan(0);
    }
    expect(maxInWindow([...ga!, ...gb!], 60_000)).toBeLessThanOrEqual(Math.floor(slack.allowance));
    // Answers never stop: a terminal frame is always taken.
    expect((await a.budget.take(specs, 1, 'terminal')).granted).toBe(true);
    // One log line for the change, naming the mode and the count.
    const fallbackLines = a.logged.filter((line) => line.fields?.budget === 'local-fallback');
    expect(fallbackLines).toHaveLength(1);
    expect(fallbackLines[0]!.message).toMatch(/1\/2 of each limit/);

    // Redis back on the same port: both reconnect and share again.
    const dir = mkdtempSync(join(tmpdir(), 'turnlog-redis-again-'));
    restarted = spawn(
      redisBin(),
      ['--port', String(own.port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    );
    try {
      await vi.waitFor(
        () => {
          expect([a.budget.mode(), b.budget.mode()]).toEqual(['shared', 'shared']);
        },
        { timeout: 30_000, interval: 50 },
      );
      // One line at start (shared), one on the loss, one on the return.
      expect(a.logged.map((line) => line.fields?.budget)).toEqual(['shared', 'local-fallback', 'shared']);
      const [sa, sb] = await drive(clock, [a.budget, b.budget], () => specs, 3 * 60_000);
      expect(maxInWindow([...sa!, ...sb!], 60_000)).toBeLessThanOrEqual(Math.floor(slack.allowance));
    } finally {
      for (const budget of open.splice(0)) await budget.stop();
      restarted.kill('SIGKILL');
      restarted = undefined;
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
