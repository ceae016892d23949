import { cutGraphemes } from './truncate.js';

/**
 * Splits a long answer into parts of at most `max` UTF-16 units, so an answer
 * over a platform's limit goes out as several messages instead of being
 * refused whole. A cut falls at the last paragraph break (a blank line) in
 * reach, else at the last line break, else at the last grapheme boundary
 * (never inside a surrogate pair or an emoji sequence). The breaks a cut
 * falls on are dropped; a part that would be blank is left out, so text with
 * nothing to show gives no parts at all.
 */
export function splitProse(text: string, max: number): string[] {
  if (!Number.isInteger(max) || max < 1)
    throw new RangeError(`splitProse: max must be a positive integer, got ${max}`);
  const parts: string[] = [];
  let rest = text;
  while (rest.length > max) {
    const window = rest.slice(0, max + 1);
    const paragraph = window.lastIndexOf('\n\n');
    const line = window.lastIndexOf('\n');
    let cut: number;
    let skip: number;
    if (paragraph > 0) [cut, skip] = [paragraph, 2];
    else if (line > 0) [cut, skip] = [line, 1];
    else {
      cut = cutGraphemes(rest, max).length;
      // A grapheme longer than `max` on its own (a letter under thousands of combining
      // marks): cut it at `max` units, never inside a surrogate pair, so it costs as
      // many parts as its length needs, not one part per code point.
      if (cut === 0) cut = codePointCut(rest, max);
      skip = 0;
    }
    push(parts, rest.slice(0, cut));
    rest = rest.slice(cut + skip);
  }
  push(parts, rest);
  return parts;
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
