/**
 * Issue 23 item 5: the runtime's shared budget from `cluster.redisUrl`, or
 * none. ioredis is loaded only when the budget starts (createRedisBudgetStore).
 */
import { hostname } from 'node:os';
import type { SharedBudgetLogger } from '../budget/shared-budget.js';
import { SharedBudget } from '../budget/shared-budget.js';
import type { Clock } from '../clock.js';
import { createRedisBudgetStore } from './redis-budget.js';

/** Instances created in this process so far: each runtime counts as its own process in the heartbeats. */
let instancesHere = 0;

/** `<hostname>:<pid>` (docs/http-api.md (several instances)), `#n` for a further runtime in the same process. */
export function defaultInstanceId(): string {
  instancesHere += 1;
  const base = `${hostname()}:${process.pid}`;
  return instancesHere === 1 ? base : `${base}#${instancesHere}`;
}

export function createSharedBudget(
  cluster: { redisUrl?: string | undefined; instanceId?: string | undefined },
  deps: {
    clock: Clock;
    logger: SharedBudgetLogger;
    /** The runtime runs on a simulated clock (tests): the shared buckets are judged at its time, not Redis's. */
    simulated: boolean;
  },
): SharedBudget | undefined {
  if (cluster.redisUrl === undefined) return undefined;
  return new SharedBudget({
    store: createRedisBudgetStore({ url: cluster.redisUrl }),
    instanceId: cluster.instanceId ?? defaultInstanceId(),
    clock: deps.clock,
    logger: deps.logger,
    ...(deps.simulated ? { storeNow: () => deps.clock.now() } : {}),
  });
}
