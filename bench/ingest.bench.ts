/**
 * `npm run bench -- ingest`: the HTTP ingest (`POST /v1/events`, src/serve)
 * under 1 and 50 concurrent senders on 127.0.0.1, one event (a tool call) per
 * request on a keep-alive connection per sender (a new turn every 20). The runtime behind it runs
 * on a simulated clock nobody advances, so no timer fires and nothing reaches
 * the surface: what is measured is the way in (HTTP, parse, redact, sequence,
 * route to the turn).
 *
 * With 50 senders half start at once and half join 0.5 s later; the first
 * 202 of a late joiner is reported apart, to see whether a new connection
 * waits behind the established ones. Wall time is the measure here (it is a
 * latency); run it on a quiet machine. Main (bench/runtime/baseline.ts: its
 * server and runtime) runs the same cases first, in the same process, and
 * the process's RSS is sampled during each case and after it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import type { createRuntime } from '../src/runtime.js';
import { startIngestServer } from '../src/serve/http.js';
import { createSqliteStore } from '../src/store/sqlite.js';
import { loadBaseline } from './runtime/baseline.js';
import { startBenchRuntime } from './runtime/harness.js';
import { count, cpuSeconds, printTable, progress } from './runtime/report.js';
import { forgetfulSurface } from './runtime/surfaces.js';

interface Sender {
  agent: Agent;
  latencies: number[];
}

function post(url: URL, agent: Agent, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = request(
      url,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        res.on('end', () => {
          if (res.statusCode !== 202) reject(new Error(`ingest bench: got ${res.statusCode}`));
          else resolve(performance.now() - started);
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Requests per turn: a turn_started, then tool calls. */
const TURN_EVENTS = 20;

const percentile = (sorted: readonly number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;

const MIB = 1024 * 1024;
const rssMib = () => process.memoryUsage().rss / MIB;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Build {
  name: string;
  createRuntime?: typeof createRuntime;
  platforms?: unknown;
  startIngestServer: typeof startIngestServer;
}

async function runCase(
  build: Build,
  senders: number,
  requestsEach: number,
  store: 'memory' | 'sqlite' = 'memory',
) {
  const dir = store === 'sqlite' ? mkdtempSync(join(tmpdir(), 'turnlog-bench-ingest-')) : undefined;
  const sqlite = dir ? createSqliteStore({ path: join(dir, 'turnlog.db') }) : undefined;
  const rssBefore = rssMib();
  let rssPeak = rssBefore;
  const sampler = setInterval(() => {
    rssPeak = Math.max(rssPeak, rssMib());
  }, 50);
  const bench = await startBenchRuntime(forgetfulSurface(), {
    ...(build.createRuntime ? { createRuntime: build.createRuntime, platforms: build.platforms } : {}),
    ...(sqlite ? { store: sqlite } : {}),
  });
  const server = await build.startIngestServer({
    runtime: bench.runtime,
    surfaces: { gchat: bench.surface },
    host: '127.0.0.1',
    port: 0,
    bodyLimitBytes: 1 << 20,
    deadLetter: () => {},
    logger: pino({ level: 'silent' }),
  });
  const url = new URL('/v1/events', server.url);
  const all: Sender[] = Array.from({ length: senders }, () => ({
    agent: new Agent({ keepAlive: true, maxSockets: 1 }),
    latencies: [],
  }));
  const cpuStart = cpuSeconds();
  const wallStart = performance.now();
  const late = senders > 1 ? Math.floor(senders / 2) : senders;
  const run = async (i: number) => {
    if (i >= late) await new Promise((resolve) => setTimeout(resolve, 500));
    const sender = all[i]!;
    for (let n = 0; n < requestsEach; n++) {
      // A new turn every TURN_EVENTS requests: a turn's cost grows with its log, which is not what is measured.
      const space = `gchat:spaces/I${i % 10}`;
      const turnId = `T${i}-${Math.floor(n / TURN_EVENTS)}`;
      const body = JSON.stringify(
        n % TURN_EVENTS === 0
          ? { type: 'turn_started', space, turnId, root: { messageId: `u${turnId}`, threadId: `u${turnId}` } }
          : {
              type: 'tool_call',
              space,
              turnId,
              callId: `c${n}`,
              tool: 'Read',
              input: { path: `src/module${n}.ts` },
            },
      );
      sender.latencies.push(await post(url, sender.agent, body));
    }
  };
  await Promise.all(all.map((_, i) => run(i)));
  const wallS = (performance.now() - wallStart) / 1000;
  const cpuS = cpuSeconds() - cpuStart;
  rssPeak = Math.max(rssPeak, rssMib());
  clearInterval(sampler);
  for (const sender of all) sender.agent.destroy();
  await server.close();
  await bench.runtime.stop();
  sqlite?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  // How fast memory comes back once the senders are gone (no forced GC: what a running server sees).
  await sleep(1000);
  const rssAfter1s = rssMib();
  await sleep(4000);
  const rssAfter5s = rssMib();
  const latencies = all.flatMap((s) => s.latencies).sort((a, b) => a - b);
  const firsts = all
    .slice(late)
    .map((s) => s.latencies[0]!)
    .sort((a, b) => a - b);
  return {
    events: senders * requestsEach,
    wallS,
    cpuS,
    latencies,
    firsts,
    rss: { before: rssBefore, peak: rssPeak, after1s: rssAfter1s, after5s: rssAfter5s },
  };
}

export default async function run(): Promise<void> {
  const baseline = await loadBaseline();
  const builds: Build[] = [
    {
      name: `main ${baseline.commit}`,
      createRuntime: baseline.createRuntime,
      platforms: baseline.platforms,
      startIngestServer: (
        await baseline.load<{ startIngestServer: typeof startIngestServer }>('src/serve/http.ts')
      ).startIngestServer,
    },
    { name: 'this checkout', startIngestServer },
  ];
  const rows: string[][] = [];
  for (const build of builds) {
    progress(`ingest (${build.name}): warm-up`);
    await runCase(build, 4, 200);
    for (const [senders, each, store] of [
      [1, 4000, 'memory'],
      [50, 200, 'memory'],
      [50, 200, 'sqlite'],
    ] as const) {
      progress(`ingest (${build.name}): ${senders} sender(s) × ${each} requests, ${store} store`);
      const r = await runCase(build, senders, each, store);
      const ms = (v: number) => v.toFixed(2);
      rows.push([
        build.name,
        store,
        count(senders),
        count(r.events),
        count(r.events / r.wallS),
        count(r.events / r.cpuS),
        ms(percentile(r.latencies, 50)),
        ms(percentile(r.latencies, 99)),
        ms(r.latencies.at(-1)!),
        senders > 1 ? `${ms(percentile(r.firsts, 50))} / ${ms(percentile(r.firsts, 99))}` : '–',
        `${r.rss.before.toFixed(0)} / ${r.rss.peak.toFixed(0)} / ${r.rss.after1s.toFixed(0)} / ${r.rss.after5s.toFixed(0)}`,
      ]);
    }
  }
  console.log(
    'one event per POST /v1/events, keep-alive connection per sender, 127.0.0.1; latencies in ms; ' +
      'RSS of the whole process (server and senders) before the case, its peak, and 1 s and 5 s after the senders left\n',
  );
  printTable(
    [
      'build',
      'store',
      'senders',
      'events',
      'events/wall s',
      'events/CPU s',
      'p50',
      'p99',
      'max',
      'late joiner first 202 p50 / p99',
      'RSS MiB before / peak / +1 s / +5 s',
    ],
    rows,
  );
}
