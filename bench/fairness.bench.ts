/**
 * `npm run bench -- fairness` (issue 24 item 2, "No space waits on another"):
 * a quiet space's first log post, alone and beside a busy space, on each
 * platform, on the wall clock. A real `turnlog serve` (in this process, its
 * config building the platform's surface over the official client, SQLite
 * in memory) against the platform's emulator with its default limits.
 *
 * Each trial uses fresh spaces. "Quiet": a person's message and a new turn
 * in space B (turn_started and a tool call, one POST), timed from just before
 * the POST to B's first post in the emulator's call log. "Beside a busy
 * space": first one turn of 40 tool calls with their results, an answer and
 * its end in space A (one POST), then 100 ms later the same new turn in B;
 * A's terminal frame and answer are still booked behind A's channel spacing
 * then. Every trial ends B's turn. Each quiet trial starts once every
 * write before it has landed (no call for 1.3 s); the busy trials run one
 * right after the other, so the busy spaces of the trials before are still
 * writing too. One warm-up trial of each kind is not counted. Reported: p50 / p95
 * / max of B's first post, both ways, and the 429s (none expected).
 *
 * Options: `--trials=N` (default 20 of each kind per platform), `--only=ID`
 * (one platform: gchat, slack or discord).
 */

import type { EmulatorServer } from '../src/emulators/core/index.js';
import { startDiscordEmulator } from '../src/emulators/discord/index.js';
import { startGchatEmulator } from '../src/emulators/gchat/index.js';
import { startSlackEmulator } from '../src/emulators/slack/index.js';
import type { RecordedCall } from '../src/emulators/types.js';
import { type Serve, startServe } from '../src/serve/index.js';
import { printTable, progress } from './runtime/report.js';

const TRIALS = Number(process.argv.find((a) => a.startsWith('--trials='))?.slice('--trials='.length) ?? 20);
/** `--only=gchat|slack|discord`: one platform. */
const ONLY = process.argv.find((a) => a.startsWith('--only='))?.slice('--only='.length);
const env = { TOKEN: 'fairness-bench-token' };

interface Platform {
  id: 'gchat' | 'slack' | 'discord';
  name: string;
  prefix: string;
  /** The platform's own id of the n-th space of a trial. */
  space(n: number): string;
  start(): Promise<EmulatorServer>;
  config(url: string): Record<string, unknown>;
}

const PLATFORMS: Platform[] = [
  {
    id: 'gchat',
    name: 'Google Chat',
    prefix: 'gchat:',
    space: (n) => `spaces/FAIR${n}`,
    start: () => startGchatEmulator(),
    config: (apiUrl) => ({ gchat: { apiUrl } }),
  },
  {
    id: 'slack',
    name: 'Slack',
    prefix: 'slack:',
    space: (n) => `C0FAIR${String(n).padStart(4, '0')}`,
    start: () => startSlackEmulator(),
    config: (apiUrl) => ({ slack: { apiUrl, token: 'env:TOKEN' } }),
  },
  {
    id: 'discord',
    name: 'Discord',
    prefix: 'discord:',
    space: (n) => `18000000000${String(n).padStart(8, '0')}`,
    start: () => startDiscordEmulator(),
    config: (apiUrl) => ({ discord: { apiUrl, token: 'env:TOKEN' } }),
  },
];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function busyTurn(space: string, turnId: string, root: string): Record<string, unknown>[] {
  const events: Record<string, unknown>[] = [
    { type: 'turn_started', space, turnId, root: { messageId: root } },
  ];
  for (let n = 0; n < 40; n++) {
    const callId = `c${n}`;
    events.push(
      { type: 'tool_call', space, turnId, callId, tool: 'Read', input: { path: `src/busy-${n}.ts` } },
      { type: 'tool_result', space, turnId, callId, tool: 'Read', ok: true, output: `line ${n}` },
    );
  }
  events.push(
    { type: 'answer', space, turnId, text: `The busy turn ${turnId} is done.` },
    { type: 'turn_ended', space, turnId, outcome: 'ok' },
  );
  return events;
}

const landedIn = (call: RecordedCall, space: string, root: string): boolean =>
  call.op === 'create' &&
  call.status < 300 &&
  call.details?.error === undefined &&
  (call.space === space || call.thread === root || call.space === root);

async function measure(platform: Platform): Promise<{ quiet: number[]; busy: number[]; refused: number }> {
  const emulator = await platform.start();
  let serve: Serve | undefined;
  try {
    serve = await startServe({
      config: {
        ingest: { port: 0 },
        log: { level: 'silent' },
        store: { path: ':memory:' },
        platforms: platform.config(emulator.url),
      },
      env,
    });
    const url = serve.url;
    const post = async (events: Record<string, unknown>[]) => {
      const res = await fetch(`${url}/v1/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-ndjson' },
        body: events.map((event) => JSON.stringify(event)).join('\n'),
      });
      if (res.status !== 202) throw new Error(`POST /v1/events: ${res.status} ${await res.text()}`);
    };
    const person = (space: string, text: string) => emulator.state.inbound({ space, text }).messageId;
    /** Waits (polling the emulator's call log) until `matches` holds for a call; returns it. */
    const until = async (matches: (call: RecordedCall) => boolean, what: string): Promise<RecordedCall> => {
      for (let waited = 0; waited < 30_000; waited += 2) {
        const call = emulator.state.calls().find(matches);
        if (call) return call;
        await sleep(2);
      }
      throw new Error(`${platform.name}: ${what} never landed`);
    };
    /** Waits until no call has reached the emulator for longer than a channel's spacing: every write landed. */
    const settled = async () => {
      let count = -1;
      let still = 0;
      while (still < 1300) {
        const now = emulator.state.calls().length;
        still = now === count ? still + 50 : 0;
        count = now;
        await sleep(50);
      }
    };
    const quiet: number[] = [];
    const busy: number[] = [];
    let n = 0;
    const trial = async (label: string, besideBusy: boolean): Promise<number> => {
      const a = platform.space(n++);
      const b = platform.space(n++);
      if (besideBusy) {
        const rootA = person(a, 'please do a lot');
        await post(busyTurn(`${platform.prefix}${a}`, `A${label}`, rootA));
        await sleep(100);
      }
      const rootB = person(b, 'please do a little');
      const t0 = Date.now();
      await post([
        {
          type: 'turn_started',
          space: `${platform.prefix}${b}`,
          turnId: `B${label}`,
          root: { messageId: rootB },
        },
        {
          type: 'tool_call',
          space: `${platform.prefix}${b}`,
          turnId: `B${label}`,
          callId: 'q1',
          tool: 'Read',
          input: { path: 'src/quiet.ts' },
        },
      ]);
      const first = await until((call) => landedIn(call, b, rootB), `the first post in ${b}`);
      await post([
        { type: 'turn_ended', space: `${platform.prefix}${b}`, turnId: `B${label}`, outcome: 'ok' },
      ]);
      return first.at - t0;
    };
    // One warm-up trial of each kind first (the client's first calls, the JIT), not counted.
    await trial('warm-quiet', false);
    await trial('warm-busy', true);
    // Alone: every write of the trials before has landed.
    for (let i = 0; i < TRIALS; i++) {
      await settled();
      quiet.push(await trial(`q${i}`, false));
    }
    // Beside a busy space, one trial right after the other: the busy spaces of the trials before are
    // still writing too.
    await settled();
    for (let i = 0; i < TRIALS; i++) busy.push(await trial(`b${i}`, true));
    await settled();
    const refused = emulator.state.calls().filter((call) => call.status === 429).length;
    return { quiet, busy, refused };
  } finally {
    await serve?.close();
    await emulator.close();
  }
}

const quantile = (values: number[], q: number): number => {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] ?? 0;
};
const ms = (value: number) => `${Math.round(value)}`;

export default async function run(): Promise<void> {
  const rows: string[][] = [];
  for (const platform of PLATFORMS.filter((p) => ONLY === undefined || p.id === ONLY)) {
    progress(`${platform.name}: ${TRIALS} quiet and ${TRIALS} busy trials`);
    const { quiet, busy, refused } = await measure(platform);
    const p95Quiet = quantile(quiet, 0.95);
    const p95Busy = quantile(busy, 0.95);
    rows.push([
      platform.name,
      [0.5, 0.95, 1].map((q) => ms(quantile(quiet, q))).join(' / '),
      [0.5, 0.95, 1].map((q) => ms(quantile(busy, q))).join(' / '),
      (p95Busy / Math.max(1, p95Quiet)).toFixed(2),
      String(refused),
    ]);
  }
  printTable(
    [
      'platform',
      "quiet space's first post, alone: p50 / p95 / max ms",
      'beside a busy space: p50 / p95 / max ms',
      'p95 beside busy ÷ alone',
      '429s',
    ],
    rows,
  );
}
