/**
 * Slack's placeholder descriptor until src/platforms/slack/ has its surface:
 * its spaces validate, its facts (capabilities, budget, rate channel,
 * mentions) are known, and `turnlog serve` refuses its config by name.
 * Limits: https://docs.slack.dev/reference/methods/chat.update (Tier 3, ~50/min per app).
 */
import { ConfigError } from '../../config-error.js';
import { tokenPlatformSchema } from '../config-schemas.js';
import type { PlatformDescriptor } from '../types.js';

export const slackPlatform: PlatformDescriptor<unknown> = {
  id: 'slack',
  displayName: 'Slack',
  spaceIdPattern: /^[A-Z0-9]+$/,
  spaceExample: 'slack:C0123ABCD',
  capabilities: {
    maxChars: 40_000,
    silentPosts: false,
    threadsInDms: true,
    idempotentCreate: false,
    cards: true,
    buttons: true,
  },
  budget: { ratePerMinute: 50, channelSpacingMs: 1000 },
  rateChannel: (space) => space,
  // Any `<!…>` special (`<!channel|label>` and forms the universal list misses).
  mentionForms: ['<(?=!)'],
  secretKeys: ['token'],
  configSchema: tokenPlatformSchema,
  createSurface() {
    throw new ConfigError(
      'platforms.slack: not supported yet (turnlog serve has a Google Chat surface only; remove platforms.slack)',
    );
  },
};
