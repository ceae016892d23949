/**
 * Makes user-supplied text unable to ping a conversation: every broad mention
 * form (`<users/all>`, `<!channel>`, `<!here>`, `<!everyone>`,
 * `<!subteam^…>`, `<@&role>`, `@everyone`, `@here`) gets a zero-width space
 * after its opening character, on every platform — a text relayed to another
 * platform stays inert — plus the forms only one platform parses:
 * - gchat: any `<users/…>` (a person's mention pings that person too);
 * - slack: any `<!…>` special (`<!channel|label>` and forms the list misses).
 * The text reads the same; only the markup no longer parses. Pure.
 */
import type { Platform } from '../events/schema.js';

/** Invisible, and breaks the token so no platform parses it. */
export const MENTION_BREAK = '\u200B';

/**
 * Each alternative is one literal character with a bounded lookahead, so
 * the scan is linear in the text's length.
 */
const UNIVERSAL = [
  '<(?=users/all>)',
  '<(?=!(?:channel|here|everyone|subteam\\^))',
  '<(?=@&)',
  '@(?=everyone|here)',
];

const PLATFORM_FORMS: Readonly<Record<Platform, readonly string[]>> = {
  gchat: ['<(?=users/)'],
  slack: ['<(?=!)'],
  discord: [],
};

const PATTERNS: Readonly<Record<Platform, RegExp>> = {
  gchat: mentionPattern('gchat'),
  slack: mentionPattern('slack'),
  discord: mentionPattern('discord'),
};

function mentionPattern(platform: Platform): RegExp {
  return new RegExp([...UNIVERSAL, ...PLATFORM_FORMS[platform]].join('|'), 'gi');
}

/** `text` with every mention that could ping on `platform` (and every broad one anywhere) broken. */
export function neutralizeBroadMentions(text: string, platform: Platform): string {
  const pattern = PATTERNS[platform];
  if (pattern === undefined) {
    throw new TypeError(`neutralizeBroadMentions: unknown platform ${JSON.stringify(platform)}`);
  }
  return text.replace(pattern, (opening) => `${opening}${MENTION_BREAK}`);
}
