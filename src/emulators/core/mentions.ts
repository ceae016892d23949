/**
 * Broad mentions: the tokens that ping a whole conversation or group. The
 * emulators record which fired, so a test can prove user text never pings a
 * channel. Each platform module decides which forms it parses and whether
 * they fire (Discord honours `allowed_mentions`, Slack only parses `<!…>`).
 */
import type { Platform } from '../types.js';

// Bare `@everyone`/`@here` match anywhere, as discord.js's EveryonePattern does.
// Linear time: every alternative starts with a literal `<` or `@`, and a label
// scan (`[^<>]*`) stops at the next `<`, so no character is rescanned from more
// than one start (`[^>]*` would rescan the rest of the text from every `<!channel|`).
const BROAD_MENTION =
  /<users\/all>|<!(channel|here|everyone)(?:\|[^<>]*)?>|<!subteam\^([A-Za-z0-9]+)(?:\|[^<>]*)?>|<@&(\d+)>|@(everyone|here)/g;

/**
 * Every broad mention in `text`, normalised (`<!channel|channel>` →
 * `<!channel>`), first occurrence order, without duplicates.
 */
export function detectBroadMentions(text: string): string[] {
  const found = new Set<string>();
  for (const match of text.matchAll(BROAD_MENTION)) {
    const [token, special, subteam, role, bare] = match;
    if (special) found.add(`<!${special}>`);
    else if (subteam) found.add(`<!subteam^${subteam}>`);
    else if (role) found.add(`<@&${role}>`);
    else if (bare) found.add(`@${bare}`);
    else found.add(token);
  }
  return [...found];
}

const PARSED_BY: Record<Platform, (mention: string) => boolean> = {
  gchat: (mention) => mention === '<users/all>',
  slack: (mention) => mention.startsWith('<!'),
  discord: (mention) => mention.startsWith('@') || mention.startsWith('<@&'),
};

/** The broad mentions in `text` that `platform` would parse as pings when sent as plain text. */
export function broadMentionsFor(platform: Platform, text: string): string[] {
  return detectBroadMentions(text).filter(PARSED_BY[platform]);
}
