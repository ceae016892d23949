/**
 * `npm run bench -- serve-memory`: the memory of a real `turnlog serve`
 * process (the built bin, dist/: `npm run build` first) under 50 concurrent
 * senders, against the Google Chat emulator with its default limits (issue 9:
 * "memory peaked at 340–510 MB and took minutes to come back").
 *
 * Each sender runs turns one after another in one of 10 spaces, one event per
 * `POST /v1/events` on its own keep-alive connection, as an agent's hooks
 * would: a turn_started on a person's message, tool calls and results (outputs
 * of a few KB, some with secrets), an answer, turn_ended. The senders stop
 * after their turns or after a bounded time, whichever comes first. The
 * child's VmRSS and VmHWM (/proc/<pid>/status) are sampled every 200 ms:
 * before the senders (baseline), their peak, and 5 s and 30 s after they
 * stopped. The same run is made with the store in a SQLite file and in
 * `:memory:`, side by side. A sender answered 429 or 503 waits its
 * Retry-After and sends the same request again.
 *
 * Options: `--senders=N`, `--turns=N` (per sender), `--seconds=N` (bound on
 * the sending phase), `--only=file|memory|event|turn` (the cases to run),
 * `--output-kb=N` (tool outputs of N–2N KB; default 2), `--heapsnapshot`
 * (the child writes a heap snapshot when the senders stop and 30 s after, in
 * its temp dir, which is kept), `--trace-gc` (the V8 heap after each
 * Mark-Compact, from the child's --trace-gc, written to a file in the temp dir),
 * `--max-pending-mib=N` (the child's `ingest.maxPendingBytes`), `--tail-s=N`
 * (one more RSS sample N > 30 s after the senders stopped, a column of its
 * own), `--vs-node-args=A,B|C` (each case runs as shipped and then with
 * each set of node/V8 flags, in the same run: `|` between sets, `,` within
 * one, e.g. `--no-optimize-for-size|--max-semi-space-size=4`).
 */
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startGchatEmulator } from '../src/emulators/gchat/index.js';
import { startServeProcess } from '../test/e2e/process/serve-process.js';
import { count, printTable, progress } from './runtime/report.js';

const arg = (name: string): string | undefined =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const SENDERS = Number(arg('senders') ?? 50);
const TURNS = Number(arg('turns') ?? 20);
const SECONDS = Number(arg('seconds') ?? 120);
const ONLY = arg('only');
const HEAP_SNAPSHOT = process.argv.includes('--heapsnapshot');
const TRACE_GC = process.argv.includes('--trace-gc');
const SPACES = 10;
/** A tool output is 1–2 × this many bytes. */
const OUTPUT_BYTES = Number(arg('output-kb') ?? 2) * 1024;
/** `ingest.maxPendingBytes` of the serve process, when given. */
const MAX_PENDING_MIB = arg('max-pending-mib');
/** One more RSS sample this long after the senders stopped, when given. */
const TAIL_S = arg('tail-s');
/** Sets of node/V8 flags (`|` between sets, `,` within one) to compare with the process as shipped. */
const VS_NODE_ARGS = arg('vs-node-args')
  ?.split('|')
  .map((set) => set.split(',').filter((a) => a !== ''));
/** Tool call + result pairs per turn: with turn_started, answer and turn_ended, 30 events. */
const TOOL_PAIRS = 13;
const ASSISTANT_NOTES = 1;
const EVENTS_PER_TURN = 1 + 2 * TOOL_PAIRS + ASSISTANT_NOTES + 2;
const SAMPLE_MS = 200;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const MIB = 1024 * 1024;

/** VmRSS and VmHWM of a process, in bytes (Linux). */
function memoryOf(pid: number): { rss: number; hwm: number } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (key: string) =>
      Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024;
    return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
  } catch {
    return undefined;
  }
}

/** CPU seconds (user + system) a process has used, from /proc/<pid>/stat (clock ticks of 10 ms on Linux). */
function cpuSecondsOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The fields after the command name (which may hold spaces) are space-separated: utime and stime are 14th and 15th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return Number.NaN;
  }
}

const SECRETS = [
  'AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
  'Authorization: Bearer ghp_16C7e42F292c6912E7710c838347Ae178B4a',
  'DATABASE_URL=postgres://admin:s3cr3tP4ssw0rd@db.internal:5432/app',
  'slack token xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx',
];

/** A tool output of 2–4 KB (`--output-kb`); one in four carries a secret. */
function toolOutput(sender: number, turn: number, pair: number): string {
  const lines: string[] = [];
  const size = OUTPUT_BYTES + ((sender * 31 + turn * 7 + pair * 13) % OUTPUT_BYTES);
  let length = 0;
  for (let i = 0; length < size; i++) {
    const line = `src/module${pair}/file${i}.ts:${i + 1}:  const value${i} = compute(${sender}, ${turn}, ${i}); // ok`;
    lines.push(line);
    length += line.length + 1;
  }
  if ((sender + turn + pair) % 4 === 0) lines.splice(3, 0, SECRETS[(sender + pair) % SECRETS.length]!);
  return lines.join('\n');
}

function turnEvents(
  space: string,
  turnId: string,
  root: { messageId: string; threadId: string },
  s: number,
  t: number,
) {
  const events: Record<string, unknown>[] = [{ type: 'turn_started', space, turnId, root }];
  for (let p = 0; p < TOOL_PAIRS; p++) {
    const callId = `c${p}`;
    events.push({
      type: 'tool_call',
      space,
      turnId,
      callId,
      tool: 'Bash',
      input: { command: `npm test -- part${p}` },
    });
    events.push({
      type: 'tool_result',
      space,
      turnId,
      callId,
      tool: 'Bash',
      ok: p % 5 !== 4,
      exitCode: p % 5 === 4 ? 1 : 0,
      output: toolOutput(s, t, p),
    });
    if (p === 6)
      events.push({ type: 'assistant', space, turnId, text: 'Half of the tests pass; looking at the rest.' });
  }
  events.push({ type: 'answer', space, turnId, text: `Answer of ${turnId}: fixed the failing tests.` });
  events.push({ type: 'turn_ended', space, turnId, outcome: 'ok' });
  return events;
}

/** The ready line (`{"ingest": …}`), skipping what node's own tracing printed before it. */
function readyLine(child: ChildProcessWithoutNullStreams): Promise<string> {
  // Not `for await`: leaving it would destroy stdout, which --trace-gc still writes to.
  return new Promise((resolve, reject) => {
    let buffered = '';
    const onData = (chunk: Buffer) => {
      buffered += String(chunk);
      const line = buffered.split('\n').find((l, i, all) => i < all.length - 1 && l.startsWith('{'));
      if (line === undefined) return;
      child.stdout.off('data', onData);
      child.off('exit', onExit);
      resolve(line);
    };
    const onExit = () => reject(new Error(`turnlog serve ended before its ready line; stdout: ${buffered}`));
    child.stdout.on('data', onData);
    child.once('exit', onExit);
  });
}

interface PostResult {
  status: number;
  retryAfterS?: number;
}

function post(url: URL, agent: Agent, body: string): Promise<PostResult> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/x-ndjson', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        res.on('end', () => {
          const retryAfter = Number(res.headers['retry-after']);
          resolve({
            status: res.statusCode ?? 0,
            ...(Number.isFinite(retryAfter) ? { retryAfterS: retryAfter } : {}),
          });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

interface CaseResult {
  name: string;
  baseline: number;
  peak: number;
  hwm: number;
  after5s: number;
  after30s: number;
  accepted: number;
  refused: number;
  retried: number;
  sendSeconds: number;
  turnsStarted: number;
  answersAt0: number;
  answersAt30: number;
  afterTail?: number;
  /** CPU seconds of the serve process while the senders ran, and from their start to +30 s. */
  cpuSending: number;
  cpuTo30s: number;
}

type Store = 'file' | 'memory';
/** `event`: one event per POST (an agent's hooks); `turn`: a turn's 30 events in one NDJSON body. */
type Batch = 'event' | 'turn';

async function runCase(name: string, store: Store, batch: Batch, nodeArgs: string[]): Promise<CaseResult> {
  const cleanups: (() => Promise<void> | void)[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'turnlog-bench-serve-memory-'));
  try {
    const emulator = await startGchatEmulator();
    cleanups.push(() => emulator.close());
    const configPath = join(dir, 'turnlog.json');
    writeFileSync(
      configPath,
      JSON.stringify({
        ingest: {
          host: '127.0.0.1',
          port: 0,
          ...(MAX_PENDING_MIB === undefined ? {} : { maxPendingBytes: Number(MAX_PENDING_MIB) * MIB }),
        },
        store: { path: store === 'file' ? join(dir, 'turnlog.sqlite') : ':memory:' },
        platforms: { gchat: { apiUrl: emulator.url } },
        log: { level: 'error' },
      }),
    );
    const child = startServeProcess(configPath, cleanups, {
      entry: 'built',
      nodeArgs: [
        ...(HEAP_SNAPSHOT ? ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${dir}`] : []),
        ...(TRACE_GC ? ['--trace-gc'] : []),
        ...nodeArgs,
      ],
    });
    const pid = child.pid!;
    const { ingest } = JSON.parse(await readyLine(child)) as { ingest: string };
    /** With --trace-gc: the V8 heap's largest size after a GC, used and committed (MB), from the child's trace. */
    const gc = { used: 0, committed: 0, last: '' };
    const gcLines: string[] = [];
    const gcStart = performance.now();
    if (!TRACE_GC) child.stdout.resume();
    else {
      let rest = '';
      child.stdout.on('data', (chunk: Buffer) => {
        rest += String(chunk);
        const lines = rest.split('\n');
        rest = lines.pop() ?? '';
        for (const line of lines) {
          const m = /Mark-Compact .*-> ([\d.]+) \(([\d.]+)\) MB/.exec(line);
          if (!m) continue;
          gcLines.push(`${((performance.now() - gcStart) / 1000).toFixed(1)} s ${line.trim()}`);
          gc.used = Math.max(gc.used, Number(m[1]));
          gc.committed = Math.max(gc.committed, Number(m[2]));
          gc.last = line.trim();
        }
      });
    }
    const url = new URL('/v1/events', ingest);
    await sleep(2000);
    const baseline = memoryOf(pid)!.rss;
    let peak = baseline;
    let peakAt = 0;
    const sampler = setInterval(() => {
      const m = memoryOf(pid);
      if (m && m.rss > peak) {
        peak = m.rss;
        peakAt = performance.now();
      }
    }, SAMPLE_MS);

    let accepted = 0;
    let refused = 0;
    let retried = 0;
    let turnsStarted = 0;
    const started = performance.now();
    const cpuAtStart = cpuSecondsOf(pid);
    const deadline = started + SECONDS * 1000;
    const answers = () =>
      emulator.state.calls().filter((c) => c.op === 'create' && c.text?.startsWith('Answer of')).length;
    const ticker = setInterval(() => {
      const s = (performance.now() - started) / 1000;
      progress(
        `${name}: ${s.toFixed(0)} s, ${count(accepted)} events accepted (${count(accepted / s)}/s), ` +
          `${turnsStarted} turns started, RSS ${((memoryOf(pid)?.rss ?? 0) / MIB) | 0} MiB (peak ${(peak / MIB) | 0})`,
      );
    }, 5000);

    const sender = async (s: number) => {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      const space = `spaces/MEM${s % SPACES}`;
      try {
        for (let t = 0; t < TURNS && performance.now() < deadline; t++) {
          const root = emulator.state.inbound({ space, text: `please fix the tests (${s}/${t})` });
          turnsStarted++;
          const events = turnEvents(`gchat:${space}`, `S${s}-T${t}`, root, s, t);
          const bodies =
            batch === 'event'
              ? events.map((event) => JSON.stringify(event))
              : [events.map((event) => JSON.stringify(event)).join('\n')];
          for (const body of bodies) {
            for (;;) {
              const result = await post(url, agent, body);
              if (result.status === 202) {
                accepted += batch === 'event' ? 1 : events.length;
                break;
              }
              if ((result.status === 429 || result.status === 503) && result.retryAfterS !== undefined) {
                retried++;
                await sleep(result.retryAfterS * 1000);
                continue;
              }
              refused++;
              break;
            }
          }
        }
      } finally {
        agent.destroy();
      }
    };
    await Promise.all(Array.from({ length: SENDERS }, (_, s) => sender(s)));
    const sendSeconds = (performance.now() - started) / 1000;
    const cpuSending = cpuSecondsOf(pid) - cpuAtStart;
    clearInterval(ticker);
    const answersAt0 = answers();
    if (HEAP_SNAPSHOT) child.kill('SIGUSR2');
    progress(`${name}: senders done after ${sendSeconds.toFixed(1)} s; watching memory for 30 s`);
    await sleep(5000);
    const after5s = memoryOf(pid)!.rss;
    await sleep(25_000);
    const after30s = memoryOf(pid)!.rss;
    const cpuTo30s = cpuSecondsOf(pid) - cpuAtStart;
    const answersAt30 = answers();
    let afterTail: number | undefined;
    if (TAIL_S !== undefined) {
      await sleep((Number(TAIL_S) - 30) * 1000);
      afterTail = memoryOf(pid)?.rss;
      progress(
        `${name}: +${TAIL_S} s after the senders: RSS ${((memoryOf(pid)?.rss ?? 0) / MIB) | 0} MiB, ` +
          `${answers()} answers posted`,
      );
    }
    clearInterval(sampler);
    if (TRACE_GC)
      progress(
        `${name}: V8 heap after GC, largest used ${gc.used} MB, largest committed ${gc.committed} MB; last: ${gc.last}`,
      );
    if (TRACE_GC) {
      writeFileSync(
        join(tmpdir(), `turnlog-serve-memory-gc-${store}-${batch}.log`),
        `${gcLines.join('\n')}\n`,
      );
      progress(
        `${name}: Mark-Compact trace in ${join(tmpdir(), `turnlog-serve-memory-gc-${store}-${batch}.log`)}`,
      );
    }
    const hwm = memoryOf(pid)!.hwm;
    if (HEAP_SNAPSHOT) {
      child.kill('SIGUSR2');
      await sleep(5000);
      progress(
        `${name}: heap snapshots in ${dir}: ${readdirSync(dir)
          .filter((f) => f.endsWith('.heapsnapshot'))
          .join(', ')}`,
      );
    }
    progress(`${name}: peak ${((peakAt - started) / 1000).toFixed(1)} s after the senders started`);
    child.kill('SIGTERM');
    await once(child, 'exit');
    return {
      name,
      baseline,
      peak,
      hwm,
      after5s,
      after30s,
      accepted,
      refused,
      retried,
      sendSeconds,
      turnsStarted,
      answersAt0,
      answersAt30,
      ...(afterTail === undefined ? {} : { afterTail }),
      cpuSending,
      cpuTo30s,
    };
  } finally {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    if (!HEAP_SNAPSHOT) rmSync(dir, { recursive: true, force: true });
  }
}

export default async function run(): Promise<void> {
  const cases: [string, Store, Batch][] = [
    ['SQLite file, one event per POST', 'file', 'event'],
    ['SQLite file, one turn per POST', 'file', 'turn'],
    ['SQLite :memory:, one event per POST', 'memory', 'event'],
  ];
  const results: CaseResult[] = [];
  const variants: [string, string[]][] =
    VS_NODE_ARGS === undefined
      ? [['', []]]
      : [
          [' (as shipped)', []],
          ...VS_NODE_ARGS.map((set): [string, string[]] => [` (${set.join(' ')})`, set]),
        ];
  for (const [name, store, batch] of cases) {
    if (ONLY !== undefined && ONLY !== store && ONLY !== batch) continue;
    for (const [suffix, nodeArgs] of variants) {
      progress(
        `${name}${suffix}: ${SENDERS} senders × ${TURNS} turns × ${EVENTS_PER_TURN} events, ${SPACES} spaces, at most ${SECONDS} s`,
      );
      results.push(await runCase(`${name}${suffix}`, store, batch, nodeArgs));
    }
  }
  const ref = results[0]!;
  const m = (bytes: number) => (bytes / MIB).toFixed(0);
  console.log(
    `\nturnlog serve (dist/), Google Chat emulator with its default limits; ${SENDERS} senders, ` +
      `${SPACES} spaces; RSS of the serve process in MiB, sampled every ${SAMPLE_MS} ms\n`,
  );
  printTable(
    [
      'case',
      'events accepted',
      'events/s',
      'CPU s sending / to +30 s',
      'turns',
      'baseline',
      'peak',
      'peak − baseline',
      'vs first row',
      'VmHWM',
      '+5 s',
      '+30 s',
      ...(TAIL_S === undefined ? [] : [`+${TAIL_S} s`]),
      'answers posted at stop / +30 s',
      '429/503 retried',
      'refused',
    ],
    results.map((r) => [
      r.name,
      count(r.accepted),
      count(r.accepted / r.sendSeconds),
      `${r.cpuSending.toFixed(1)} / ${r.cpuTo30s.toFixed(1)}`,
      count(r.turnsStarted),
      m(r.baseline),
      m(r.peak),
      m(r.peak - r.baseline),
      ((r.peak - r.baseline) / Math.max(1, ref.peak - ref.baseline)).toFixed(2),
      m(r.hwm),
      m(r.after5s),
      m(r.after30s),
      ...(TAIL_S === undefined ? [] : [r.afterTail === undefined ? '—' : m(r.afterTail)]),
      `${count(r.answersAt0)} / ${count(r.answersAt30)}`,
      count(r.retried),
      count(r.refused),
    ]),
  );
}
