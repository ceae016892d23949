/**
 * Issue 23 item 5: the shared budget's store on Redis (`cluster.redisUrl`).
 * One Lua script per take (TAKE_SCRIPT), so the check and the take of every
 * bucket a write counts in are one atomic step whatever the number of
 * processes; it refills each bucket by the time elapsed on Redis's own clock
 * (`TIME`: one clock for every process), or at the time it is given (tests
 * drive a simulated clock). The same math as `takeShared`
 * (src/budget/shared-bucket.ts), which the tests hold it to.
 *
 * ioredis is loaded only here, and only when a store is created with a URL
 * (a dynamic import): `import('turnlog')` never loads it.
 */

import type { SharedBucketSpec, SharedTakeClass, SharedTakeResult } from '../budget/shared-bucket.js';
import type { SharedBudgetStore } from '../budget/shared-budget.js';

/**
 * KEYS: the buckets. ARGV[1] n, ARGV[2] class, ARGV[3] now in ms ('' for
 * Redis TIME), then per bucket: tokens per ms, capacity, reserve. Each bucket
 * is a hash {level, at}; it expires once it would be full again. Returns
 * {granted (0|1), wait ms}.
 */
export const TAKE_SCRIPT = `
local n = tonumber(ARGV[1])
local class = ARGV[2]
local now = tonumber(ARGV[3])
if now == nil then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local levels, stamps = {}, {}
local wait = 0
for i, key in ipairs(KEYS) do
  local base = 3 + (i - 1) * 3
  local rate, cap, reserve = tonumber(ARGV[base + 1]), tonumber(ARGV[base + 2]), tonumber(ARGV[base + 3])
  local state = redis.call('HMGET', key, 'level', 'at')
  local level, at = tonumber(state[1]), tonumber(state[2])
  if level == nil or at == nil then
    level, at = cap, now
  elseif now > at then
    if level < cap then level = math.min(cap, level + (now - at) * rate) end
    at = now
  end
  levels[i], stamps[i] = level, at
  if class ~= 'terminal' then
    local need = n
    if class ~= 'queued' then need = reserve + n end
    if level < need then wait = math.max(wait, math.ceil((need - level) / rate)) end
  end
end
local granted = 1
if class ~= 'terminal' and wait > 0 then granted = 0 end
for i, key in ipairs(KEYS) do
  local base = 3 + (i - 1) * 3
  local rate, cap = tonumber(ARGV[base + 1]), tonumber(ARGV[base + 2])
  local level = levels[i]
  if granted == 1 then level = level - n end
  if class == 'terminal' and level < 0 then wait = math.max(wait, math.ceil(-level / rate)) end
  redis.call('HSET', key, 'level', string.format('%.17g', level), 'at', string.format('%.17g', stamps[i]))
  redis.call('PEXPIRE', key, math.ceil((cap - level) / rate) + 1000)
end
return {granted, wait}
`;

/** KEYS[1] the live set; ARGV: instance id, ttl ms, now ('' for Redis TIME). Returns the instances seen within the ttl. */
export const HEARTBEAT_SCRIPT = `
local now = tonumber(ARGV[3])
if now == nil then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local ttl = tonumber(ARGV[2])
redis.call('ZADD', KEYS[1], now, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. (now - ttl))
redis.call('PEXPIRE', KEYS[1], ttl * 2)
return redis.call('ZCARD', KEYS[1])
`;

export const LIVE_KEY = 'turnlog:budget:live';

/** The few ioredis calls used, so the type is known without loading it. */
interface RedisClient {
  connect(): Promise<void>;
  quit(): Promise<unknown>;
  disconnect(): void;
  on(event: string, listener: (...args: unknown[]) => void): unknown;
  defineCommand(name: string, definition: { lua: string }): void;
  status: string;
}
type Scripted = RedisClient & {
  turnlogTake(numKeys: number, ...args: (string | number)[]): Promise<[number, number]>;
  turnlogHeartbeat(numKeys: number, ...args: (string | number)[]): Promise<number>;
};

export interface RedisBudgetStoreOptions {
  url: string;
  /** A command unanswered within this is a failure (the fallback then). Default 500 ms. */
  commandTimeoutMs?: number;
}

/** Redis URL with its password hidden, for logs. */
export function redactRedisUrl(url: string): string {
  return url.replace(/\/\/([^@/]*)@/, '//***@');
}

/** The shared budget's store on Redis; connects on `connect()` (ioredis loaded then). */
export function createRedisBudgetStore(opts: RedisBudgetStoreOptions): SharedBudgetStore {
  if (!/^rediss?:\/\//.test(opts.url)) {
    throw new Error(
      `cluster.redisUrl must be a redis:// or rediss:// URL, got ${JSON.stringify(redactRedisUrl(opts.url))}`,
    );
  }
  let client: Scripted | undefined;
  let closed = false;
  const listeners: ((up: boolean, reason?: string) => void)[] = [];
  const need = (): Scripted => {
    if (client === undefined || closed) throw new Error('the Redis budget store is not connected');
    return client;
  };
  const nowArg = (now: number | undefined) => (now === undefined ? '' : String(now));
  return {
    async connect() {
      const { Redis } = await import('ioredis');
      const redis = new Redis(opts.url, {
        lazyConnect: true,
        // Out of reach: fail at once (the fallback takes over), never queue a take for later.
        enableOfflineQueue: false,
        maxRetriesPerRequest: 0,
        commandTimeout: opts.commandTimeoutMs ?? 500,
        connectTimeout: 2000,
        retryStrategy: (times: number) => Math.min(100 * 2 ** Math.min(times, 5), 2000),
      }) as unknown as Scripted;
      redis.defineCommand('turnlogTake', { lua: TAKE_SCRIPT });
      redis.defineCommand('turnlogHeartbeat', { lua: HEARTBEAT_SCRIPT });
      // Errors also come as 'close'; without a listener ioredis would print each one.
      redis.on('error', () => undefined);
      redis.on('ready', () => {
        for (const listener of listeners) listener(true);
      });
      redis.on('close', () => {
        if (!closed)
          for (const listener of listeners)
            listener(false, `Redis connection to ${redactRedisUrl(opts.url)} closed`);
      });
      client = redis;
      await redis.connect();
    },
    async take(
      specs: readonly SharedBucketSpec[],
      n: number,
      cls: SharedTakeClass,
      now?: number,
    ): Promise<SharedTakeResult> {
      const args: (string | number)[] = [n, cls, nowArg(now)];
      for (const spec of specs) args.push(spec.ratePerMs, spec.capacity, spec.reserve);
      const [granted, waitMs] = await need().turnlogTake(specs.length, ...specs.map((s) => s.key), ...args);
      return { granted: granted === 1, waitMs: Number(waitMs) };
    },
    async heartbeat(instanceId: string, ttlMs: number, now?: number): Promise<number> {
      return Number(await need().turnlogHeartbeat(1, LIVE_KEY, instanceId, ttlMs, nowArg(now)));
    },
    onConnection(listener) {
      listeners.push(listener);
    },
    async close() {
      closed = true;
      const redis = client;
      if (redis === undefined) return;
      if (redis.status === 'ready') await redis.quit().catch(() => redis.disconnect());
      else redis.disconnect();
    },
  };
}
