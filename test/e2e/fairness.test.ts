/**
 * Issue 24 item 2, "No space waits on another": a new turn's first post is
 * independent of what other spaces do. Through `turnlog serve` (its config
 * builds the platform's surface over the official client) against each
 * platform's emulator with its default limits: a busy space A (one turn of
 * 40 tool calls with their results, an answer and its end, in one POST)
 * next to a quiet space B, whose turn starts while A's terminal frame and
 * answer are still booked behind A's channel spacing. B's first log post
 * must land within 300 ms of B's events, on the one simulated clock that
 * drives serve, the surface and the emulator (so the figure is structural,
 * not the shared machine's speed), and before A's booked writes: it is not
 * queued behind them. Red before the fix on Google Chat and Discord: the
 * budget held every progress request (a first post among them) until every
 * booked terminal frame had gone, whichever channel it waited for (2.2 s).
 * The wall-clock p95 is `npm run bench -- fairness` (docs/benchmarks.md).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SimulatedClock } from 'xstate';
import { loadConfig } from '../../src/config.js';
import type { EmulatorServer } from '../../src/emulators/core/index.js';
import { startDiscordEmulator } from '../../src/emulators/discord/index.js';
import { startGchatEmulator } from '../../src/emulators/gchat/index.js';
import { startSlackEmulator } from '../../src/emulators/slack/index.js';
import type { RecordedCall } from '../../src/emulators/types.js';
import { builtinPlatforms } from '../../src/platforms/all.js';
import { createSurfaces, type Serve, startServe } from '../../src/serve/index.js';
import type { ChatSurface } from '../../src/surfaces/surface.js';
import { emulatorCall } from '../emulators/inspection.js';
import { countCalls, createInFlight, stepClock, untilNoCallInFlight } from './shared/calls-in-flight.js';

const START_MS = Date.UTC(2026, 0, 1, 12, 0, 0);
const env = { TOKEN: 'fairness-token' };

interface Case {
  platform: 'gchat' | 'slack' | 'discord';
  /** The platform's own ids of the busy and the quiet space. */
  a: string;
  b: string;
  prefix: string;
  start(now: () => number): Promise<EmulatorServer>;
  config(url: string): Record<string, unknown>;
}

const CASES: Case[] = [
  {
    platform: 'gchat',
    a: 'spaces/FAIRBUSY',
    b: 'spaces/FAIRQUIET',
    prefix: 'gchat:',
    start: (now) => startGchatEmulator({ now }),
    config: (apiUrl) => ({ gchat: { apiUrl } }),
  },
  {
    platform: 'slack',
    a: 'C0FAIRBUSY',
    b: 'C0FAIRQUIET',
    prefix: 'slack:',
    start: (now) => startSlackEmulator({ now }),
    config: (apiUrl) => ({ slack: { apiUrl, token: 'env:TOKEN' } }),
  },
  {
    platform: 'discord',
    a: '1800000000000000710',
    b: '1800000000000000720',
    prefix: 'discord:',
    start: (now) => startDiscordEmulator({ now }),
    config: (apiUrl) => ({ discord: { apiUrl, token: 'env:TOKEN' } }),
  },
];

let serve: Serve | undefined;
let emulator: EmulatorServer | undefined;
afterEach(async () => {
  await serve?.close();
  serve = undefined;
  await emulator?.close();
  emulator = undefined;
  vi.useRealTimers();
});

/** A busy turn: 40 tool calls with their results, an answer, its end. */
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
    { type: 'answer', space, turnId, text: 'The busy space is done.' },
    { type: 'turn_ended', space, turnId, outcome: 'ok' },
  );
  return events;
}

/** Is this landed write (a create or an edit) in that space, its threads included? */
const writeIn = (call: RecordedCall, space: string, root: string): boolean =>
  (call.op === 'create' || call.op === 'update') &&
  call.status < 300 &&
  call.details?.error === undefined &&
  (call.space === space || call.thread === root || call.space === root);

describe.each(CASES)('$platform: a quiet space next to a busy one (issue 24.2)', (c) => {
  it("the quiet space's first post lands within 300 ms (simulated), ahead of the busy space's booked writes", async () => {
    const clock = new SimulatedClock();
    clock.set(START_MS);
    // @discordjs/rest reads Date.now() for its buckets: it follows the simulated clock.
    if (c.platform === 'discord') {
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(clock.now());
    }
    emulator = await c.start(() => clock.now());
    const config = {
      ingest: { port: 0 },
      log: { level: 'silent' },
      store: { path: ':memory:' },
      platforms: c.config(emulator.url),
    };
    const inFlight = createInFlight();
    const built = createSurfaces(loadConfig(config, env).platforms, builtinPlatforms, {
      now: () => clock.now(),
      env,
    });
    const surface = countCalls(built[c.platform] as ChatSurface, inFlight);
    serve = await startServe({ config, env, clock, surfaces: { [c.platform]: surface } });
    const post = async (events: Record<string, unknown>[]) => {
      const res = await fetch(`${serve!.url}/v1/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-ndjson' },
        body: events.map((event) => JSON.stringify(event)).join('\n'),
      });
      expect(res.status).toBe(202);
    };
    const advance = (ms: number, stepMs = 50) =>
      stepClock(clock, ms, () => untilNoCallInFlight(inFlight, c.platform), {
        stepMs,
        onStep: () => {
          if (c.platform === 'discord') vi.setSystemTime(clock.now());
        },
      });
    const person = (space: string, text: string) =>
      emulatorCall<{ messageId: string }>(emulator!.url, 'inbound', { space, text });

    const rootA = (await person(c.a, 'please do a lot')).messageId;
    const rootB = (await person(c.b, 'please do a little')).messageId;
    await post(busyTurn(`${c.prefix}${c.a}`, 'BUSY', rootA));
    // A's first post goes; its terminal frame and answer are booked behind its channel's spacing.
    await advance(200);
    const calls = () => emulator!.state.calls();
    expect(calls().some((call) => writeIn(call, c.a, rootA))).toBe(true);

    const startedAt = clock.now();
    const seqAtStart = Math.max(0, ...calls().map((call) => call.seq));
    await post([
      { type: 'turn_started', space: `${c.prefix}${c.b}`, turnId: 'QUIET', root: { messageId: rootB } },
      {
        type: 'tool_call',
        space: `${c.prefix}${c.b}`,
        turnId: 'QUIET',
        callId: 'q1',
        tool: 'Read',
        input: { path: 'src/quiet.ts' },
      },
    ]);
    let firstB: RecordedCall | undefined;
    for (let waited = 0; waited < 5_000 && firstB === undefined; waited += 50) {
      await advance(50);
      firstB = calls().find(
        (call) => call.seq > seqAtStart && call.op === 'create' && writeIn(call, c.b, rootB),
      );
    }
    expect(firstB, `no post in the quiet space ${c.b}`).toBeDefined();
    expect(firstB!.at - startedAt).toBeLessThan(300);
    // Not queued behind the busy space: A still has writes to make after B's first post.
    await advance(10_000, 100);
    const aAfter = calls().filter((call) => call.seq > firstB!.seq && writeIn(call, c.a, rootA));
    expect(aAfter.length).toBeGreaterThan(0);
    expect(calls().filter((call) => call.status === 429)).toEqual([]);
    expect(inFlight.errors).toEqual([]);
  });
});
