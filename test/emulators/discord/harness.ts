/**
 * Starts a Discord emulator on a simulated clock and points the official
 * client at it the way docs/platforms.md says: `@discordjs/rest` with
 * `api: url + '/api'` and `@discordjs/core/http-only`'s `API` on top.
 *
 * The client is set so no test ever waits: `retries: 0` (no 5xx retries),
 * `offset: 0` (no extra 50 ms on rate-limit waits) and `rejectOnRateLimit`
 * for every route, so a 429 — or the client's own "this bucket is empty"
 * — throws a RateLimitError instead of sleeping until the reset.
 */
import { API } from '@discordjs/core/http-only';
import { REST } from '@discordjs/rest';
import { SimulatedClock } from 'xstate';
import {
  type DiscordEmulator,
  type DiscordEmulatorOptions,
  startDiscordEmulator,
} from '../../../src/emulators/discord/index.js';

export const START_MS = Date.UTC(2025, 0, 15, 12, 0, 0);

export interface Harness {
  clock: SimulatedClock;
  emulator: DiscordEmulator;
  /** An official client with its own rate-limit state (a fresh one is like another process of the same bot). */
  client(token?: string): { rest: REST; api: API };
  /** Fetch against the emulator with a bot token, JSON in and out. */
  // biome-ignore lint/suspicious/noExplicitAny: tests read the JSON answers ad hoc, field by field.
  raw(method: string, path: string, body?: unknown): Promise<{ status: number; headers: Headers; body: any }>;
  close(): Promise<void>;
}

export async function startHarness(opts: Omit<DiscordEmulatorOptions, 'now'> = {}): Promise<Harness> {
  const clock = new SimulatedClock();
  clock.set(START_MS);
  const emulator = await startDiscordEmulator({ ...opts, now: () => clock.now() });
  return {
    clock,
    emulator,
    client(token = 'x') {
      const rest = new REST({
        version: '10',
        api: `${emulator.url}/api`,
        retries: 0,
        offset: 0,
        rejectOnRateLimit: () => true,
        hashSweepInterval: 0,
        handlerSweepInterval: 0,
      }).setToken(token);
      return { rest, api: new API(rest) };
    },
    async raw(method, path, body) {
      const res = await fetch(`${emulator.url}${path}`, {
        method,
        headers: {
          authorization: 'Bot x',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await res.text();
      return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
    },
    close: () => emulator.close(),
  };
}

/** Posts a person's message through `/_emulator/inbound`. */
export async function personSays(
  harness: Harness,
  input: { space: string; text: string; threadId?: string; user?: string },
): Promise<{ messageId: string; threadId: string }> {
  const res = await harness.raw('POST', '/_emulator/inbound', input);
  if (res.status !== 200) throw new Error(`inbound failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** The calls the emulator recorded (over HTTP, as a user's test would read them). */
export async function recordedCalls(harness: Harness) {
  return (await harness.raw('GET', '/_emulator/calls')).body
    .calls as import('../../../src/emulators/types.js').RecordedCall[];
}
