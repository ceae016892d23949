/**
 * The platforms turnlog ships with, loaded on demand: serve, the demo and
 * the CLI import a platform's folder (and so its SDK) only when that
 * platform is configured. The core never imports this module; it gets the
 * registry built here.
 */

import type { PlatformDescriptor } from '../registry/descriptor.js';
import { createPlatformRegistry, type PlatformRegistry } from '../registry/registry.js';

export const BUILTIN_PLATFORM_IDS = ['gchat', 'slack', 'discord'] as const;
export type BuiltinPlatformId = (typeof BUILTIN_PLATFORM_IDS)[number];

const LOADERS: Record<BuiltinPlatformId, () => Promise<PlatformDescriptor>> = {
  gchat: () => import('./gchat/descriptor.js').then((m) => m.gchatPlatform as PlatformDescriptor),
  slack: () => import('./slack/descriptor.js').then((m) => m.slackPlatform as PlatformDescriptor),
  discord: () => import('./discord/descriptor.js').then((m) => m.discordPlatform as PlatformDescriptor),
};

export const isBuiltinPlatform = (id: string): id is BuiltinPlatformId => Object.hasOwn(LOADERS, id);

/** The descriptor of a built-in platform; imports its folder (and SDK) on first use. */
export function loadBuiltinPlatform(id: BuiltinPlatformId): Promise<PlatformDescriptor> {
  return LOADERS[id]();
}

/**
 * A registry of the built-ins among `ids` (ids that are not built-in are
 * skipped: they come as extra descriptors) plus `extra`. Default: all built-ins.
 */
export async function loadBuiltinPlatforms(
  ids: Iterable<string> = BUILTIN_PLATFORM_IDS,
  extra: readonly PlatformDescriptor[] = [],
): Promise<PlatformRegistry> {
  const wanted = BUILTIN_PLATFORM_IDS.filter((id) => [...ids].includes(id));
  const descriptors = await Promise.all(wanted.map(loadBuiltinPlatform));
  return createPlatformRegistry([...descriptors, ...extra]);
}
