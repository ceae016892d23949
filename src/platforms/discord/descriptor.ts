/**
 * Discord's placeholder descriptor until src/platforms/discord/ has its
 * surface: its spaces validate, its facts (capabilities, budget, rate
 * channel, mentions) are known, and `turnlog serve` refuses its config by name.
 * Limits: https://discord.com/developers/docs/resources/message#create-message (content ≤ 2000)
 * and https://discord.com/developers/docs/topics/rate-limits.
 */
import { ConfigError } from '../../config-error.js';
import { tokenPlatformSchema } from '../config-schemas.js';
import type { PlatformDescriptor } from '../types.js';

export const discordPlatform: PlatformDescriptor<unknown> = {
  id: 'discord',
  displayName: 'Discord',
  spaceIdPattern: /^\d{1,20}$/,
  spaceExample: 'discord:<channel id digits>',
  capabilities: {
    maxChars: 2000,
    // SUPPRESS_NOTIFICATIONS on create; no threads in DMs.
    silentPosts: true,
    threadsInDms: false,
    idempotentCreate: false,
    cards: true,
    buttons: true,
  },
  // 50 requests/s global (counted per second); the 1 s spacing stays inside the observed ~5 edits per 5 s per channel.
  budget: { ratePerMinute: 3000, windowMs: 1000, channelSpacingMs: 1000 },
  // A thread is a channel of its own.
  rateChannel: (space, threadId) => (threadId ? `${space}#${threadId}` : space),
  mentionForms: [],
  secretKeys: ['token'],
  configSchema: tokenPlatformSchema,
  createSurface() {
    throw new ConfigError(
      'platforms.discord: not supported yet (turnlog serve has a Google Chat surface only; remove platforms.discord)',
    );
  },
};
