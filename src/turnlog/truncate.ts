/**
 * Grapheme-safe truncation. Lengths are UTF-16 code units (JS `.length`),
 * the unit the platforms' character limits are checked against here; a cut
 * never splits a surrogate pair or a grapheme cluster (an emoji ZWJ
 * sequence, a flag, a letter with combining marks).
 */

/** Appended when text was cut. */
export const TRUNCATION_SUFFIX = '…[truncated]';

/** Every code point that can extend or join a grapheme cluster is ≥ U+0300, except CR LF. */
const MAY_JOIN_GRAPHEMES = /[^\u0000-\u02ff]/;

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
  // A boundary at `maxChars` depends on the code point right after it (two
  // units when it is a surrogate pair) and only ever looks backwards beyond.
  const window = text.slice(0, maxChars + 2);
  if (!MAY_JOIN_GRAPHEMES.test(window)) {
    const splitsCrLf = text.charCodeAt(maxChars - 1) === 13 && text.charCodeAt(maxChars) === 10;
    return text.slice(0, splitsCrLf ? maxChars - 1 : maxChars);
  }
  let end = 0;
  for (const { segment } of graphemeSegmenter().segment(window)) {
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
