/**
 * Grapheme-safe truncation. Lengths are UTF-16 code units (JS `.length`),
 * the unit the platforms' character limits are checked against here; a cut
 * never splits a surrogate pair or a grapheme cluster (an emoji ZWJ
 * sequence, a flag, a letter with combining marks).
 */

/** Appended when text was cut. */
export const TRUNCATION_SUFFIX = '…[truncated]';

/**
 * Every code point that can extend, join or prepend to a grapheme cluster
 * is ≥ U+0300. So between two code units below U+0300 there is always a
 * boundary, except inside CR LF.
 */
const JOINS_BELOW = 0x300;

function isPlainBoundary(text: string, at: number): boolean {
  const before = text.charCodeAt(at - 1);
  const after = text.charCodeAt(at);
  return before < JOINS_BELOW && after < JOINS_BELOW && !(before === 13 && after === 10);
}

let segmenter: Intl.Segmenter | undefined;
function graphemeSegmenter(): Intl.Segmenter {
  segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  return segmenter;
}

/**
 * The longest prefix of `text` of at most `maxChars` code units that ends on
 * a grapheme boundary (empty when the first cluster alone is longer).
 */
export function cutGraphemes(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  if (maxChars <= 0) return '';
  // Fast path, whatever the rest of the text holds: plain characters around the cut.
  if (isPlainBoundary(text, maxChars)) return text.slice(0, maxChars);
  // Segment only from the nearest plain boundary before the cut. A boundary at
  // `maxChars` depends on the code point after it (two units for a surrogate
  // pair) and never looks further ahead.
  let from = maxChars - 1;
  while (from > 0 && !isPlainBoundary(text, from)) from--;
  let end = from;
  for (const { segment } of graphemeSegmenter().segment(text.slice(from, maxChars + 2))) {
    if (end + segment.length > maxChars) break;
    end += segment.length;
  }
  return text.slice(0, end);
}

/**
 * `text` when it fits in `maxChars`, else a grapheme-safe prefix plus
 * `suffix`, `maxChars` long at most. Re-truncating already truncated text
 * first removes its old suffix, so suffixes never stack.
 */
export function truncateGraphemes(
  text: string,
  maxChars: number,
  suffix: string = TRUNCATION_SUFFIX,
): string {
  if (!Number.isInteger(maxChars) || maxChars < suffix.length) {
    throw new RangeError(
      `truncateGraphemes: maxChars must be an integer ≥ the suffix length (${suffix.length}), got ${maxChars}`,
    );
  }
  if (text.length <= maxChars) return text;
  const base = suffix !== '' && text.endsWith(suffix) ? text.slice(0, -suffix.length) : text;
  return cutGraphemes(base, maxChars - suffix.length) + suffix;
}
