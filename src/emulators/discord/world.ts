/**
 * What every Discord route reads: the shared store and clock (from the core),
 * the channel registry, the apps (bot users, one per token) and the id
 * generator.
 */
import type { HandlerContext } from '../core/index.js';
import type { AppDirectory } from './apps.js';
import type { ChannelRegistry } from './channels.js';
import type { NonceLog } from './nonce-log.js';

export interface DiscordWorld {
  readonly ctx: HandlerContext;
  readonly channels: ChannelRegistry;
  readonly apps: AppDirectory;
  readonly nonces: NonceLog;
  /** The one emulated guild every guild channel belongs to. */
  readonly guildId: string;
  /** Strict: undeclared channels are unknown (10003) and a request without `Authorization` gets 401. */
  readonly strict: boolean;
  newId(): string;
}

// The data shapes live in data.ts (channels.ts reads them without importing the world).
export * from './data.js';
