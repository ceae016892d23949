/**
 * User text inside Slack mrkdwn. Slack parses `<…>` as markup (`<!channel>`,
 * `<@U…>`, `<!subteam^…>`, `<url|label>`), so `&`, `<` and `>` must be
 * escaped as `&amp;`, `&lt;`, `&gt;` wherever user text meets mrkdwn
 * (https://docs.slack.dev/messaging/formatting-message-text#escaping). Bare
 * `@here` / `@everyone` only link with `link_names`, which turnlog never
 * sends; they are broken anyway (a zero-width space after the `@`), so a
 * text relayed elsewhere stays inert. Self-contained on purpose: the shared
 * mention breaker reads the platform registry, which imports this module.
 */
import { labelMatchesTarget } from '../../render/links.js';

/** Invisible, and breaks the word so no client links it. */
const MENTION_BREAK = '\u200B';
const BARE_BROAD = /@(?=(?:channel|here|everyone)\b)/gi;

export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** User text made safe for a mrkdwn field: escaped, and every broad mention broken. */
export function safeMrkdwn(text: string): string {
  return escapeMrkdwn(text).replace(BARE_BROAD, `@${MENTION_BREAK}`);
}

const HEADING = /^#{1,6}\s+(.+)$/gm;
const BOLD = /\*\*([^*\n]+)\*\*/g;
const LINK = /\[([^\]\n]+)\]\((https?:\/\/[^\s)]+)\)/g;

/**
 * Markdown prose as Slack mrkdwn: escaped first (so no markup can form from
 * the text), then headings and `**bold**` become `*bold*`, and `[label](https://…)`
 * becomes `<https://…|label>` — built from an http(s) URL only, so a link can
 * never turn into a `<!…>` or `<@…>` mention, and only when the label does not
 * read as another address (src/render/links.ts): else `label (url)`, plain.
 */
export function markdownToMrkdwn(markdown: string): string {
  return safeMrkdwn(markdown)
    .replace(HEADING, '*$1*')
    .replace(BOLD, '*$1*')
    .replace(LINK, (_match, label: string, url: string) => {
      // A label that is an address on another host (or reads as one) would show one place and lead to another.
      const target = webUrl(url.replace(/&amp;/g, '&'));
      if (target === undefined || !labelMatchesTarget(label.replace(/&amp;/g, '&'), target))
        return `${label} (${url})`;
      return `<${url.replace(/\|/g, '%7C')}|${label}>`;
    });
}

function webUrl(url: string): URL | undefined {
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}
