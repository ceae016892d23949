/**
 * Issue 23 item 5, end to end through two runtimes (two budget actors, each
 * with its own ioredis client, as two processes of one Slack app) on one real
 * redis-server: busy turns in both keep Slack's `chat.update` limit of 50 a
 * minute for the app *in sum* (without the shared budget each process spends
 * its own 45 and the app goes over: the control), every answer lands; and
 * with `cluster.redisUrl` the runtime reports its budget mode, `/healthz`
 * shows it (`cluster.budget`), and a Redis that dies turns it to
 * `local-fallback` while answers keep landing.
 * Simulated clock; the only waits are for Redis's answers (`idle()`) and
 * `vi.waitFor` on a condition.
 */
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SimulatedClock } from 'xstate';
import { SharedBudget } from '../../src/budget/shared-budget.js';
import { createRedisBudgetStore } from '../../src/cluster/redis-budget.js';
import { builtinPlatforms } from '../../src/platforms/all.js';
import { createRuntime, type Runtime } from '../../src/runtime.js';
import { startIngestServer } from '../../src/serve/http.js';
import { createMemorySurface, type MemorySurface } from '../../src/testing/memory-surface.js';
import { settle } from '../runtime/runtime.helpers.js';
import { type RunningServer, startRedis } from './servers.js';

const SLACK_UPDATES_PER_MINUTE = 50;

let redis: RunningServer;
beforeAll(async () => {
  redis = await startRedis();
}, 120_000);
afterAll(async () => {
  await redis?.stop();
});

interface Process {
  runtime: Runtime;
  surface: MemorySurface;
  shared: SharedBudget | undefined;
  warnings: string[];
}

function startProcess(clock: SimulatedClock, name: string, shared: boolean, url = redis.url): Process {
  const warnings: string[] = [];
  const logger = {
    warn: (m: string) => warnings.push(m),
    error: (m: string) => warnings.push(`error: ${m}`),
  };
  const budget = shared
    ? new SharedBudget({
        store: createRedisBudgetStore({ url, commandTimeoutMs: 2000 }),
        instanceId: name,
        clock,
        storeNow: () => clock.now(),
        logger,
      })
    : undefined;
  const surface = createMemorySurface({ platform: 'slack', now: () => clock.now() });
  const runtime = createRuntime({
    platforms: builtinPlatforms,
    surfaces: { slack: surface },
    clock,
    logger,
    ...(budget ? { sharedBudget: budget } : {}),
  });
  return { runtime, surface, shared: budget, warnings };
}

/** Steps the clock, letting each runtime's promises and Redis's answers settle between steps. */
async function advance(clock: SimulatedClock, processes: Process[], ms: number): Promise<void> {
  for (let left = ms; left > 0; left -= 100) {
    clock.increment(Math.min(100, left));
    for (let round = 0; round < 3; round++) {
      await settle();
      await Promise.all(processes.map((p) => p.shared?.idle()));
    }
  }
}

/** Writes in any 60 s (half-open), at most. */
function maxPerMinute(times: number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  let from = 0;
  for (let to = 0; to < sorted.length; to++) {
    while (sorted[to]! - sorted[from]! >= 60_000) from++;
    most = Math.max(most, to - from + 1);
  }
  return most;
}

/** Four busy turns in each process's own channels for two minutes, then their answers. */
async function busyApp(shared: boolean): Promise<{ updates: number[]; answers: boolean[] }> {
  const clock = new SimulatedClock();
  clock.set(50_000_000);
  const processes = [startProcess(clock, 'host:1', shared), startProcess(clock, 'host:2', shared)];
  await Promise.all(processes.map((p) => p.runtime.ready));
  const turns = processes.flatMap((p, i) =>
    [0, 1, 2, 3].map((t) => ({ p, turnId: `P${i}T${t}`, space: `slack:C0${i}${t}` })),
  );
  for (const { p, turnId, space } of turns) {
    const root = p.surface.inbound({ space, text: `question ${turnId}` });
    p.runtime.ingest({
      type: 'inbound',
      space,
      messageId: root.messageId,
      threadId: root.threadId,
      ref: turnId,
    });
    p.runtime.ingest({ type: 'turn_started', space, turnId, rootRef: turnId });
  }
  for (let step = 0; step < 240; step++) {
    for (const { p, turnId, space } of turns) {
      const callId = `${turnId}-${step}`;
      p.runtime.ingest({
        type: 'tool_call',
        space,
        turnId,
        callId,
        tool: 'Read',
        input: { path: `f${step}.ts` },
      });
      p.runtime.ingest({ type: 'tool_result', space, turnId, callId, tool: 'Read', ok: true, output: 'ok' });
    }
    await advance(clock, processes, 500);
  }
  for (const { p, turnId, space } of turns) {
    p.runtime.ingest({ type: 'answer', space, turnId, text: `answer of ${turnId}.` });
    p.runtime.ingest({ type: 'turn_ended', space, turnId, outcome: 'ok' });
  }
  await advance(clock, processes, 3 * 60_000);
  const calls = processes.flatMap((p) => p.surface.calls);
  const updates = calls.filter((c) => c.op === 'update' && c.status < 300).map((c) => c.at);
  const answers = turns.map(({ turnId }) =>
    calls.some((c) => c.op === 'create' && c.status < 300 && (c.text ?? '').includes(`answer of ${turnId}.`)),
  );
  for (const p of processes) {
    await p.runtime.stop();
    await p.shared?.stop();
  }
  return { updates, answers };
}

describe('two runtimes of one Slack app on one Redis (issue 23.5)', () => {
  it("keep chat.update within the app's 50 a minute in sum, and every answer lands", async () => {
    const { updates, answers } = await busyApp(true);
    expect(answers.every(Boolean)).toBe(true);
    expect(updates.length).toBeGreaterThan(60);
    expect(maxPerMinute(updates)).toBeLessThanOrEqual(SLACK_UPDATES_PER_MINUTE);
  }, 180_000);

  it('control: without the shared budget the same load goes over the app limit', async () => {
    const { updates } = await busyApp(false);
    expect(maxPerMinute(updates)).toBeGreaterThan(SLACK_UPDATES_PER_MINUTE);
  }, 180_000);

  it('cluster.redisUrl: budgetMode and /healthz say shared, then local-fallback once Redis dies; answers still land', async () => {
    const own = await startRedis();
    const clock = new SimulatedClock();
    clock.set(50_000_000);
    const warnings: string[] = [];
    const surface = createMemorySurface({ platform: 'slack', now: () => clock.now() });
    const runtime = createRuntime({
      platforms: builtinPlatforms,
      surfaces: { slack: surface },
      clock,
      config: { cluster: { redisUrl: own.url } },
      logger: { warn: (m) => warnings.push(m), error: (m) => warnings.push(`error: ${m}`) },
    });
    await runtime.ready;
    const server = await startIngestServer({
      runtime,
      surfaces: { slack: surface },
      host: '127.0.0.1',
      port: 0,
      bodyLimitBytes: 1 << 20,
      deadLetter: () => undefined,
      logger: pino({ level: 'silent' }),
      budgetMode: () => runtime.budgetMode(),
    });
    const health = async () => (await fetch(`${server.url}/healthz`)).json();
    try {
      expect(runtime.budgetMode()).toBe('shared');
      expect(await health()).toEqual({ ok: true, cluster: { budget: 'shared' } });

      await own.stop();
      await vi.waitFor(() => expect(runtime.budgetMode()).toBe('local-fallback'), { timeout: 30_000 });
      expect(await health()).toEqual({ ok: true, cluster: { budget: 'local-fallback' } });
      expect(warnings.filter((w) => /out of reach/.test(w))).toHaveLength(1);

      // A turn and its answer, with Redis gone.
      const root = surface.inbound({ space: 'slack:C0999', text: 'question' });
      const space = 'slack:C0999';
      runtime.ingest({
        type: 'inbound',
        space,
        messageId: root.messageId,
        threadId: root.threadId,
        ref: 'u',
      });
      runtime.ingest({ type: 'turn_started', space, turnId: 'T1', rootRef: 'u' });
      runtime.ingest({
        type: 'tool_call',
        space,
        turnId: 'T1',
        callId: 'c',
        tool: 'Read',
        input: { path: 'a' },
      });
      runtime.ingest({ type: 'answer', space, turnId: 'T1', text: 'the answer, Redis or not.' });
      runtime.ingest({ type: 'turn_ended', space, turnId: 'T1', outcome: 'ok' });
      for (let i = 0; i < 600; i++) {
        clock.increment(100);
        await settle();
      }
      expect(surface.calls.some((c) => (c.text ?? '').includes('the answer, Redis or not.'))).toBe(true);
    } finally {
      server.closeAllConnections();
      await server.close();
      await runtime.stop();
    }
  }, 120_000);

  it('without cluster.redisUrl there is no shared budget and /healthz has no cluster.budget', async () => {
    const surface = createMemorySurface({ platform: 'slack' });
    const runtime = createRuntime({ platforms: builtinPlatforms, surfaces: { slack: surface } });
    await runtime.ready;
    expect(runtime.budgetMode()).toBeUndefined();
    await runtime.stop();
  });
});
