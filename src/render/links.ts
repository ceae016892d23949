/**
 * Links in prose a person will read (the final answer, a job header): a link
 * may never show one address and lead to another, and only http(s) links are
 * links at all. Pure; the platform renderers call it on prose outside code.
 *
 * - Markdown `[label](url)` becomes `<url|label>` (Chat's and Slack's link
 *   syntax) when it is honest, else plain text showing both, `label (url)`.
 * - `<url|label>` already in the text (a host can write Chat/Slack syntax)
 *   gets the same judgement.
 * - A label that is itself an address (`https://accounts.google.com`,
 *   `accounts.google.com/login`) is honest only when its host is the target's.
 * - `javascript:`, `data:`, `file:` and every other scheme is never a link:
 *   the `<` is broken with a zero-width space, so no platform parses it.
 */

/** Breaks `<` so Chat/Slack do not read `<…>` as markup (U+200B, invisible). */
const BREAK = '\u200B';

const MARKDOWN_LINK = /\[([^[\]\n]{1,512})\]\(([^\s()]{1,2048})\)/g;
/** `<target|label>` or `<target>`; `<users/…>`, `<@U…>` and other mentions have no scheme and are left to the mention rules. */
const ANGLE_LINK = /<([A-Za-z][A-Za-z0-9+.-]{0,31}:[^\s<>|]{0,2048})(?:\|([^<>\n]{0,512}))?>/g;
/** A label that reads as an address: an optional scheme, a dotted host, maybe a path. */
const ADDRESS_LABEL =
  /^\s*(?:[A-Za-z][A-Za-z0-9+.-]{0,31}:\/\/)?(?:[^\s/@:]+@)?((?:[A-Za-z0-9-]+\.)+[A-Za-z]{2,63})(?::\d+)?(?:[/?#]\S*)?\s*$/;

/** `https:`/`http:` targets only, parsed; undefined for anything else. */
function webTarget(target: string): URL | undefined {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return undefined;
  }
  return url.protocol === 'https:' || url.protocol === 'http:' ? url : undefined;
}

const normalHost = (host: string): string => host.toLowerCase().replace(/\.$/, '');

/** Whether a label may stand for the target: plain words, or an address on the target's own host. */
export function labelMatchesTarget(label: string, target: URL): boolean {
  const address = ADDRESS_LABEL.exec(label);
  if (!address) return !/[A-Za-z][A-Za-z0-9+.-]{0,31}:\/\//.test(label);
  return normalHost(address[1] ?? '') === normalHost(target.hostname);
}

/** One link, judged: the platform's `<url|label>` when honest, else plain text that shows where it goes. */
function renderLink(label: string, target: string, linkOf: (url: string, label: string) => string): string {
  const url = webTarget(target);
  if (url && labelMatchesTarget(label, url)) return linkOf(target, label);
  const shown = label === '' || label === target ? target : `${label} (${target})`;
  // Not a link: a `<` or `[` in it must not start one either.
  return shown.replace(/</g, `<${BREAK}`);
}

/**
 * Prose with its links made honest. `linkOf` writes the platform's link
 * syntax (Chat and Slack: `<url|label>`).
 */
export function safeLinks(
  text: string,
  linkOf: (url: string, label: string) => string = (url, label) => `<${url}|${label}>`,
): string {
  return text
    .replace(ANGLE_LINK, (_match, target: string, label: string | undefined) =>
      label === undefined
        ? webTarget(target)
          ? `<${target}>`
          : `<${BREAK}${target}>`
        : renderLink(label, target, linkOf),
    )
    .replace(MARKDOWN_LINK, (_match, label: string, target: string) => renderLink(label, target, linkOf));
}
