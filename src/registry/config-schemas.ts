/**
 * Config building blocks every platform's `configSchema` uses (a secret, an
 * API origin), apart from src/config.ts so a platform module can import them
 * without importing the whole config (which reads the registry).
 */
import { z } from 'zod';

/** `NAME` of a secret given as `"env:NAME"`: read from the environment when the config is loaded. */
export const ENV_REFERENCE = /^env:([A-Za-z_][A-Za-z0-9_]*)$/;

/** A secret: the value itself, or `"env:NAME"` to read it from the environment variable NAME. */
export const secretSchema = z
  .string()
  .min(1, 'a non-empty string, or "env:NAME"')
  .refine((value) => !value.startsWith('env:') || ENV_REFERENCE.test(value), {
    message:
      'an "env:NAME" reference needs a variable name of letters, digits and _ (not starting with a digit)',
  })
  .describe('A secret, or "env:NAME" to read it from the environment variable NAME.');

export const apiUrlSchema = z
  .url({ protocol: /^https?$/, error: 'an http(s) URL, e.g. the url printed by `turnlog emulate`' })
  .describe("The platform API's origin; give an emulator's url (as printed by `turnlog emulate`) to use it.");

/** `platforms.slack` / `platforms.discord` until their modules land: an API origin and a bot token. */
export const tokenPlatformSchema = z
  .object({
    apiUrl: apiUrlSchema.optional(),
    token: secretSchema.optional().describe('Bot token, or "env:NAME".'),
  })
  .strict();
