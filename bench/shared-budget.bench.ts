/**
 * `npm run bench -- shared-budget` (issue 23 item 5): where should the app's
 * shared budget live, Redis or Postgres? One take of a token, side by side
 * in one run, on real local servers started for the bench
 * (test/cluster/servers.ts):
 *
 * - Redis: the Lua token bucket (src/cluster/redis-budget.ts, TAKE_SCRIPT)
 *   through ioredis, judged on Redis TIME, as in production;
 * - Postgres: the same bucket as one row, refilled and taken by one
 *   `UPDATE … RETURNING` (the row lock serializes the takers), judged on
 *   clock_timestamp(), through `pg`.
 *
 * Every take hits the one app-wide bucket (the hot key every process shares)
 * with a rate high enough that every take is granted: this measures the cost
 * of a take, not the limit. Reported: grants/s and the latency of one take
 * (p50, p95), with 1 caller, and with 8 callers on 8 connections at once (8
 * processes of one app). Ratios are Postgres ÷ Redis.
 */
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import type { SharedBucketSpec } from '../src/budget/shared-bucket.js';
import { createRedisBudgetStore } from '../src/cluster/redis-budget.js';
import { startPostgres, startRedis } from '../test/cluster/servers.js';

const SPEC: SharedBucketSpec = {
  key: 'turnlog:budget:bench:app',
  // Effectively unlimited: every take is granted, so only the take's own cost is measured.
  ratePerMs: 1e9,
  capacity: 1e12,
  reserve: 0,
};
const WARMUP = 300;
const TAKES_ALONE = 4000;
const CALLERS = 8;
const TAKES_EACH = 1500;

const PG_SCHEMA = `
CREATE TABLE IF NOT EXISTS budget_buckets (
  key text PRIMARY KEY,
  level double precision NOT NULL,
  at double precision NOT NULL
)`;

/** One take, progress class: refill by elapsed time, take one if the reserve stays; granted and the level back. */
const PG_TAKE = `
WITH now AS (SELECT extract(epoch FROM clock_timestamp()) * 1000 AS t),
b AS (
  SELECT key,
         least($2::float8, level + greatest(0, (SELECT t FROM now) - at) * $3::float8) AS lvl,
         greatest(at, (SELECT t FROM now)) AS t
  FROM budget_buckets WHERE key = $1 FOR UPDATE
)
UPDATE budget_buckets u
   SET level = CASE WHEN b.lvl >= $4::float8 + 1 THEN b.lvl - 1 ELSE b.lvl END, at = b.t
  FROM b WHERE u.key = b.key
RETURNING (b.lvl >= $4::float8 + 1) AS granted, u.level`;

type Take = () => Promise<boolean>;

interface Result {
  grantsPerS: number;
  p50: number;
  p95: number;
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

/** `callers` loops of `each` takes at once; every take timed. */
async function measure(takes: Take[], each: number): Promise<Result> {
  for (const take of takes) for (let i = 0; i < WARMUP / takes.length; i++) await take();
  const latencies: number[] = [];
  let granted = 0;
  const started = performance.now();
  await Promise.all(
    takes.map(async (take) => {
      for (let i = 0; i < each; i++) {
        const t0 = performance.now();
        if (await take()) granted++;
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  if (granted !== takes.length * each)
    throw new Error(`bench: ${takes.length * each - granted} takes refused`);
  return { grantsPerS: granted / seconds, p50: percentile(latencies, 50), p95: percentile(latencies, 95) };
}

export default async function run(): Promise<void> {
  const redis = await startRedis();
  const postgres = await startPostgres();
  const redisStores = Array.from({ length: CALLERS }, () => createRedisBudgetStore({ url: redis.url }));
  const pool = new pg.Pool({ connectionString: postgres.url, max: CALLERS });
  try {
    for (const store of redisStores) await store.connect();
    await pool.query(PG_SCHEMA);
    await pool.query(
      'INSERT INTO budget_buckets (key, level, at) VALUES ($1, $2, 0) ON CONFLICT (key) DO NOTHING',
      [SPEC.key, SPEC.capacity],
    );
    const clients = await Promise.all(Array.from({ length: CALLERS }, () => pool.connect()));
    const redisTake =
      (i: number): Take =>
      async () =>
        (await redisStores[i]!.take([SPEC], 1, 'progress')).granted;
    const pgTake =
      (i: number): Take =>
      async () => {
        const { rows } = await clients[i]!.query(PG_TAKE, [
          SPEC.key,
          SPEC.capacity,
          SPEC.ratePerMs,
          SPEC.reserve,
        ]);
        return rows[0]?.granted === true;
      };
    const rows: { case: string; redis: Result; postgres: Result }[] = [];
    rows.push({
      case: '1 caller',
      redis: await measure([redisTake(0)], TAKES_ALONE),
      postgres: await measure([pgTake(0)], TAKES_ALONE),
    });
    const many = Array.from({ length: CALLERS }, (_, i) => i);
    rows.push({
      case: `${CALLERS} callers, one hot bucket`,
      redis: await measure(many.map(redisTake), TAKES_EACH),
      postgres: await measure(many.map(pgTake), TAKES_EACH),
    });
    for (const client of clients) client.release();

    const ms = (v: number) => `${v.toFixed(3)} ms`;
    console.log('| case | store | grants/s | p50 take | p95 take |');
    console.log('|---|---|---:|---:|---:|');
    for (const row of rows) {
      for (const [name, r] of [
        ['Redis (Lua)', row.redis],
        ['Postgres (UPDATE … RETURNING)', row.postgres],
      ] as const) {
        console.log(`| ${row.case} | ${name} | ${Math.round(r.grantsPerS)} | ${ms(r.p50)} | ${ms(r.p95)} |`);
      }
      console.log(
        `| ${row.case} | Postgres ÷ Redis | ${(row.postgres.grantsPerS / row.redis.grantsPerS).toFixed(2)}× | ${(row.postgres.p50 / row.redis.p50).toFixed(2)}× | ${(row.postgres.p95 / row.redis.p95).toFixed(2)}× |`,
      );
    }
  } finally {
    for (const store of redisStores) await store.close();
    await pool.end();
    await redis.stop();
    await postgres.stop();
  }
}
