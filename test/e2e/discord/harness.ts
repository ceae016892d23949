/**
 * End to end on Discord: the real runtime (createRuntime: ingest → space →
 * turn → budget) on the Discord surface, through @discordjs/rest, against
 * the Discord emulator (with Discord's limits) over loopback HTTP. One
 * SimulatedClock drives the runtime's timers, the surface's rate-limit state
 * and the emulator's clock; time moves in 100 ms steps and after each step
 * the harness waits (vi.waitFor) until no Discord call is in flight.
 *
 * @discordjs/rest reads Date.now() for its own bucket state, so Date is faked
 * to follow the simulated clock (in production both are the system clock).
 *
 * The surface is counted, not changed: a wrapper tracks calls in flight and
 * passes everything else through (its pacing, `waitMsFor`, included). What
 * the platforms share is test/e2e/shared/platform-e2e.ts; this file gives it
 * Discord's emulator, surface and channel, the fake Date and the thread view.
 */
import { vi } from 'vitest';
import type { SimulatedClock } from 'xstate';
import type { TurnlogConfigInput } from '../../../src/config.js';
import {
  type DiscordEmulator,
  type DiscordEmulatorOptions,
  startDiscordEmulator,
} from '../../../src/emulators/discord/index.js';
import type { EmulatedMessage, RecordedCall } from '../../../src/emulators/types.js';
import { createDiscordSurface, type DiscordSurface } from '../../../src/platforms/discord/index.js';
import type { TurnlogStore } from '../../../src/store/store.js';
import { asSeen } from '../../emulators/inspection.js';
import { clockAt, type E2EBasics, type PlatformE2E, startPlatformE2E } from '../shared/platform-e2e.js';

export const START_MS = Date.UTC(2025, 0, 1, 12, 0, 0);
export const CHANNEL = '1800000000000000001';
export const SPACE = `discord:${CHANNEL}`;
export const TOKEN = 'test-bot-token';

export interface DiscordE2E
  extends E2EBasics<DiscordEmulator>,
    Pick<PlatformE2E<DiscordEmulator, DiscordSurface>, 'errors' | 'stopRuntime'> {
  /** The surface the runtime calls (its calls counted while in flight). */
  surface: DiscordSurface;
  /** A person writes in the channel, fed to the runtime as an `inbound` event with `ref`. */
  userMessage(ref: string, opts?: { space?: string; text?: string }): Promise<{ messageId: string }>;
  /** Moves the clock `ms` in steps of `stepMs` (default 100), waiting after each until no call is in flight. */
  advance(ms: number, stepMs?: number): Promise<void>;
  /** The channel's top-level messages as a person sees them: a Components V2 message reads as its Text Displays. */
  messages(channel?: string): EmulatedMessage[];
  /** The messages in the thread started on `rootId` (a Discord thread has its starter message's id). */
  thread(rootId: string, channel?: string): EmulatedMessage[];
}

export interface DiscordE2EOptions {
  config?: TurnlogConfigInput;
  emulator?: Omit<DiscordEmulatorOptions, 'now'>;
  store?: TurnlogStore;
  /** Reuse a running emulator and clock (a restarted runtime). */
  reuse?: { emulator: DiscordEmulator; clock: SimulatedClock };
}

export async function startDiscordE2E(opts: DiscordE2EOptions = {}): Promise<DiscordE2E> {
  const clock = opts.reuse?.clock ?? clockAt(START_MS);
  // @discordjs/rest keeps its own bucket state on Date.now(): the wall clock follows the simulated one,
  // as it does in production, where both are the system clock.
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(clock.now());
  const e2e = await startPlatformE2E({
    platform: 'discord',
    name: 'Discord',
    space: SPACE,
    startMs: START_MS,
    clock,
    startEmulator: (now) => startDiscordEmulator({ ...opts.emulator, now }),
    ...(opts.reuse ? { emulator: opts.reuse.emulator } : {}),
    createSurface: (emulator) =>
      createDiscordSurface({ token: TOKEN, apiUrl: emulator.url, now: () => clock.now() }),
    ...(opts.config ? { config: opts.config } : {}),
    ...(opts.store ? { store: opts.store } : {}),
    onStep: () => vi.setSystemTime(clock.now()),
    onStop: () => vi.useRealTimers(),
  });
  const seen = (channel: string) => e2e.emulator.state.messages(channel).map(asSeen);
  return Object.assign(e2e, {
    surface: e2e.counted,
    async userMessage(ref: string, o: { space?: string; text?: string } = {}) {
      const space = o.space ?? SPACE;
      const posted = await e2e.emulatorCall<{ messageId: string }>('inbound', {
        space: space.slice('discord:'.length),
        text: o.text ?? `user message ${ref}`,
      });
      e2e.send({ type: 'inbound', messageId: posted.messageId, ref }, space);
      return posted;
    },
    messages: (channel = CHANNEL) => seen(channel).filter((m) => m.thread === null),
    thread: (rootId: string, channel = CHANNEL) => seen(channel).filter((m) => m.thread === rootId),
  });
}

export const landed = (calls: RecordedCall[]): RecordedCall[] => calls.filter((c) => c.status < 300);

/** The bit Discord's SUPPRESS_NOTIFICATIONS sets (https://discord.com/developers/docs/resources/message#message-object-message-flags). */
export const SUPPRESS_NOTIFICATIONS = 1 << 12;
