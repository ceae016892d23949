/**
 * Issue 12, "Done when", through `turnlog serve`: its config builds the
 * Discord surface (platforms.discord, the token from the environment), its
 * HTTP ingest API takes the agent's events, and 16 concurrent turns in 4
 * channels of the Discord emulator (Discord's limits on) each thread their
 * log on the person's message, buzz once, show typing while quiet, ping
 * nobody and land their answer, with no 429. One SimulatedClock drives serve,
 * the surface and the emulator; the surface is counted (calls in flight) so
 * the test knows when the calls of a step have landed.
 */
import { afterEach, expect, it, vi } from 'vitest';
import { SimulatedClock } from 'xstate';
import { loadConfig } from '../../../src/config.js';
import { type DiscordEmulator, startDiscordEmulator } from '../../../src/emulators/discord/index.js';
import { builtinPlatforms } from '../../../src/platforms/all.js';
import type { DiscordSurface } from '../../../src/platforms/discord/index.js';

import { createSurfaces, type Serve, startServe } from '../../../src/serve/index.js';
import { emulatorCall } from '../../emulators/inspection.js';
import { countCalls, createInFlight, stepClock, untilNoCallInFlight } from '../shared/calls-in-flight.js';
import { landed, START_MS, SUPPRESS_NOTIFICATIONS } from './harness.js';

const CHANNELS = [0, 1, 2, 3].map((i) => `18000000000000002${i}0`);
const TURNS = 16;
const env = { DISCORD_BOT: 'serve-bot-token' };

let serve: Serve | undefined;
let emulator: DiscordEmulator | undefined;
afterEach(async () => {
  await serve?.close();
  serve = undefined;
  await emulator?.close();
  emulator = undefined;
  vi.useRealTimers();
});

it('16 concurrent turns in 4 channels through turnlog serve: threaded, typing, one buzz each, answers landed, no 429', async () => {
  const clock = new SimulatedClock();
  clock.set(START_MS);
  // @discordjs/rest keeps its bucket state on Date.now(): it follows the simulated clock.
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(clock.now());
  emulator = await startDiscordEmulator({ now: () => clock.now() });
  const config = {
    ingest: { port: 0 },
    log: { level: 'silent' },
    store: { path: ':memory:' },
    platforms: { discord: { apiUrl: emulator.url, token: 'env:DISCORD_BOT' } },
  };
  // The surface serve's config builds, counted.
  const inFlight = createInFlight();
  const built = createSurfaces(loadConfig(config, env).platforms, builtinPlatforms, {
    now: () => clock.now(),
    env,
  });
  const surface = countCalls(built.discord as DiscordSurface, inFlight);
  serve = await startServe({ config, env, clock, surfaces: { discord: surface } });

  const post = async (events: Record<string, unknown>[]) => {
    const res = await fetch(`${serve!.url}/v1/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-ndjson' },
      body: events.map((event) => JSON.stringify(event)).join('\n'),
    });
    expect(res.status).toBe(202);
  };
  const advance = (ms: number) =>
    stepClock(clock, ms, () => untilNoCallInFlight(inFlight, 'Discord'), {
      onStep: () => vi.setSystemTime(clock.now()),
    });

  const roots: string[] = [];
  for (let t = 0; t < TURNS; t += 1) {
    const channel = CHANNELS[t % CHANNELS.length]!;
    const person = await emulatorCall<{ messageId: string }>(emulator.url, 'inbound', {
      space: channel,
      text: `please look at ${t}`,
    });
    roots.push(person.messageId);
  }
  const spaceOf = (t: number) => `discord:${CHANNELS[t % CHANNELS.length]}`;
  await post(
    roots.map((messageId, t) => ({
      type: 'turn_started',
      space: spaceOf(t),
      turnId: `T${t}`,
      root: { messageId },
      title: `Turn ${t} @everyone`,
    })),
  );
  for (let round = 0; round < 4; round += 1) {
    await post(
      roots.map((_, t) => ({
        type: 'tool_call',
        space: spaceOf(t),
        turnId: `T${t}`,
        callId: `c${round}`,
        tool: 'Read',
        input: { path: `src/file-${round}.ts <@123456789012345678>` },
      })),
    );
    await advance(1000);
  }
  // The agents think quietly for half a minute: typing shows in each thread.
  await advance(30_000);
  await post(
    roots.flatMap((_, t) => [
      { type: 'answer', space: spaceOf(t), turnId: `T${t}`, text: `answer ${t} @here` },
      { type: 'turn_ended', space: spaceOf(t), turnId: `T${t}`, outcome: 'ok' },
    ]),
  );
  await advance(60_000);

  const calls = emulator.state.calls().filter((c) => c.op !== 'inbound');
  expect(calls.filter((c) => c.status === 429)).toEqual([]);
  expect(inFlight.errors).toEqual([]);
  expect(calls.flatMap((c) => c.mentions)).toEqual([]);
  for (const [t, root] of roots.entries()) {
    const channel = CHANNELS[t % CHANNELS.length]!;
    const seen = emulator.state.messages(channel);
    const logs = seen.filter((m) => m.thread === root);
    expect(logs).toHaveLength(1);
    expect(logs[0]?.card?.text ?? logs[0]?.text).toContain('file-3.ts');
    expect(seen.some((m) => m.thread === null && m.text.startsWith(`answer ${t}`))).toBe(true);
    // One buzz in the thread: the log's one message; typing showed in the channel while the turn was live (issue 26).
    const creates = landed(calls).filter((c) => c.op === 'create' && c.thread === root);
    expect(creates.filter((c) => ((c.details?.flags as number) & SUPPRESS_NOTIFICATIONS) === 0)).toHaveLength(
      1,
    );
    expect(
      calls.some((c) => c.details?.typing === true && c.path.includes(`/channels/${channel}/typing`)),
    ).toBe(true);
  }
});
