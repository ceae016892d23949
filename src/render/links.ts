/**
 * Links in prose a person will read (the final answer, a job header): a link
 * may never show one address and lead to another, and only http(s) links are
 * links at all. Pure; the platform renderers call it on prose outside code.
 *
 * - Markdown `[label](url)` becomes `<url|label>` (Chat's and Slack's link
 *   syntax) when it is honest, else plain text showing both, `label (url)`.
 * - `<url|label>` already in the text (a host can write Chat/Slack syntax)
 *   gets the same judgement.
 * - A label that reads as an address anywhere in it (`https://accounts.google.com`,
 *   `accounts.google.com/login`, `Sign in at good.example`, `good.example.`, with
 *   homoglyphs or a fullwidth dot) is honest only when that host is the target's.
 * - `javascript:`, `data:`, `file:` and every other scheme is never a link:
 *   the `<` is broken with a zero-width space, so no platform parses it.
 */

import { domainToUnicode } from 'node:url';

/** Breaks `<` so Chat/Slack do not read `<…>` as markup (U+200B, invisible). */
const BREAK = '\u200B';

const MARKDOWN_LINK = /\[([^[\]\n]{1,512})\]\(([^\s()]{1,2048})\)/g;
/** `<target|label>` or `<target>`; `<users/…>`, `<@U…>` and other mentions have no scheme and are left to the mention rules. */
const ANGLE_LINK = /<([A-Za-z][A-Za-z0-9+.-]{0,31}:[^\s<>|]{0,2048})(?:\|([^<>\n]{0,512}))?>/g;
/**
 * Letters that read as Latin ones in a host name (Cyrillic, Greek, Armenian
 * and a few Latin variants), folded to the letter they pass for: `gооgle.com`
 * with Cyrillic о reads as google.com, and is judged as google.com.
 */
const CONFUSABLES: Readonly<Record<string, string>> = {
  а: 'a',
  в: 'b',
  е: 'e',
  ё: 'e',
  з: '3',
  і: 'i',
  ї: 'i',
  ј: 'j',
  к: 'k',
  м: 'm',
  н: 'h',
  о: 'o',
  р: 'p',
  с: 'c',
  т: 't',
  у: 'y',
  х: 'x',
  ѕ: 's',
  һ: 'h',
  ӏ: 'l',
  ԁ: 'd',
  ԛ: 'q',
  ԝ: 'w',
  ь: 'b',
  α: 'a',
  β: 'b',
  ε: 'e',
  η: 'n',
  ι: 'i',
  κ: 'k',
  μ: 'u',
  ν: 'v',
  ο: 'o',
  ρ: 'p',
  τ: 't',
  υ: 'u',
  χ: 'x',
  ω: 'w',
  ζ: 'z',
  օ: 'o',
  ս: 'u',
  ց: 'g',
  ո: 'n',
  ı: 'i',
  ȷ: 'j',
  ɡ: 'g',
  ǀ: 'l',
  ɑ: 'a',
};
const CONFUSABLE = new RegExp(`[${Object.keys(CONFUSABLES).join('')}]`, 'g');
/** Dots NFKC leaves alone: ideographic and halfwidth ideographic full stops. */
const OTHER_DOTS = /[\u3002\uFF61]/g;
/** Invisible characters that split a name without showing: zero-widths, word joiner, soft hyphen, BOM. */
const INVISIBLE = /[\u00AD\u200B-\u200D\u2060\uFEFF]/g;

/** Text as a reader takes it in a host name: NFKC, invisibles out, every dot a dot, lookalikes folded, lower case. */
export function foldForHost(text: string): string {
  return text
    .normalize('NFKC')
    .replace(INVISIBLE, '')
    .replace(OTHER_DOTS, '.')
    .toLowerCase()
    .replace(CONFUSABLE, (c) => CONFUSABLES[c] ?? c);
}

/**
 * A host-like token anywhere in a (folded) label: dotted labels of letters
 * and digits ending in a 2–63-letter top label (a trailing dot allowed), or
 * a dotted IPv4 address. A token right after a single `/` is a file in a
 * path (`src/links.ts`), not a host; after `//` or `@` it is one.
 */
const HOST_TOKEN =
  /(?<![\p{L}\p{N}_.-])(?<!(?<!\/)\/)(?:(?:[\p{L}\p{N}](?:[\p{L}\p{N}-]{0,61}[\p{L}\p{N}])?\.)+\p{L}{2,63}|\d{1,3}(?:\.\d{1,3}){3})(?![\p{L}\p{N}_-])/gu;

const normalHost = (host: string): string => foldForHost(host).replace(/\.$/, '');

/** The host a target shows, in the same folding (an IDN host read as its letters, not its punycode). */
function targetHost(target: URL): string {
  return normalHost(domainToUnicode(target.hostname) || target.hostname);
}

/**
 * Whether a label may stand for the target: every host-like token in it
 * (after folding) is the target's host; a label with none is plain words,
 * unless it names a scheme (`javascript://…`).
 */
export function labelMatchesTarget(label: string, target: URL): boolean {
  const folded = foldForHost(label);
  const hosts = [...folded.matchAll(HOST_TOKEN)].map((m) => m[0].replace(/\.$/, ''));
  if (hosts.length === 0) return !/[a-z][a-z0-9+.-]{0,31}:\/\//.test(folded);
  const own = targetHost(target);
  return hosts.every((host) => host === own);
}

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
