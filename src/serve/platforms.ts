/**
 * Which platforms serve loads: the built-ins its config (or its given
 * surfaces) names, imported then and only then, so an unconfigured
 * platform's SDK never loads; plus any extra descriptors.
 */
import type { TurnlogConfig } from '../config.js';
import { loadBuiltinPlatforms } from '../platforms/builtin.js';
import type { PlatformDescriptor } from '../registry/descriptor.js';
import type { PlatformRegistry } from '../registry/registry.js';
import type { ChatSurface } from '../surfaces/surface.js';

const keysOf = (value: unknown): string[] =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? Object.keys(value) : [];

/** The registry of the platforms `config.platforms` and `surfaces` name (config not yet validated). */
export function servedPlatforms(
  config: unknown,
  surfaces: Partial<Record<string, ChatSurface>> | undefined,
  extra: readonly PlatformDescriptor[] = [],
): Promise<PlatformRegistry> {
  const section =
    typeof config === 'object' && config !== null ? (config as { platforms?: unknown }).platforms : undefined;
  const ids = new Set([...keysOf(section), ...keysOf(surfaces)]);
  return loadBuiltinPlatforms(ids, extra);
}

/** Runs each configured platform's start-up check (a Slack token `auth.test` refuses fails here). */
export async function checkPlatformsAtStartup(
  config: TurnlogConfig,
  registry: PlatformRegistry,
): Promise<void> {
  for (const [id, section] of Object.entries(config.platforms as Record<string, unknown>)) {
    if (section !== undefined) await registry.get(id)?.checkStartup?.(section);
  }
}
