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
 *
 * A fenced code block (a line of three or more backticks, CommonMark's
 * https://spec.commonmark.org/0.31.2/#fenced-code-blocks) that a cut falls
 * inside is closed at the end of that part and reopened, with its opening
 * line (and so its info string, ```ts), at the start of the next: a block
 * longer than a part becomes several parts, each a whole block. The fences
 * added count in the part's size. A cut right after a block's opening line
 * moves before it, and a cut right before its closing line takes that line
 * as the close, so no part holds an empty block.
 */
export function splitProse(text: string, max: number, unitsOf: (code: number) => number = () => 1): string[] {
  if (!Number.isInteger(max) || max < 1)
    throw new RangeError(`splitProse: max must be a positive integer, got ${max}`);
  const blocks = fencedBlocks(text, max, unitsOf);
  const parts: string[] = [];
  let start = 0;
  /** The block the part at `start` begins inside (its opening line goes first). */
  let reopen: FencedBlock | undefined;
  while (start < text.length) {
    const prefix = reopen ? `${reopen.open}\n` : '';
    let reserve = 0;
    let cut: Cut;
    for (;;) {
      cut = cutFrom(text, start, max - unitsIn(prefix, unitsOf) - reserve, unitsOf, blocks);
      if (cut.closes === undefined || cut.closes.closeUnits <= reserve) break;
      // The part ends inside a block: make room for its closing fence and cut again.
      reserve = cut.closes.closeUnits;
    }
    const suffix = cut.closes ? `\n${cut.closes.close}` : '';
    push(parts, prefix, text.slice(start, cut.at), suffix);
    start = cut.next;
    reopen = cut.reopens;
  }
  return parts;
}

/** A fenced code block: offsets into the text, and the lines that open and close it. */
interface FencedBlock {
  /** Where its opening line starts. */
  openStart: number;
  /** Where its content starts (after the opening line's break). */
  contentStart: number;
  /** Where its closing line starts (the text's end when it is never closed). */
  closeStart: number;
  /** After its closing line and that line's break. */
  closeEnd: number;
  /** The opening line as written (```ts), without trailing whitespace. */
  open: string;
  /** A closing line for it: as many backticks as it opened with. */
  close: string;
  /** `close` and its line break, as sent. */
  closeUnits: number;
}

const OPENING_FENCE = /^ {0,3}(`{3,})[^`]*$/;
const CLOSING_FENCE = /^ {0,3}(`{3,})[ \t]*$/;

/**
 * The text's fenced code blocks, in order. One whose fences would take half a
 * part or more (an info string of thousands of characters) is left as prose:
 * it is cut like any other text.
 */
function fencedBlocks(text: string, max: number, unitsOf: (code: number) => number): FencedBlock[] {
  const blocks: FencedBlock[] = [];
  let open: { start: number; contentStart: number; line: string; ticks: number } | undefined;
  let lineStart = 0;
  while (lineStart < text.length || (open && lineStart === text.length)) {
    const lineEnd = text.indexOf('\n', lineStart);
    const end = lineEnd === -1 ? text.length : lineEnd;
    const next = lineEnd === -1 ? text.length : lineEnd + 1;
    const line = text.slice(lineStart, end);
    if (open === undefined) {
      const fence = OPENING_FENCE.exec(line);
      if (fence && lineEnd !== -1)
        open = { start: lineStart, contentStart: next, line: line.trimEnd(), ticks: fence[1]!.length };
    } else {
      const fence = CLOSING_FENCE.exec(line);
      const closed = fence !== null && fence[1]!.length >= open.ticks;
      if (closed || next === text.length) {
        const close = '`'.repeat(open.ticks);
        const closeUnits = unitsIn(`\n${close}`, unitsOf);
        const block: FencedBlock = {
          openStart: open.start,
          contentStart: open.contentStart,
          closeStart: closed ? lineStart : text.length,
          closeEnd: closed ? next : text.length,
          open: open.line,
          close,
          closeUnits,
        };
        if (unitsIn(`${open.line}\n`, unitsOf) + closeUnits < max / 2) blocks.push(block);
        open = undefined;
      }
    }
    if (lineEnd === -1) break;
    lineStart = next;
  }
  return blocks;
}

/** Where a part ends (`at`), where the next begins (`next`), the block it ends inside and the one the next begins inside. */
interface Cut {
  at: number;
  next: number;
  closes?: FencedBlock;
  reopens?: FencedBlock;
}

/** The cut for a part starting at `start` with `budget` units for its text (fences aside). */
function cutFrom(
  text: string,
  start: number,
  budget: number,
  unitsOf: (code: number) => number,
  blocks: readonly FencedBlock[],
): Cut {
  const reach = reachWithin(text, start, budget, unitsOf);
  if (reach === text.length) return { at: reach, next: reach };
  let [at, skip] = breakAfter(text, start, start, reach);
  let block = blockAround(blocks, at);
  // Cut in or right after a block's opening line: end the part before the block
  // instead, or, when the part begins with that line, cut inside its content.
  if (block !== undefined && at < block.contentStart) {
    if (block.openStart > start) return { at: block.openStart - 1, next: block.openStart };
    [at, skip] = breakAfter(text, start, block.contentStart - 1, reach);
    block = blockAround(blocks, at);
    if (block !== undefined && at < block.contentStart) return { at, next: at };
  }
  if (block === undefined) return { at, next: at + skip };
  // The part holds the block's closing line: nothing to add.
  if (at >= block.closeStart && block.closeStart < text.length) return { at, next: at + skip };
  const next = at + skip;
  // The next part would begin with (or inside) the closing line: this part closes the block, the next goes on after it.
  if (next >= block.closeStart && block.closeStart < text.length)
    return { at, next: Math.max(next, block.closeEnd), closes: block };
  return { at, next, closes: block, reopens: block };
}

/** The block `at` falls inside (after its opening line's start, before its closing line's end), by binary search. */
function blockAround(blocks: readonly FencedBlock[], at: number): FencedBlock | undefined {
  let lo = 0;
  let hi = blocks.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (blocks[mid]!.openStart < at) lo = mid + 1;
    else hi = mid;
  }
  const block = blocks[lo - 1];
  return block !== undefined && at < block.closeEnd ? block : undefined;
}

/** The last paragraph break in reach past `floor`, else the last line break, else a hard cut: where, and the breaks to drop. */
function breakAfter(text: string, start: number, floor: number, reach: number): [at: number, skip: number] {
  // Searched in the part's window only: a text with no break at all costs one pass, not one per part.
  const window = text.slice(start, reach + 1);
  const paragraph = start + window.lastIndexOf('\n\n');
  if (paragraph > floor) return [paragraph, 2];
  const line = start + window.lastIndexOf('\n');
  if (line > floor) return [line, 1];
  return [hardCut(text, start, reach), 0];
}

/** A cut at the last grapheme boundary in reach (at least one code point past `start`). */
function hardCut(text: string, start: number, reach: number): number {
  const at = start + cutGraphemes(text.slice(start, reach + 2), reach - start).length;
  // A grapheme longer than `max` on its own (a letter under thousands of combining
  // marks): cut it at `max` units, never inside a surrogate pair, so it costs as
  // many parts as its length needs, not one part per code point.
  return at > start ? at : start + codePointCut(text.slice(start), Math.max(1, reach - start));
}

/**
 * The index in `text` past the last unit from `start` that fits in `max` once
 * each is counted as the platform will send it (`unitsOf`: Slack writes `&`
 * as `&amp;`, five characters).
 */
function reachWithin(text: string, start: number, max: number, unitsOf: (code: number) => number): number {
  let used = 0;
  for (let i = start; i < text.length; i++) {
    used += unitsOf(text.charCodeAt(i));
    if (used > max) return i;
  }
  return text.length;
}

function unitsIn(text: string, unitsOf: (code: number) => number): number {
  let used = 0;
  for (let i = 0; i < text.length; i++) used += unitsOf(text.charCodeAt(i));
  return used;
}

/** The longest prefix of `text` within `max` units that does not end inside a surrogate pair (at least one code point). */
function codePointCut(text: string, max: number): number {
  const high = text.charCodeAt(max - 1);
  const cut = high >= 0xd800 && high <= 0xdbff ? max - 1 : max;
  if (cut > 0) return cut;
  return text.codePointAt(0)! > 0xffff ? 2 : 1;
}

function push(parts: string[], prefix: string, body: string, suffix: string): void {
  const trimmed = body.replace(/^\n+|\s+$/g, '');
  if (trimmed.trim() !== '') parts.push(`${prefix}${trimmed}${suffix}`);
}

/**
 * A character as the strictest platform sends it: Slack escapes `&`, `<` and
 * `>` as `&amp;`, `&lt;`, `&gt;` (docs/platforms.md), so a part measured this
 * way fits every platform's limit once rendered.
 */
export function escapedUnits(code: number): number {
  return code === 0x26 ? 5 : code === 0x3c || code === 0x3e ? 4 : 1;
}
