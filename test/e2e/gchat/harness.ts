/**
 * End to end on Google Chat: the real runtime (createRuntime: ingest → space
 * → turn → budget) on the Google Chat surface, through googleapis, against
 * the Google Chat emulator over loopback HTTP. One SimulatedClock drives the
 * runtime's timers and the emulator's clock; time moves in 100 ms steps and
 * after each step the harness waits (vi.waitFor) until no Chat call is in
 * flight, so every test reads the emulator's recorded calls at a quiet point.
 *
 * What the platforms share is test/e2e/shared/platform-e2e.ts; this file
 * gives it Google Chat's emulator, surface and space.
 */
import type { SimulatedClock } from 'xstate';
import type { TurnlogConfigInput } from '../../../src/config.js';
import type { EmulatorServer } from '../../../src/emulators/core/index.js';
import { type GchatEmulatorOptions, startGchatEmulator } from '../../../src/emulators/gchat/index.js';
import type { EmulatedMessage, FaultRule, RecordedCall } from '../../../src/emulators/types.js';
import { createGchatSurface } from '../../../src/platforms/gchat/surface.js';
import type { Runtime } from '../../../src/runtime.js';
import { startPlatformE2E } from '../shared/platform-e2e.js';

export const START_MS = Date.UTC(2025, 0, 1, 12, 0, 0);
export const SPACE_NAME = 'spaces/AAAA';
export const SPACE = `gchat:${SPACE_NAME}`;

export interface GchatE2E {
  runtime: Runtime;
  emulator: EmulatorServer;
  clock: SimulatedClock;
  /** Warnings and errors the runtime logged. */
  warnings: string[];
  /** Ingests one event into `space` (default SPACE); throws on a refused one. */
  send(event: Record<string, unknown>, space?: string): void;
  /** A person writes in the space (a new thread unless `threadId`), fed to the runtime as an `inbound` event with `ref`. */
  userMessage(
    ref: string,
    opts?: { threadId?: string; space?: string },
  ): Promise<{ messageId: string; threadId: string }>;
  /** Lets every call the runtime has started land. */
  quiet(): Promise<void>;
  /** Moves the clock `ms` forward in small steps, quiet after each. */
  advance(ms: number): Promise<void>;
  /** Calls the app made (a person's messages and deletions left out). */
  calls(): RecordedCall[];
  creates(): RecordedCall[];
  updates(): RecordedCall[];
  messages(space?: string): EmulatedMessage[];
  faults(rules: FaultRule[]): Promise<void>;
  /** A person deletes a message (`POST /_emulator/delete`). */
  personDeletes(messageId: string): Promise<void>;
  stop(): Promise<void>;
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
