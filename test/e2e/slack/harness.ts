/**
 * End to end on Slack: the real runtime (createRuntime: ingest → space →
 * turn → budget) on the Slack surface, through @slack/web-api's WebClient,
 * against the Slack emulator over loopback HTTP. One SimulatedClock drives
 * the runtime's timers, the surface's clock and the emulator's clock (its
 * rate-limit windows); time moves in 100 ms steps and after each step the
 * harness waits (vi.waitFor) until no Slack call is in flight, so every test
 * reads the emulator's recorded calls at a quiet point.
 *
 * What the platforms share is test/e2e/shared/platform-e2e.ts; this file
 * gives it Slack's emulator, surface and channel.
 */
import type { SimulatedClock } from 'xstate';
import type { TurnlogConfigInput } from '../../../src/config.js';
import type { EmulatorServer } from '../../../src/emulators/core/index.js';
import { type SlackEmulatorOptions, startSlackEmulator } from '../../../src/emulators/slack/index.js';
import type { EmulatedMessage, FaultRule, RecordedCall } from '../../../src/emulators/types.js';
import { createSlackSurface, type SlackSurface } from '../../../src/platforms/slack/surface.js';
import type { Runtime } from '../../../src/runtime.js';
import type { TurnlogStore } from '../../../src/store/store.js';
import { emulatorCall } from '../../emulators/emulator-call.js';
import { startPlatformE2E } from '../shared/platform-e2e.js';

export const START_MS = Date.UTC(2026, 0, 1, 12, 0, 0);
export const CHANNEL = 'C0E2ESLACK';
export const SPACE = `slack:${CHANNEL}`;
export const BOT_TOKEN = 'xoxb-e2e-bot-token';

export interface SlackE2E {
  runtime: Runtime;
  emulator: EmulatorServer;
  clock: SimulatedClock;
  store: TurnlogStore;
  surface: SlackSurface;
  /** Warnings and errors the runtime logged. */
  warnings: string[];
  /** Ingests one event into `space` (default SPACE); throws on a refused one. */
  send(event: Record<string, unknown>, space?: string): void;
  /** A person writes in a channel (a new thread unless `threadId`), fed to the runtime as an `inbound` event with `ref`. */
  userMessage(
    ref: string,
    opts?: { threadId?: string; space?: string; text?: string },
  ): Promise<{ messageId: string; threadId: string }>;
  /** Lets every call the runtime has started land. */
  quiet(): Promise<void>;
  /** Moves the clock `ms` forward in small steps, quiet after each. */
  advance(ms: number): Promise<void>;
  /** Calls the app made (a person's messages and deletions left out). */
  calls(): RecordedCall[];
  creates(): RecordedCall[];
  updates(): RecordedCall[];
  messages(channel?: string): EmulatedMessage[];
  faults(rules: FaultRule[]): Promise<void>;
  /** A person deletes a message (`POST /_emulator/delete`). */
  personDeletes(messageId: string): Promise<void>;
  /** Stops the runtime only (a restart keeps the emulator and the store). */
  stopRuntime(): Promise<void>;
  /** A new runtime on the same store, surface and emulator (a restart). */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/** POSTs to the emulator's inspection API (`/_emulator/<endpoint>`), failing on any answer but 200 (test/emulators/emulator-call.ts). */
export async function inspectEmulator(url: string, endpoint: string, body: unknown): Promise<unknown> {
  return emulatorCall<unknown>(url, endpoint, body);
}

export async function startSlackE2E(
  opts: {
    config?: TurnlogConfigInput;
    emulator?: Omit<SlackEmulatorOptions, 'now'>;
    store?: TurnlogStore;
  } = {},
): Promise<SlackE2E> {
  return startPlatformE2E({
    platform: 'slack',
    name: 'Slack',
    space: SPACE,
    startMs: START_MS,
    startEmulator: (now) => startSlackEmulator({ ...opts.emulator, now }),
    createSurface: (emulator, clock) =>
      createSlackSurface({ token: BOT_TOKEN, apiUrl: emulator.url, now: () => clock.now() }),
    ...(opts.config ? { config: opts.config } : {}),
    ...(opts.store ? { store: opts.store } : {}),
    ignoredPaths: ['/api/auth.test'],
  });
}

/** The successful ones (Slack refuses with HTTP 200 and `{ok: false, error}`: the emulator records the error). */
export const landed = (calls: RecordedCall[]): RecordedCall[] =>
  calls.filter((c) => c.status < 300 && c.details?.error === undefined);
