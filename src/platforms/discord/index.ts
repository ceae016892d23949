/** Discord: the platform descriptor (the registry's one line) and the parts tests and tools use. */
export { type DiscordConfig, discordConfigSchema, discordPlatform } from './descriptor.js';
export {
  DiscordCode,
  DiscordEditWindowError,
  DiscordRateLimitedError,
  DiscordThreadArchivedError,
  DiscordWritesStoppedError,
  toSurfaceError,
} from './errors.js';
export { channelOf, nonceFor } from './ids.js';
export {
  createDiscordIntake,
  DEFAULT_ANSWER_WITHIN_MS,
  DISCORD_INTAKE_INTENTS,
  DiscordGatewayError,
  type DiscordIntake,
  type DiscordIntakeOptions,
} from './intake.js';
export {
  createInvalidRequestGuard,
  createRateLimitTracker,
  type InvalidRequestGuard,
  type RateLimitTracker,
} from './rate-limits.js';
export { DISCORD_LIMITS, type LogStyle, renderFrame, STATE_COLORS } from './render.js';
export {
  createDiscordSurface,
  DISCORD_CAPABILITIES,
  type DiscordSurface,
  type DiscordSurfaceOptions,
  THREAD_AUTO_ARCHIVE_MINUTES,
} from './surface.js';
