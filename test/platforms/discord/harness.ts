/**
 * The Discord surface against the Discord emulator on a simulated clock: the
 * real @discordjs/rest client over loopback HTTP, the emulator's inspection
 * API (`/_emulator/*`) for faults, limits, people and deletions. Same shape
 * as the Google Chat surface harness, so a shared contract suite can take it.
 */
import { SimulatedClock } from 'xstate';
import {
  type DiscordEmulator,
  type DiscordEmulatorOptions,
  startDiscordEmulator,
} from '../../../src/emulators/discord/index.js';
import type { FaultRule, LimitRule, RecordedCall } from '../../../src/emulators/types.js';
import {
  createDiscordSurface,
  type DiscordSurface,
  type DiscordSurfaceOptions,
} from '../../../src/platforms/discord/index.js';
import { proseFrame, type SurfaceFrame } from '../../../src/surfaces/frame.js';
import type { EditRequest, PostRequest } from '../../../src/surfaces/surface.js';
import { emulatorInspection } from '../../surfaces/gchat/harness.js';

export const START_MS = Date.UTC(2025, 0, 15, 12, 0, 0);
export const CHANNEL = '1800000000000000001';
export const SPACE = `discord:${CHANNEL}`;

export interface DiscordSurfaceHarness {
  emulator: DiscordEmulator;
  clock: SimulatedClock;
  surface: DiscordSurface;
  /** Another surface for the same bot (a restarted process: no cached threads, no rate-limit state). */
  freshSurface(opts?: Partial<DiscordSurfaceOptions>): DiscordSurface;
  /** Calls the app made (a person's inbound messages and deletions left out). */
  calls(): RecordedCall[];
  faults(rules: FaultRule[]): Promise<void>;
  limits(rules: LimitRule[]): Promise<void>;
  /** A person posts in the channel (or in a thread). */
  personPosts(
    text: string,
    opts?: { threadId?: string; space?: string },
  ): Promise<{ messageId: string; threadId: string }>;
  personDeletes(messageId: string): Promise<void>;
  /** The channel as a person sees it. */
  // biome-ignore lint/suspicious/noExplicitAny: tests read the view field by field.
  messages(channel?: string): Promise<any[]>;
  close(): Promise<void>;
}

export async function startDiscordSurfaceHarness(
  opts: { emulator?: Omit<DiscordEmulatorOptions, 'now'>; surface?: Partial<DiscordSurfaceOptions> } = {},
): Promise<DiscordSurfaceHarness> {
  const clock = new SimulatedClock();
  clock.set(START_MS);
  const emulator = await startDiscordEmulator({ ...opts.emulator, now: () => clock.now() });
  const inspect = emulatorInspection(emulator.url);
  const freshSurface = (more: Partial<DiscordSurfaceOptions> = {}) =>
    createDiscordSurface({
      token: 'test-bot-token',
      apiUrl: emulator.url,
      now: () => clock.now(),
      ...opts.surface,
      ...more,
    });
  return {
    emulator,
    clock,
    surface: freshSurface(),
    freshSurface,
    calls: () => emulator.state.calls().filter((c) => c.op !== 'inbound' && c.path !== '/_emulator/delete'),
    faults: async (rules) => {
      await inspect('faults', { rules });
    },
    limits: async (rules) => {
      await inspect('limits', { rules });
    },
    personPosts: async (text, more = {}) =>
      (await inspect('inbound', {
        space: more.space ?? CHANNEL,
        text,
        ...(more.threadId === undefined ? {} : { threadId: more.threadId }),
      })) as { messageId: string; threadId: string },
    personDeletes: async (messageId) => {
      await inspect('delete', { messageId });
    },
    messages: async (channel = CHANNEL) => {
      const res = await fetch(`${emulator.url}/_emulator/messages?space=${channel}`);
      return ((await res.json()) as { messages: unknown[] }).messages;
    },
    close: () => emulator.close(),
  };
}

/** The error a call rejects with (fails the test when it resolves). */
export { rejection } from '../../surfaces/gchat/harness.js';

/** Request fields as tests write them: a frame, or `text` (an answer: prose) or a policy `card` as shorthand. */
type RequestFields<T> = Omit<T, 'frame'> & {
  frame?: SurfaceFrame;
  text?: string;
  card?: { requestId: string; title: string; command: string; args?: string[] };
};

/** The frame a test's shorthand stands for: its frame, a policy card (approve / reject), or prose. */
function frameOf(fields: { frame?: SurfaceFrame; text?: string; card?: RequestFields<PostRequest>['card'] }) {
  if (fields.frame) return fields.frame;
  if (fields.card) {
    const { requestId, title, command, args = [] } = fields.card;
    return {
      kind: 'card',
      card: {
        kind: 'policy',
        id: requestId,
        title,
        body: [command, ...args].join(' '),
        actions: [
          { id: 'approve', label: 'Approve', style: 'primary' },
          { id: 'reject', label: 'Reject', style: 'danger' },
        ],
      },
    } satisfies SurfaceFrame;
  }
  return proseFrame(fields.text ?? '');
}

export const postReq = ({ frame, text, card, ...rest }: RequestFields<PostRequest>): PostRequest => ({
  ...rest,
  frame: frameOf({
    ...(frame ? { frame } : {}),
    ...(text === undefined ? {} : { text }),
    ...(card ? { card } : {}),
  }),
});

export const editReq = ({ frame, text, card, ...rest }: RequestFields<EditRequest>): EditRequest => ({
  ...rest,
  frame: frameOf({
    ...(frame ? { frame } : {}),
    ...(text === undefined ? {} : { text }),
    ...(card ? { card } : {}),
  }),
});
