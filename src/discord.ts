/**
 * `turnlog/discord`: Discord as a plug-in — its descriptor (hand it to
 * `createRuntime({platforms})`) and its surface over `@discordjs/rest`.
 * Importing this entry loads the Discord SDK; `turnlog` alone does not.
 */
export { type DiscordConfig, discordConfigSchema, discordPlatform } from './platforms/discord/descriptor.js';
export {
  createDiscordSurface,
  type DiscordSurface,
  type DiscordSurfaceOptions,
} from './platforms/discord/surface.js';
