/**
 * Every built-in platform, imported eagerly (all three SDKs load): for the
 * testing kit and tests that want the whole registry at once. Production
 * entry points load platforms lazily through builtin.ts instead.
 */
import type { PlatformDescriptor } from '../registry/descriptor.js';
import { createPlatformRegistry, type PlatformRegistry } from '../registry/registry.js';
import { discordPlatform } from './discord/descriptor.js';
import { gchatPlatform } from './gchat/descriptor.js';
import { slackPlatform } from './slack/descriptor.js';

export const builtinPlatforms: PlatformRegistry = createPlatformRegistry([
  gchatPlatform as PlatformDescriptor,
  slackPlatform as PlatformDescriptor,
  discordPlatform as PlatformDescriptor,
]);

/** The built-ins plus `extra` (descriptors defined outside src/platforms/). */
export const platformRegistry = (extra: readonly PlatformDescriptor[] = []): PlatformRegistry =>
  builtinPlatforms.with(...extra);
