/**
 * The Google Chat surface against the Google Chat emulator on a simulated
 * clock: the real googleapis client over loopback HTTP, the emulator's
 * inspection API (`/_emulator/*`) for faults, limits, people and deletions.
 */
import { SimulatedClock } from 'xstate';
import type { EmulatorServer } from '../../../src/emulators/core/index.js';
import { type GchatEmulatorOptions, startGchatEmulator } from '../../../src/emulators/gchat/index.js';
import type { FaultRule, LimitRule, RecordedCall } from '../../../src/emulators/types.js';
import { createGchatSurface, type GchatSurfaceOptions } from '../../../src/platforms/gchat/surface.js';
import type { ChatSurface, SurfaceError } from '../../../src/surfaces/surface.js';
import { emulatorCall } from '../../emulators/inspection.js';

export const START_MS = Date.UTC(2025, 0, 1, 12, 0, 0);
export const SPACE = 'gchat:spaces/AAAA';
export const SPACE_NAME = 'spaces/AAAA';

export interface SurfaceHarness {
  emulator: EmulatorServer;
  clock: SimulatedClock;
  surface: ChatSurface;
  /** Calls the app made (a person's inbound messages and deletions left out). */
  calls(): RecordedCall[];
  faults(rules: FaultRule[]): Promise<void>;
  limits(rules: LimitRule[]): Promise<void>;
  /** A person posts in the space (a new thread unless `threadId`). */
  personPosts(text: string, threadId?: string): Promise<{ messageId: string; threadId: string }>;
  /** A person deletes a message. */
  personDeletes(messageId: string): Promise<void>;
  close(): Promise<void>;
}

export async function startSurfaceHarness(
  opts: { emulator?: Omit<GchatEmulatorOptions, 'now'>; surface?: Omit<GchatSurfaceOptions, 'apiUrl'> } = {},
): Promise<SurfaceHarness> {
  const clock = new SimulatedClock();
  clock.set(START_MS);
  const emulator = await startGchatEmulator({ ...opts.emulator, now: () => clock.now() });
  const inspect = emulatorInspection(emulator.url);
  return {
    emulator,
    clock,
    surface: createGchatSurface({ apiUrl: emulator.url, ...opts.surface }),
    calls: () => emulator.state.calls().filter((c) => c.op !== 'inbound' && c.path !== '/_emulator/delete'),
    faults: async (rules) => {
      await inspect('faults', { rules });
    },
    limits: async (rules) => {
      await inspect('limits', { rules });
    },
    personPosts: async (text, threadId) =>
      (await inspect('inbound', {
        space: SPACE_NAME,
        text,
        ...(threadId === undefined ? {} : { threadId }),
      })) as { messageId: string; threadId: string },
    personDeletes: async (messageId) => {
      await inspect('delete', { messageId });
    },
    close: () => emulator.close(),
  };
}

/** The error a call rejects with (fails the test when it resolves). */
export async function rejection(call: Promise<unknown>): Promise<SurfaceError> {
  try {
    await call;
  } catch (error) {
    // A SurfaceError, or an AbortError the test checks by name.
    return error as SurfaceError;
  }
  throw new Error('expected the call to fail, but it succeeded');
}

/** POSTs to the emulator's inspection API (`/_emulator/<path>`), failing on any answer but 200 (test/emulators/inspection.ts). */
export function emulatorInspection(url: string): (path: string, body: unknown) => Promise<unknown> {
  return (path, body) => emulatorCall<unknown>(url, path, body);
}
