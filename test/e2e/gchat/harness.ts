import type { TurnlogConfigInput } from '../../../src/config.js';
import type { EmulatorServer } from '../../../src/emulators/core/index.js';
import { type GchatEmulatorOptions, startGchatEmulator } from '../../../src/emulators/gchat/index.js';
import type { EmulatedMessage, RecordedCall } from '../../../src/emulators/types.js';
import { createGchatSurface } from '../../../src/platforms/gchat/surface.js';
import { type E2EBasics, startPlatformE2E } from '../shared/platform-e2e.js';

export const START_MS = Date.UTC(2025, 0, 1, 12, 0, 0);
export const SPACE_NAME = 'spaces/AAAA';
export const SPACE = `gchat:${SPACE_NAME}`;

export interface GchatE2E extends E2EBasics<EmulatorServer> {
  /** A person writes in the space (a new thread unless `threadId`), fed to the runtime as an `inbound` event with `ref`. */
  userMessage(
    ref: string,
    opts?: { threadId?: string; space?: string },
  ): Promise<{ messageId: string; threadId: string }>;
  /** Moves the clock `ms` forward in small steps, quiet after each. */
  advance(ms: number): Promise<void>;
  messages(space?: string): EmulatedMessage[];
}

export async function startGchatE2E(
  opts: { config?: TurnlogConfigInput; emulator?: Omit<GchatEmulatorOptions, 'now'> } = {},
): Promise<GchatE2E> {
  return startPlatformE2E({
    platform: 'gchat',
    name: 'Google Chat',
    space: SPACE,
    startMs: START_MS,
    startEmulator: (now) => startGchatEmulator({ ...opts.emulator, now }),
    createSurface: (emulator) => createGchatSurface({ apiUrl: emulator.url }),
    ...(opts.config ? { config: opts.config } : {}),
  });
}

/** The successful ones. */
export const landed = (calls: RecordedCall[]): RecordedCall[] => calls.filter((c) => c.status < 300);
