/** `platforms.slack` in the config file (its own module: the descriptor, app and intake all read it). */
import { z } from 'zod';
import { apiUrlSchema, secretSchema } from '../../registry/config-schemas.js';

export const slackConfigSchema = z
  .object({
    apiUrl: apiUrlSchema.optional(),
    token: secretSchema.describe('Bot token (xoxb-…), or "env:NAME".'),
    signingSecret: secretSchema
      .optional()
      .describe('Verifies the Events API and interactivity requests (X-Slack-Signature), or "env:NAME".'),
    appToken: secretSchema.optional().describe('App-level token (xapp-…) for Socket Mode, or "env:NAME".'),
    logStyle: z
      .enum(['card', 'plan'])
      .optional()
      .describe('The live log as a rich_text card (default) or as a native plan block of task cards.'),
  })
  .strict();

export type SlackConfig = z.output<typeof slackConfigSchema>;
