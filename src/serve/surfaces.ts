/** The chat surfaces `turnlog serve` posts through, one per configured platform. */
import { ConfigError, type TurnlogConfig } from '../config.js';
import type { Platform } from '../events/schema.js';
import { createGchatSurface } from '../surfaces/gchat/index.js';
import type { ChatSurface } from '../surfaces/surface.js';

/**
 * Builds a surface for every platform under `platforms`. Slack and Discord
 * are validated by the config but have no surface yet: configuring them is
 * an error naming the key, not a silent no-op. At least one platform is needed.
 */
export function createSurfaces(
  platforms: TurnlogConfig['platforms'],
): Partial<Record<Platform, ChatSurface>> {
  const surfaces: Partial<Record<Platform, ChatSurface>> = {};
  for (const platform of ['slack', 'discord'] as const) {
    if (platforms[platform] !== undefined) {
      throw new ConfigError(
        `platforms.${platform}: not supported yet (turnlog serve has a Google Chat surface only; remove platforms.${platform})`,
      );
    }
  }
  const gchat = platforms.gchat;
  if (gchat !== undefined) {
    surfaces.gchat = createGchatSurface({
      ...(gchat.apiUrl === undefined ? {} : { apiUrl: gchat.apiUrl }),
      ...(gchat.credentials === undefined ? {} : { credentials: gchat.credentials }),
    });
  }
  if (Object.keys(surfaces).length === 0) {
    throw new ConfigError(
      'platforms: configure at least one platform, e.g. {"platforms": {"gchat": {"apiUrl": "http://127.0.0.1:PORT"}}} for an emulator',
    );
  }
  return surfaces;
}
