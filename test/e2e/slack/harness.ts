import type { TurnlogConfigInput } from '../../../src/config.js';
import type { EmulatorServer } from '../../../src/emulators/core/index.js';
import { type SlackEmulatorOptions, startSlackEmulator } from '../../../src/emulators/slack/index.js';
import type { EmulatedMessage, RecordedCall } from '../../../src/emulators/types.js';
import { createSlackSurface, type SlackSurface } from '../../../src/platforms/slack/surface.js';
import type { TurnlogStore } from '../../../src/store/store.js';
import { emulatorCall } from '../../emulators/inspection.js';
import { type E2EBasics, type PlatformE2E, startPlatformE2E } from '../shared/platform-e2e.js';

export const START_MS = Date.UTC(2026, 0, 1, 12, 0, 0);
export const CHANNEL = 'C0E2ESLACK';
export const SPACE = `slack:${CHANNEL}`;
export const BOT_TOKEN = 'xoxb-e2e-bot-token';

export interface SlackE2E
  extends E2EBasics<EmulatorServer>,
    Pick<PlatformE2E<EmulatorServer, SlackSurface>, 'store' | 'stopRuntime' | 'restart'> {
  surface: SlackSurface;
  /** A person writes in a channel (a new thread unless `threadId`), fed to the runtime as an `inbound` event with `ref`. */
  userMessage(
    ref: string,
    opts?: { threadId?: string; space?: string; text?: string },
  ): Promise<{ messageId: string; threadId: string }>;
  /** Moves the clock `ms` forward in small steps, quiet after each. */
  advance(ms: number): Promise<void>;
  messages(channel?: string): EmulatedMessage[];
}

/** POSTs to the emulator's inspection API (`/_emulator/<endpoint>`), failing on any answer but 200 (test/emulators/inspection.ts). */
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
