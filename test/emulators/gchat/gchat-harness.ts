/**
 * Test harness: a Google Chat emulator on a simulated clock, and the official
 * googleapis client pointed at it the documented way (docs/platforms.md):
 * `chat({version: 'v1', rootUrl: url + '/'})`, no auth (so no Authorization
 * header), `retry: false` so gaxios never retries a 429/5xx with its own
 * backoff (it would for GET/PUT/DELETE) and tests stay fast.
 *
 * `chat` is imported from googleapis' own Chat module, the factory
 * `google.chat` calls: the same client, without loading the other ~300 APIs
 * (seconds of import time per test file).
 */
import { chat, type chat_v1 } from 'googleapis/build/src/apis/chat/index.js';
import { SimulatedClock } from 'xstate';
import type { EmulatorServer } from '../../../src/emulators/core/index.js';
import { type GchatEmulatorOptions, startGchatEmulator } from '../../../src/emulators/gchat/index.js';
import { emulatorCall } from '../inspection.js';

export const START_MS = Date.UTC(2025, 0, 1, 12, 0, 0);

export interface GchatHarness {
  emulator: EmulatorServer;
  clock: SimulatedClock;
  chat: chat_v1.Chat;
  /** Another Chat app (another credential) on the same emulator. */
  otherApp: chat_v1.Chat;
  close(): Promise<void>;
}

export function chatClient(url: string, headers: Record<string, string> = {}): chat_v1.Chat {
  return chat({ version: 'v1', rootUrl: `${url}/`, retry: false, headers });
}

export async function startHarness(opts: Omit<GchatEmulatorOptions, 'now'> = {}): Promise<GchatHarness> {
  const clock = new SimulatedClock();
  clock.set(START_MS);
  const emulator = await startGchatEmulator({ ...opts, now: () => clock.now() });
  return {
    emulator,
    clock,
    chat: chatClient(emulator.url),
    otherApp: chatClient(emulator.url, { Authorization: 'Bearer other-app' }),
    close: () => emulator.close(),
  };
}

/** The GaxiosError a rejected client call throws, with Google's error body. */
export interface ClientError {
  status: number;
  message: string;
  response: {
    status: number;
    headers: Headers;
    data: { error: { code: number; message: string; status: string } };
  };
}

/** Runs a client call that must fail and returns its error (fails the test if it resolves). */
export async function failure(call: Promise<unknown>): Promise<ClientError> {
  try {
    await call;
  } catch (error) {
    return error as ClientError;
  }
  throw new Error('expected the client call to fail, but it succeeded');
}

/** A person's message in `space` (optionally in a thread), through the emulator's HTTP inspection API. */
export async function personPosts(
  emulator: EmulatorServer,
  body: { space: string; text: string; threadId?: string; user?: string },
): Promise<{ messageId: string; threadId: string }> {
  return emulatorCall<{ messageId: string; threadId: string }>(emulator.url, 'inbound', body);
}
