/** The chat surfaces `turnlog serve` posts through, one per configured platform. */
import { ConfigError, type TurnlogConfig } from '../config.js';
import { builtinPlatforms, type PlatformRegistry } from '../platforms/registry.js';
import type { IntakeContext, PlatformIntake, SurfaceContext } from '../platforms/types.js';
import type { ChatSurface } from '../surfaces/surface.js';

/**
 * Builds a surface for every platform under `platforms`, through its
 * descriptor's `createSurface` (a platform that cannot serve, e.g. without
 * credentials, refuses with a ConfigError naming the key). At least one
 * platform is needed.
 */
export function createSurfaces(
  platforms: TurnlogConfig['platforms'],
  registry: PlatformRegistry = builtinPlatforms,
  context: SurfaceContext = { now: Date.now },
): Partial<Record<string, ChatSurface>> {
  const surfaces: Partial<Record<string, ChatSurface>> = {};
  for (const [id, config] of Object.entries(platforms as Record<string, unknown>)) {
    if (config === undefined) continue;
    const descriptor = registry.get(id);
    if (descriptor === undefined) {
      throw new ConfigError(`platforms.${id}: unknown platform (${registry.ids.join(', ')})`);
    }
    surfaces[id] = descriptor.createSurface(config, context);
  }
  if (Object.keys(surfaces).length === 0) {
    throw new ConfigError(
      'platforms: configure at least one platform, e.g. {"platforms": {"gchat": {"apiUrl": "http://127.0.0.1:PORT"}}} for an emulator',
    );
  }
  return surfaces;
}

/**
 * The intakes of the configured platforms that ask for one (docs/http-api.md,
 * "Platform intake"): by platform id, for `POST /v1/platforms/<id>/events`
 * and the connections serve keeps (a gateway).
 */
export function createIntakes(
  platforms: TurnlogConfig['platforms'],
  registry: PlatformRegistry,
  context: IntakeContext,
): Record<string, PlatformIntake> {
  const intakes: Record<string, PlatformIntake> = {};
  for (const [id, config] of Object.entries(platforms as Record<string, unknown>)) {
    if (config === undefined) continue;
    const intake = registry.get(id)?.createIntake?.(config, context);
    if (intake !== undefined) intakes[id] = intake;
  }
  return intakes;
}
