/**
 * Shared set-up for the Slack emulator tests: an emulator on a simulated
 * clock and the official `WebClient` pointed at it, configured so a test
 * never waits (429s reject at once, nothing is retried) and stays quiet.
 */
import { type Logger, LogLevel, WebClient } from '@slack/web-api';
import { SimulatedClock } from 'xstate';
import type { EmulatorServer } from '../../../src/emulators/core/index.js';
import { type SlackEmulatorOptions, startSlackEmulator } from '../../../src/emulators/slack/index.js';

export const TOKEN = 'xoxb-emulated-test-token';
export const START_MS = 1_700_000_000_000;

/** The web-api client logs Slack's `[ERROR] …` response messages; the tests assert on them instead. */
export const silentLogger: Logger = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
  setLevel: () => {},
  getLevel: () => LogLevel.ERROR,
  setName: () => {},
};

export function slackClient(emulator: EmulatorServer, token: string = TOKEN): WebClient {
  return new WebClient(token, {
    slackApiUrl: `${emulator.url}/api/`,
    rejectRateLimitedCalls: true,
    retryConfig: { retries: 0 },
    logger: silentLogger,
  });
}

export interface SlackKit {
  emulator: EmulatorServer;
  clock: SimulatedClock;
  client: WebClient;
}

export async function startKit(opts: Omit<SlackEmulatorOptions, 'now'> = {}): Promise<SlackKit> {
  const clock = new SimulatedClock();
  clock.set(START_MS);
  const emulator = await startSlackEmulator({ ...opts, now: () => clock.now() });
  return { emulator, clock, client: slackClient(emulator) };
}

/** The error a promise rejects with (fails the test when it resolves). */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail, but it succeeded');
}

/** One JSON request to the emulator; returns status, headers and the parsed body. */
export async function request(
  emulator: EmulatorServer,
  path: string,
  init: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
) {
  const res = await fetch(`${emulator.url}${path}`, {
    method: init.method ?? 'POST',
    headers: {
      ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...init.headers,
    },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

/** `POST /_emulator/inbound`: a person posts; returns `{messageId, threadId}`. */
export async function personPosts(
  emulator: EmulatorServer,
  input: { space: string; text: string; threadId?: string; user?: string },
): Promise<{ messageId: string; threadId: string }> {
  const res = await request(emulator, '/_emulator/inbound', { body: input });
  if (res.status !== 200) throw new Error(`inbound failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}
