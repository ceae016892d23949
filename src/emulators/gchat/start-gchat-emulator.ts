/** Starts the Google Chat emulator on loopback: `google.chat({version: 'v1', rootUrl: url + '/'})` talks to it unmodified. */
import { createEmulatorServer, type EmulatorServer } from '../core/index.js';
import type { LimitRule } from '../types.js';
import { GCHAT_DEFAULT_LIMITS } from './default-limits.js';
import { createGchatHandler } from './handler.js';

export interface GchatEmulatorOptions {
  /** Default 0: any free port (read it from `url`). */
  port?: number;
  /** Default `127.0.0.1`. */
  host?: string;
  /** Epoch ms for timestamps and limit windows; inject a simulated clock to drive windows without sleeping. */
  now?: () => number;
  /** The limits in force instead of GCHAT_DEFAULT_LIMITS (`[]` for none). */
  limits?: LimitRule[];
  /** Also refuse message text over 4096 characters (Google's older limit); default false (32,000 bytes only). */
  strict?: boolean;
  /** Spaces (`spaces/X` or `X`) that are DMs besides those whose id starts with `dm-`. */
  dmSpaces?: string[];
  /**
   * Epoch ms the JWTs sent to a registered app are stamped with; default
   * `Date.now` even when `now` is simulated, because the app verifies them
   * against its own wall clock.
   */
  tokenNow?: () => number;
}

export function startGchatEmulator(opts: GchatEmulatorOptions = {}): Promise<EmulatorServer> {
  return createEmulatorServer({
    platform: 'gchat',
    handler: createGchatHandler({
      ...(opts.strict === undefined ? {} : { strict: opts.strict }),
      ...(opts.dmSpaces === undefined ? {} : { dmSpaces: opts.dmSpaces }),
      ...(opts.tokenNow === undefined ? {} : { tokenNow: opts.tokenNow }),
    }),
    defaults: opts.limits ?? GCHAT_DEFAULT_LIMITS,
    ...(opts.port === undefined ? {} : { port: opts.port }),
    ...(opts.host === undefined ? {} : { host: opts.host }),
    ...(opts.now === undefined ? {} : { now: opts.now }),
  });
}
