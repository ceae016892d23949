/**
 * The Slack surface against the Slack emulator on a simulated clock: the
 * real @slack/web-api client over loopback HTTP, the emulator's inspection
 * API (`/_emulator/*`) for faults, limits, people and deletions. Shaped like
 * the other surfaces' harnesses, so the shared surface contract suite can
 * take `startSlackHarness` as its factory.
 */
import { SimulatedClock } from 'xstate';
import type { EmulatorServer } from '../../../src/emulators/core/index.js';
import { type SlackEmulatorOptions, startSlackEmulator } from '../../../src/emulators/slack/index.js';
import type { FaultRule, LimitRule, RecordedCall } from '../../../src/emulators/types.js';
import {
  createSlackSurface,
  type SlackSurface,
  type SlackSurfaceOptions,
} from '../../../src/platforms/slack/surface.js';
import type { SurfaceFrame } from '../../../src/surfaces/frame.js';
import type { EditRequest, PostRequest } from '../../../src/surfaces/surface.js';
import { emulatorCall } from '../../emulators/inspection.js';

export const START_MS = Date.UTC(2026, 0, 1, 12, 0, 0);
export const TOKEN = 'xoxb-surface-test-token';
export const CHANNEL = 'C0SURFACE1';
export const SPACE = `slack:${CHANNEL}`;

export interface SlackHarness {
  emulator: EmulatorServer;
  clock: SimulatedClock;
  surface: SlackSurface;
  /** Calls the app made (a person's inbound messages and deletions left out). */
  calls(): RecordedCall[];
  faults(rules: FaultRule[]): Promise<void>;
  limits(rules: LimitRule[]): Promise<void>;
  /** A person posts in the channel (a new thread unless `threadId`). */
  personPosts(
    text: string,
    threadId?: string,
    channel?: string,
  ): Promise<{ messageId: string; threadId: string }>;
  /** A person deletes a message. */
  personDeletes(messageId: string): Promise<void>;
  close(): Promise<void>;
}

export async function startSlackHarness(
  opts: {
    emulator?: Omit<SlackEmulatorOptions, 'now'>;
    surface?: Omit<SlackSurfaceOptions, 'apiUrl' | 'token' | 'now'>;
  } = {},
): Promise<SlackHarness> {
  const clock = new SimulatedClock();
  clock.set(START_MS);
  const emulator = await startSlackEmulator({ ...opts.emulator, now: () => clock.now() });
  return {
    emulator,
    clock,
    surface: createSlackSurface({
      token: TOKEN,
      apiUrl: emulator.url,
      now: () => clock.now(),
      ...opts.surface,
    }),
    calls: () => emulator.state.calls().filter((c) => c.op !== 'inbound' && c.path !== '/_emulator/delete'),
    faults: async (rules) => {
      await emulatorCall(emulator.url, 'faults', { rules });
    },
    limits: async (rules) => {
      await emulatorCall(emulator.url, 'limits', { rules });
    },
    personPosts: async (text, threadId, channel = CHANNEL) =>
      emulatorCall<{ messageId: string; threadId: string }>(emulator.url, 'inbound', {
        space: channel,
        text,
        ...(threadId === undefined ? {} : { threadId }),
      }),
    personDeletes: async (messageId) => {
      await emulatorCall(emulator.url, 'delete', { messageId });
    },
    close: () => emulator.close(),
  };
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

export const prose = (markdown: string): SurfaceFrame => ({ kind: 'prose', markdown });

/** Requests in the port's shape (a frame is required). */
export function postReq(fields: PostRequest): PostRequest {
  return fields;
}

export function editReq(fields: EditRequest): EditRequest {
  return fields;
}
