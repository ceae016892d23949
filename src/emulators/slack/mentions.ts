/**
 * Which broad mentions a Slack message would fire. In `text`, Slack parses
 * `<!channel>`, `<!here>`, `<!everyone>` (and `<!subteam^…>`), never their
 * escaped form `&lt;!channel&gt;`; with `parse: full` or `link_names` it
 * also turns bare `@channel` / `@here` / `@everyone` into mentions. In
 * blocks, rich_text text elements are literal and only `broadcast` elements
 * ping (see blocks.ts). A person's mention (`<@U…>` in mrkdwn, a `user`
 * element in rich_text) is recorded too: it pings that person.
 */
import { type Block, broadMentionsInBlocks, mrkdwnMentionsIn } from './blocks.js';

// A bare word: `@channel` not preceded by a word character (so `me@here.com` is an address, not a ping).
const BARE_BROAD_MENTION = /(?<![\w.+-])@(channel|here|everyone)\b/g;

export interface MentionSource {
  text: string | undefined;
  blocks: Block[] | undefined;
  /** `parse: 'full'` or `link_names: true`: bare `@channel` links too. */
  linkNames: boolean;
}

/**
 * The mentions that fire, normalised to `<!channel>` form, without duplicates.
 * `text` counts even beside blocks: it is the notification's fallback text,
 * and an emulator that errs towards "it pinged" keeps safety tests honest.
 */
export function slackBroadMentions({ text, blocks, linkNames }: MentionSource): string[] {
  const found = new Set<string>(text === undefined ? [] : mrkdwnMentionsIn(text));
  if (text !== undefined && linkNames) {
    for (const match of text.matchAll(BARE_BROAD_MENTION)) found.add(`<!${match[1]}>`);
  }
  for (const mention of blocks ? broadMentionsInBlocks(blocks) : []) found.add(mention);
  return [...found];
}
