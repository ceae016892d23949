/**
 * `npm run bench -- cluster` (issue 23 item 7): 1, 2 and 3 `turnlog serve`
 * processes on one real Postgres and one Redis (test/cluster/servers.ts),
 * the same load through the Google Chat emulator (its per-space quota of 60
 * writes a minute in force), side by side in one run:
 *
 * - events/s accepted: 16 senders in a closed loop, each POSTing 10 `note`
 *   events (one request) to a process picked at random, for 15 s, over 8
 *   spaces (one live turn each); an event counts once its 202 came;
 * - p95 from an event's send to the first emulator write showing its line;
 * - 429s the emulator answered;
 * - failover (2 and 3 processes): kill -9 of the owner of a live turn, to
 *   the first write from the new owner showing a line sent after the kill
 *   (lease `cluster.leaseMs` = 5000 here);
 * - duplicates and losses: every accepted eventId is in the store's run
 *   record exactly once.
 *
 * Prints the ratio of 2 (and 3) processes' events/s to 1's.
 */
import { cpus } from 'node:os';
import pg from 'pg';
import { startGchatEmulator } from '../src/emulators/gchat/index.js';
import {
  type ClusterNode,
  clusterConfigFile,
  kill9,
  ownerOf,
  postEvents,
  startNode,
} from '../test/cluster/cluster-nodes.js';
import { startPostgres, startRedis } from '../test/cluster/servers.js';
import { count, printTable, progress } from './runtime/report.js';

const SPACES = 8;
const SENDERS = 16;
const BATCH = 10;
const LOAD_MS = 15_000;
const LEASE_MS = 5_000;

interface Result {
  processes: number;
  accepted: number;
  eventsPerS: number;
  p95Ms: number;
  landed: number;
  probes: number;
  rateLimited: number;
  failoverMs: number | undefined;
  duplicates: number;
  losses: number;
}

async function until<T>(check: () => T | Promise<T>, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`${what}: ${String(error)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

async function runWith(processes: number, postgresUrl: string, redisUrl: string): Promise<Result> {
  const cleanups: (() => Promise<void> | void)[] = [];
  const emulator = await startGchatEmulator({});
  cleanups.push(() => emulator.close());
  const database = `bench_cluster_${processes}_${process.pid}`;
  const admin = new pg.Client({ connectionString: postgresUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${database}`);
  await admin.end();
  const url = new URL(postgresUrl);
  url.pathname = `/${database}`;
  try {
    const config = clusterConfigFile(url.href, { gchat: { apiUrl: emulator.url } }, cleanups, {
      leaseMs: LEASE_MS,
      redisUrl,
      logLevel: 'warn',
    });
    const nodes = await Promise.all(
      Array.from({ length: processes }, (_, i) => startNode(`node${i + 1}`, config, cleanups)),
    );
    const pick = () => nodes[Math.floor(Math.random() * nodes.length)] as ClusterNode;
    const spaces = Array.from({ length: SPACES }, (_, i) => `gchat:spaces/BENCH${i}`);
    for (const space of spaces)
      await postEvents(pick(), [{ space, type: 'turn_started', turnId: `T-${space}` }]);

    // The load: a closed loop of senders; each request's last event is a probe (its send time kept).
    const sentAt = new Map<number, number>();
    const accepted: string[] = [];
    let next = 0;
    const started = Date.now();
    const sender = async () => {
      while (Date.now() - started < LOAD_MS) {
        const space = spaces[Math.floor(Math.random() * spaces.length)] as string;
        const ids = Array.from({ length: BATCH }, () => ++next);
        const at = Date.now();
        const status = await postEvents(
          pick(),
          ids.map((id) => ({
            space,
            type: 'note',
            turnId: `T-${space}`,
            text: `ev-${id}.`,
            eventId: `e${id}`,
          })),
        );
        if (status === 202) {
          accepted.push(...ids.map((id) => `e${id}`));
          sentAt.set(ids[BATCH - 1] as number, at);
        }
      }
    };
    await Promise.all(Array.from({ length: SENDERS }, sender));
    const elapsedS = (Date.now() - started) / 1000;
    for (const space of spaces)
      await postEvents(pick(), [{ space, type: 'turn_ended', turnId: `T-${space}`, outcome: 'ok' }]);

    // Every accepted event is in the run record once (after the owners applied the inbox).
    const client = new pg.Client({ connectionString: url.href });
    await client.connect();
    const recorded = await until(
      async () => {
        const { rows } = await client.query<{ id: string; n: string }>(
          `SELECT (event::jsonb)->>'eventId' AS id, count(*) AS n FROM turnlog.events WHERE type = 'note' GROUP BY 1`,
        );
        const { rows: pending } = await client.query<{ n: string }>(
          'SELECT count(*) AS n FROM turnlog.turnlog_cluster_inbox WHERE applied_at IS NULL',
        );
        if (Number(pending[0]?.n) > 0) throw new Error(`${pending[0]?.n} inbox rows pending`);
        return new Map(rows.map((r) => [r.id, Number(r.n)]));
      },
      120_000,
      'the owners applying every accepted event',
    );
    await client.end();
    const duplicates = [...recorded.values()].filter((n) => n > 1).length;
    const losses = accepted.filter((id) => !recorded.has(id)).length;

    // p95 send → first write showing the probe's line (once the frames drained).
    const firstShown = new Map<number, number>();
    await until(
      () => {
        const ended = emulator.state
          .calls()
          .filter((c) => c.op === 'update' && (c.text ?? '').includes('✅'));
        if (ended.length < SPACES) throw new Error(`${ended.length} of ${SPACES} logs closed`);
      },
      180_000,
      'every log closed',
    ).catch(() => undefined);
    for (const call of emulator.state.calls()) {
      if (call.op !== 'create' && call.op !== 'update') continue;
      for (const match of (call.text ?? '').matchAll(/ev-(\d+)\./g)) {
        const id = Number(match[1]);
        if (sentAt.has(id) && !firstShown.has(id)) firstShown.set(id, call.at);
      }
    }
    const latencies = [...firstShown]
      .map(([id, at]) => at - (sentAt.get(id) as number))
      .sort((a, b) => a - b);
    const p95Ms = latencies[Math.floor(latencies.length * 0.95)] ?? Number.NaN;
    const rateLimited = emulator.state.calls().filter((c) => c.status === 429).length;

    let failoverMs: number | undefined;
    if (processes > 1) {
      const space = 'gchat:spaces/BENCHFAILOVER';
      await postEvents(pick(), [
        { space, type: 'turn_started', turnId: 'FO' },
        { space, type: 'note', turnId: 'FO', text: 'before-kill' },
      ]);
      await until(
        () => {
          if (!emulator.state.calls().some((c) => (c.text ?? '').includes('before-kill')))
            throw new Error('not yet');
        },
        60_000,
        'the failover turn landing',
      );
      const owner = await until(() => ownerOf(nodes, space), 60_000, 'an owner');
      const survivor = nodes.find((n) => n !== owner) as ClusterNode;
      const killedAt = Date.now();
      await kill9(owner);
      await postEvents(survivor, [{ space, type: 'note', turnId: 'FO', text: 'after-kill' }]);
      const landed = await until(
        () => {
          const call = emulator.state.calls().find((c) => (c.text ?? '').includes('after-kill'));
          if (!call) throw new Error('not yet');
          return call;
        },
        60_000,
        'the new owner editing',
      );
      failoverMs = landed.at - killedAt;
    }
    return {
      processes,
      accepted: accepted.length,
      eventsPerS: accepted.length / elapsedS,
      p95Ms,
      landed: firstShown.size,
      probes: sentAt.size,
      rateLimited,
      failoverMs,
      duplicates,
      losses,
    };
  } finally {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  }
}

export default async function run(): Promise<void> {
  const postgres = await startPostgres();
  const redis = await startRedis();
  const results: Result[] = [];
  try {
    for (const processes of [1, 2, 3]) {
      progress(`cluster: ${processes} process(es)…`);
      results.push(await runWith(processes, postgres.url, redis.url));
    }
  } finally {
    await redis.stop();
    await postgres.stop();
  }
  const base = results[0]?.eventsPerS ?? Number.NaN;
  console.log(
    `${SENDERS} senders × ${BATCH} events a request, ${LOAD_MS / 1000} s, ${SPACES} spaces, Google Chat emulator (60 writes/min per space); leaseMs ${LEASE_MS}; ${cpus().length} cores for Postgres, Redis, the emulator, this driver and the serve processes.`,
  );
  printTable(
    [
      'processes',
      'accepted',
      'events/s',
      'vs 1',
      'p95 event→frame ms',
      'probes landed',
      '429s',
      'failover ms',
      'duplicates',
      'losses',
    ],
    results.map((r) => [
      String(r.processes),
      count(r.accepted),
      count(r.eventsPerS),
      `${(r.eventsPerS / base).toFixed(2)}×`,
      count(r.p95Ms),
      `${r.landed}/${r.probes}`,
      String(r.rateLimited),
      r.failoverMs === undefined ? '–' : count(r.failoverMs),
      String(r.duplicates),
      String(r.losses),
    ]),
  );
}
