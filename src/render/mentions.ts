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
import type { PlatformRegistry } from '../registry/registry.js';

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

/** One pattern per set of platform forms, built on first use. */
const patterns = new Map<string, RegExp>();

function mentionPattern(forms: readonly string[]): RegExp {
  const key = forms.join('\u0000');
  let pattern = patterns.get(key);
  if (pattern === undefined) {
    pattern = new RegExp([...UNIVERSAL, ...forms].join('|'), 'gi');
    patterns.set(key, pattern);
  }
  return pattern;
}

/** `text` with every broad mention and every one of `forms` (a platform's `mentionForms`) broken. */
export function neutralizeMentions(text: string, forms: readonly string[]): string {
  return text.replace(mentionPattern(forms), (opening) => `${opening}${MENTION_BREAK}`);
}

/** `text` with every mention that could ping on `platform` (and every broad one anywhere) broken. */
export function neutralizeBroadMentions(text: string, platform: string, platforms: PlatformRegistry): string {
  const descriptor = platforms.get(platform);
  if (descriptor === undefined) {
    throw new TypeError(`neutralizeBroadMentions: unknown platform ${JSON.stringify(platform)}`);
  }
  return neutralizeMentions(text, descriptor.mentionForms);
}
