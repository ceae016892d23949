/**
 * A platform descriptor: everything turnlog knows about one chat platform,
 * in one folder (src/platforms/<id>/). The registry (registry.ts) is the one
 * place config, budget, serve, routing and render read platform facts from,
 * so adding a platform means adding a folder and a registry line.
 */
import type { z } from 'zod';
import type { BudgetInput } from '../budget/config.js';
import type { ChatSurface, SurfaceCapabilities } from '../surfaces/surface.js';

export interface PlatformCapabilities extends SurfaceCapabilities {
  /** Longest single text element (Slack: 3,000 per block text; Discord V2: 4,000 in all). Default: `maxChars`. */
  maxTextElementChars?: number;
  /** A message older than this can no longer be edited freely (Discord: 30046 after 1 h); the turn rolls over before. */
  maxEditableAgeMs?: number;
  /** Can a message carry cards with buttons (policy requests, questions)? */
  cards: boolean;
  buttons: boolean;
}

/** What a surface factory gets besides its config section. */
export interface SurfaceContext {
  /** Epoch ms (the runtime clock). */
  now: () => number;
  /** Per-request timeout (ms). */
  requestTimeoutMs?: number;
  /** The environment secrets and credentials are looked up in. Default: `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
}

export interface PlatformDescriptor<Config = unknown> {
  /** The space prefix and config key: `gchat`, `slack`, `discord`. */
  readonly id: string;
  /** For people: `Google Chat`. */
  readonly displayName: string;
  /** The platform's own part of a space id (after `<id>:`), e.g. `^spaces/[A-Za-z0-9_-]+$`. */
  readonly spaceIdPattern: RegExp;
  /** An example space, shown in errors: `gchat:spaces/AAAA`. */
  readonly spaceExample: string;
  readonly capabilities: Readonly<PlatformCapabilities>;
  /** The budget's defaults for one app on this platform (`platform` is filled in from `id`). */
  readonly budget: Omit<BudgetInput, 'platform'>;
  /** What the platform rate-limits as one channel (Discord: a thread is a channel of its own). */
  rateChannel(space: string, threadId: string | undefined): string;
  /** Regex sources of mention forms only this platform parses (broken by `neutralizeBroadMentions`). */
  readonly mentionForms: readonly string[];
  /** `platforms.<id>` in the config file. */
  readonly configSchema: z.ZodType<Config>;
  /** Keys of `platforms.<id>` that hold secrets, which may be given as `"env:NAME"` (e.g. `token`). */
  readonly secretKeys?: readonly string[];
  /** The surface over the platform's official client. */
  createSurface(config: Config, context: SurfaceContext): ChatSurface;
}
