/**
 * Google Chat as turnlog knows it: the descriptor the registry holds.
 * Limits and behaviours: https://developers.google.com/workspace/chat/api/reference/rest/v1/spaces.messages/create
 * and https://developers.google.com/workspace/chat/limits (docs/platforms.md keeps the facts the code relies on).
 */
import { existsSync } from 'node:fs';
import { z } from 'zod';
import { ConfigError } from '../../config-error.js';
import { apiUrlSchema, secretSchema } from '../../registry/config-schemas.js';
import type { PlatformDescriptor, SurfaceContext } from '../../registry/descriptor.js';
import { createGchatIntake } from './intake.js';
import { SPACE_NAME } from './names.js';
import { GCHAT_MENTION_FORMS } from './render.js';
import { createGchatSurface, GCHAT_CAPABILITIES } from './surface.js';

export const gchatConfigSchema = z
  .object({
    apiUrl: apiUrlSchema.optional(),
    credentials: secretSchema
      .optional()
      .describe(
        'Path of a service-account key file (or "env:NAME" holding it); absent: application default credentials. Not used with an emulator (apiUrl).',
      ),
    events: z
      .object({
        audience: z
          .string()
          // A blank audience would be compared with every token's: refused at start (issue 22.8).
          .regex(/^\S+$/, "the Chat app's project number (or its URL), without blanks")
          .describe(
            'The Chat app\'s "Authentication audience" (Project Number): a request whose Bearer JWT names another audience is refused.',
          ),
        jwksUrl: z
          .url({ protocol: /^https?$/, error: 'an http(s) URL of a JWK set or of X.509 certificates' })
          .optional()
          .describe(
            "Where the signing keys are published (a JWK set or {kid: certificate}); default Google's; an emulator's `/_emulator/jwks`.",
          ),
      })
      .strict()
      .optional()
      .describe('Receive Google Chat events at POST /v1/platforms/gchat/events (MESSAGE, CARD_CLICKED).'),
  })
  .strict();

export type GchatConfig = z.output<typeof gchatConfigSchema>;

/**
 * Google's credentials, checked before serving: without them every turn
 * would fail later at its first post. An `apiUrl` (an emulator) needs none.
 */
function requireCredentials(config: GchatConfig, context: SurfaceContext): void {
  if (config.apiUrl !== undefined) return;
  const env = context.env ?? process.env;
  if (config.credentials !== undefined) {
    if (!existsSync(config.credentials)) {
      throw new ConfigError(
        `platforms.gchat.credentials: no service-account key file at ${JSON.stringify(config.credentials)}`,
      );
    }
    return;
  }
  const adc = env.GOOGLE_APPLICATION_CREDENTIALS;
  if (adc === undefined || adc === '') {
    throw new ConfigError(
      'platforms.gchat: no Google credentials: give platforms.gchat.credentials (a service-account key file), set GOOGLE_APPLICATION_CREDENTIALS, or point platforms.gchat.apiUrl at an emulator (`turnlog emulate --platform gchat`)',
    );
  }
  if (!existsSync(adc)) {
    throw new ConfigError(
      `platforms.gchat: GOOGLE_APPLICATION_CREDENTIALS names ${JSON.stringify(adc)}, which does not exist`,
    );
  }
}

export const gchatPlatform: PlatformDescriptor<GchatConfig> = {
  id: 'gchat',
  displayName: 'Google Chat',
  spaceIdPattern: SPACE_NAME,
  spaceExample: 'gchat:spaces/AAAA',
  // Read late: importing the surface first reaches this module through render → mentions → registry,
  // before surface.ts has defined its capabilities.
  get capabilities() {
    return GCHAT_CAPABILITIES;
  },
  // 3000 writes/min per project; the 1 s channel spacing keeps a space at ≤ 60/min.
  budget: { ratePerMinute: 3000, channelSpacingMs: 1000 },
  // Google Chat counts writes per space.
  rateChannel: (space) => space,
  mentionForms: GCHAT_MENTION_FORMS,
  secretKeys: ['credentials'],
  configSchema: gchatConfigSchema,
  createSurface(config, context) {
    requireCredentials(config, context);
    return createGchatSurface({
      now: context.now,
      ...(config.apiUrl === undefined ? {} : { apiUrl: config.apiUrl }),
      ...(config.credentials === undefined ? {} : { credentials: config.credentials }),
      ...(context.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: context.requestTimeoutMs }),
    });
  },
  createIntake(config, context) {
    const events = config.events;
    if (events === undefined) return undefined;
    return createGchatIntake(
      { audience: events.audience, ...(events.jwksUrl === undefined ? {} : { jwksUrl: events.jwksUrl }) },
      context,
    );
  },
};
