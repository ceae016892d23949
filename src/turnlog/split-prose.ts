import { cutGraphemes } from './truncate.js';

/**
 * Splits a long answer into parts of at most `max` UTF-16 units, so an answer
 * over a platform's limit goes out as several messages instead of being
 * refused whole. A cut falls at the last paragraph break (a blank line) in
 * reach, else at the last line break, else at the last grapheme boundary
 * (never inside a surrogate pair or an emoji sequence). The breaks a cut
 * falls on are dropped; a part that would be blank is left out, so text with
 * nothing to show gives no parts at all. `unitsOf` counts a character as
 * the platform receives it (an escaped `&` is five), so a part still fits
 * once escaped.
 */
export function splitProse(text: string, max: number, unitsOf: (code: number) => number = () => 1): string[] {
  if (!Number.isInteger(max) || max < 1)
    throw new RangeError(`splitProse: max must be a positive integer, got ${max}`);
  const parts: string[] = [];
  let rest = text;
  for (;;) {
    const reach = reachWithin(rest, max, unitsOf);
    if (reach === rest.length) break;
    const window = rest.slice(0, reach + 1);
    const paragraph = window.lastIndexOf('\n\n');
    const line = window.lastIndexOf('\n');
    let cut: number;
    let skip: number;
    if (paragraph > 0) [cut, skip] = [paragraph, 2];
    else if (line > 0) [cut, skip] = [line, 1];
    else {
      cut = cutGraphemes(rest, reach).length;
      // A grapheme longer than `max` on its own (a letter under thousands of combining
      // marks): cut it at `max` units, never inside a surrogate pair, so it costs as
      // many parts as its length needs, not one part per code point.
      if (cut === 0) cut = codePointCut(rest, Math.max(1, reach));
      skip = 0;
    }
    push(parts, rest.slice(0, cut));
    rest = rest.slice(cut + skip);
  }
  push(parts, rest);
  return parts;
}

/**
 * How many units of `text` fit in `max` once each is counted as the platform
 * will send it (`unitsOf`: Slack writes `&` as `&amp;`, five characters).
 */
function reachWithin(text: string, max: number, unitsOf: (code: number) => number): number {
  let used = 0;
  for (let i = 0; i < text.length; i++) {
    used += unitsOf(text.charCodeAt(i));
    if (used > max) return i;
  }
  return text.length;
}

/** The longest prefix of `text` within `max` units that does not end inside a surrogate pair (at least one code point). */
function codePointCut(text: string, max: number): number {
  const high = text.charCodeAt(max - 1);
  const cut = high >= 0xd800 && high <= 0xdbff ? max - 1 : max;
  if (cut > 0) return cut;
  return text.codePointAt(0)! > 0xffff ? 2 : 1;
}

function push(parts: string[], part: string): void {
  const trimmed = part.replace(/^\n+|\s+$/g, '');
  if (trimmed.trim() !== '') parts.push(trimmed);
}

/**
 * A character as the strictest platform sends it: Slack escapes `&`, `<` and
 * `>` as `&amp;`, `&lt;`, `&gt;` (docs/platforms.md), so a part measured this
 * way fits every platform's limit once rendered.
 */
export function escapedUnits(code: number): number {
  return code === 0x26 ? 5 : code === 0x3c || code === 0x3e ? 4 : 1;
}
