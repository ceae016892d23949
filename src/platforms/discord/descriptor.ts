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
import { secretSchema } from '../../config.js';
import type { PlatformDescriptor } from '../types.js';
import { DISCORD_SPACE_ID } from './ids.js';
import { createDiscordSurface, DISCORD_CAPABILITIES } from './surface.js';

const ENV_REFERENCE = /^env:([A-Za-z_][A-Za-z0-9_]*)$/;

export const discordConfigSchema = z
  .object({
    apiUrl: z
      .url({ protocol: /^https?$/, error: 'an http(s) URL, e.g. the url printed by `turnlog emulate`' })
      .optional()
      .describe("Discord's API origin; give an emulator's url (as printed by `turnlog emulate`) to use it."),
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

/** A token still given as `env:NAME` (not resolved by the config loader): read it now, or say which variable is missing. */
function resolveToken(token: string): string {
  const name = ENV_REFERENCE.exec(token)?.[1];
  if (name === undefined) return token;
  const value = process.env[name];
  if (value === undefined || value === '') {
    throw new Error(`platforms.discord.token: environment variable ${name} is unset or empty`);
  }
  return value;
}

export const discordPlatform: PlatformDescriptor<DiscordConfig> = {
  id: 'discord',
  displayName: 'Discord',
  spaceIdPattern: DISCORD_SPACE_ID,
  spaceExample: 'discord:123456789012345678',
  capabilities: DISCORD_CAPABILITIES,
  budget: { ratePerMinute: 3000, windowMs: 1000, channelSpacingMs: 1000 },
  rateChannel: (space, threadId) => (threadId ? `${space}#${threadId}` : space),
  // User `<@id>` / `<@!id>`, role `<@&id>`, `@everyone`, `@here`: one character and a bounded lookahead each.
  mentionForms: ['<(?=@!?\\d)', '<(?=@&\\d)', '@(?=everyone|here)'],
  configSchema: discordConfigSchema,
  createSurface: (config, context) =>
    createDiscordSurface({
      token: resolveToken(config.token),
      ...(config.apiUrl === undefined ? {} : { apiUrl: config.apiUrl }),
      logStyle: config.logStyle,
      now: context.now,
      ...(context.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: context.requestTimeoutMs }),
    }),
};
