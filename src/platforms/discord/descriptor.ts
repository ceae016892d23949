/**
 * Discord as a turnlog platform: everything the registry reads about it.
 *
 * - Space ids are `discord:<channel id>`; a thread is a channel of its own
 *   for rate limits (https://discord.com/developers/docs/topics/rate-limits:
 *   limits count per top-level resource, and a thread is a channel).
 * - Budget: 50 requests/s in all (the global limit), at most one edit per
 *   channel per second; the real pacing comes from the answers' headers
 *   (rate-limits.ts), which the surface exposes as `rateLimits`.
 * - Config: `platforms.discord.{apiUrl?, token, gateway?, logStyle?}`.
 */
import { z } from 'zod';
import { apiUrlSchema, secretSchema } from '../../registry/config-schemas.js';
import type { PlatformDescriptor } from '../../registry/descriptor.js';
import { DISCORD_SPACE_ID } from './ids.js';
import { createDiscordIntake } from './intake.js';
import { createDiscordSurface, DISCORD_CAPABILITIES } from './surface.js';

export const discordConfigSchema = z
  .object({
    apiUrl: apiUrlSchema.optional(),
    token: secretSchema.describe('The bot token, or "env:NAME".'),
    gateway: z
      .boolean()
      .default(false)
      .describe('Receive messages and button clicks over the gateway (MESSAGE_CREATE, INTERACTION_CREATE).'),
    logStyle: z
      .enum(['components', 'text'])
      .default('components')
      .describe(
        'The activity log as Components V2 (coloured by state, 4,000 chars) or plain text (2,000 chars).',
      ),
  })
  .strict();

export type DiscordConfig = z.output<typeof discordConfigSchema>;

export const discordPlatform: PlatformDescriptor<DiscordConfig> = {
  id: 'discord',
  displayName: 'Discord',
  spaceIdPattern: DISCORD_SPACE_ID,
  spaceExample: 'discord:<channel id digits>',
  capabilities: DISCORD_CAPABILITIES,
  budget: { ratePerMinute: 3000, windowMs: 1000, channelSpacingMs: 1000 },
  rateChannel: (space, threadId) => (threadId ? `${space}#${threadId}` : space),
  // User `<@id>` / `<@!id>`, role `<@&id>`, `@everyone`, `@here`: one character and a bounded lookahead each.
  mentionForms: ['<(?=@!?\\d)', '<(?=@&\\d)', '@(?=everyone|here)'],
  configSchema: discordConfigSchema,
  secretKeys: ['token'],
  createSurface: (config, context) =>
    createDiscordSurface({
      token: config.token,
      ...(config.apiUrl === undefined ? {} : { apiUrl: config.apiUrl }),
      logStyle: config.logStyle,
      now: context.now,
      ...(context.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: context.requestTimeoutMs }),
    }),
  // `gateway: true`: people's messages and button presses over the gateway (intake.ts).
  createIntake: (config, context) =>
    config.gateway
      ? createDiscordIntake({
          token: config.token,
          ...(config.apiUrl === undefined ? {} : { apiUrl: config.apiUrl }),
          sink: context.sink,
          logger: context.logger,
          ...(context.deadLetter === undefined ? {} : { deadLetter: context.deadLetter }),
        })
      : undefined,
};
