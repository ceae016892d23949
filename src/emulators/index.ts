/**
 * `startEmulator({platform, port?})` (docs/library.md): one loopback emulator
 * of Google Chat, Slack or Discord, in process, with the inspection API both
 * over HTTP (`/_emulator/*`) and as methods.
 */
import type { EmulatorServer } from './core/server.js';
import { startDiscordEmulator } from './discord/index.js';
import { startGchatEmulator } from './gchat/index.js';
import { startSlackEmulator } from './slack/index.js';
import {
  EMULATED_PLATFORMS,
  type EmulatedMessage,
  type FaultRule,
  type LimitRule,
  type Platform,
  type RecordedCall,
} from './types.js';

export interface StartEmulatorOptions {
  platform: Platform;
  /** Default 0: any free port (read it from `url`). */
  port?: number;
  /** Default `127.0.0.1`. */
  host?: string;
  /** Epoch ms clock for timestamps and limit windows (a simulated clock in tests). */
  now?: () => number;
  /** Replaces the platform's default rate limits; `[]` turns them off. */
  limits?: LimitRule[];
  /** Also refuse what the platform's strictest reading refuses (see each platform's options). */
  strict?: boolean;
}

export interface Emulator {
  platform: Platform;
  /** The origin, `http://127.0.0.1:PORT`. */
  url: string;
  calls(since?: number): RecordedCall[];
  /** A space as a person sees it (the platform's own space id). */
  messages(space: string): EmulatedMessage[];
  faults(rules: FaultRule[]): void;
  limits(rules?: LimitRule[]): LimitRule[];
  reset(): void;
  close(): Promise<void>;
}

export { EMULATED_PLATFORMS };

export async function startEmulator(opts: StartEmulatorOptions): Promise<Emulator> {
  const common = {
    ...(opts.port !== undefined ? { port: opts.port } : {}),
    ...(opts.host !== undefined ? { host: opts.host } : {}),
    ...(opts.now !== undefined ? { now: opts.now } : {}),
    ...(opts.limits !== undefined ? { limits: opts.limits } : {}),
    ...(opts.strict !== undefined ? { strict: opts.strict } : {}),
  };
  let server: EmulatorServer;
  switch (opts.platform) {
    case 'gchat':
      server = await startGchatEmulator(common);
      break;
    case 'slack':
      server = await startSlackEmulator(common);
      break;
    case 'discord':
      server = await startDiscordEmulator(common);
      break;
    default:
      throw new Error(
        `startEmulator: unknown platform ${JSON.stringify(opts.platform)} (gchat, slack or discord)`,
      );
  }
  const { state } = server;
  return {
    platform: opts.platform,
    url: server.url,
    calls: (since) => state.calls(since),
    messages: (space) => state.messages(space),
    faults: (rules) => state.faults(rules),
    limits: (rules) => state.limits(rules),
    reset: () => state.reset(),
    close: () => server.close(),
  };
}
