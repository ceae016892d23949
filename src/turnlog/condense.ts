/**
 * Entries + a character budget → one message's text, or a rollover
 * (docs/architecture.md "Formatting" §2 and "Overflow handling").
 * Pure: never mutates its input. The only reader of `maxChars`.
 *
 * Characters are UTF-16 code units (JS `.length`); no output text is ever
 * longer than `maxChars`. An entry too long to fit on its own is cut (at a
 * grapheme boundary, with `…[truncated]`) rather than overflow.
 *
 * Strategies:
 * - `rollover`: every line that fits, then `• …log continues`; the rest is
 *   carried into a fresh message.
 * - `drop-earliest`: `• …N earlier entries dropped`, then the latest entries
 *   that fit (at least the latest one).
 * - `aggressive-truncate`: re-cut every summary to 400, then 200, then 100
 *   characters until the log fits; when even 100 does not, roll over (the
 *   fallback keeps every entry visible somewhere, which is the point of
 *   this strategy; dropping would lose some). The carry keeps entries as
 *   formatted, so the next message truncates only as much as it must.
 * - `hybrid`: truncate like `aggressive-truncate`, then drop the earliest
 *   (at the 100 cap); roll over only when even the latest entry alone cannot
 *   fit beside the dropped marker: the latest entry then starts a message
 *   of its own.
 */
import { type FrameLine, markerLine, plainLine, plainLineLength } from '../surfaces/frame.js';
import { frameLineOf } from './format.js';
import { truncateGraphemes } from './truncate.js';
import { CONDENSE_STRATEGIES, type CondenseOpts, type CondenseResult, type TurnLogEntry } from './types.js';

export const ROLLOVER_MARKER = '• …log continues';
/** The rollover marker as a frame line (`plainLine` of it is `ROLLOVER_MARKER`). */
const ROLLOVER_LINE = markerLine('…log continues');
export const DEFAULT_MAX_LOG_MESSAGE_CHARS = 3500;
/** Room for the markers and a cut entry. */
export const MIN_LOG_MESSAGE_CHARS = 100;
/** Per-entry summary caps tried in turn by `aggressive-truncate` and `hybrid`. */
export const TRUNCATION_CAPS = [400, 200, 100] as const;

export function droppedMarker(count: number): string {
  return plainLine(droppedLine(count));
}

function droppedLine(count: number): FrameLine {
  return markerLine(`…${count} earlier ${count === 1 ? 'entry' : 'entries'} dropped`);
}

export function resolveCondenseOpts(opts: Partial<CondenseOpts> = {}): CondenseOpts {
  const { maxChars = DEFAULT_MAX_LOG_MESSAGE_CHARS, strategy = 'rollover' } = opts;
  if (!Number.isInteger(maxChars) || maxChars < MIN_LOG_MESSAGE_CHARS) {
    throw new RangeError(
      `condenseTurnLog: maxChars must be an integer ≥ ${MIN_LOG_MESSAGE_CHARS}, got ${String(maxChars)}`,
    );
  }
  if (!CONDENSE_STRATEGIES.includes(strategy)) {
    throw new RangeError(
      `condenseTurnLog: strategy must be one of ${CONDENSE_STRATEGIES.join(', ')}; got ${JSON.stringify(strategy)}`,
    );
  }
  return { maxChars, strategy };
}

export function condenseTurnLog(
  entries: readonly TurnLogEntry[],
  opts?: Partial<CondenseOpts>,
): CondenseResult {
  return condenseWindow(entries, 0, resolveCondenseOpts(opts));
}

/**
 * `condenseTurnLog` for the entries still in view when `dropped` earlier
 * ones are already gone (the incremental turn log's window).
 */
export function condenseWindow(
  entries: readonly TurnLogEntry[],
  dropped: number,
  { maxChars, strategy }: CondenseOpts,
): CondenseResult {
  if (entries.length === 0) return fits(compose(dropped, []));
  if (strategy === 'drop-earliest') return fits(keepLatestThatFit(linesAt(entries), dropped, maxChars));
  if (strategy === 'rollover') return fitOrRollOver(entries, linesAt(entries), dropped, maxChars);
  // A hybrid log that already dropped entries no longer fits at any cap (entries only accumulate).
  if (strategy === 'aggressive-truncate' || dropped === 0) {
    for (const cap of [undefined, ...TRUNCATION_CAPS]) {
      const lines = linesAt(entries, cap);
      if (headerLength(dropped) + joinedLength(lines) <= maxChars) return fits(compose(dropped, lines));
    }
  }
  const shortest = linesAt(entries, TRUNCATION_CAPS[TRUNCATION_CAPS.length - 1]);
  if (strategy === 'aggressive-truncate') return fitOrRollOver(entries, shortest, dropped, maxChars);
  return dropOrRollOver(entries, shortest, dropped, maxChars);
}

/** The length a log with these lines takes, `\n`-joined. */
function joinedLength(lines: readonly FrameLine[]): number {
  let total = lines.length === 0 ? 0 : lines.length - 1;
  for (const line of lines) total += plainLineLength(line);
  return total;
}

/** The line cut (at a grapheme boundary, with `…[truncated]`) so its plain form takes at most `maxChars`. */
function cutLine(line: FrameLine, maxChars: number): FrameLine {
  const prefix = plainLineLength(line) - line.text.length;
  return { ...line, text: truncateGraphemes(line.text, Math.max(0, maxChars - prefix)) };
}

/** Chars the dropped marker line takes, its newline included (0 when nothing was dropped). */
export function headerLength(dropped: number): number {
  return dropped > 0 ? droppedMarker(dropped).length + 1 : 0;
}

function linesAt(entries: readonly TurnLogEntry[], cap?: number): FrameLine[] {
  return entries.map((entry) => frameLineOf(entry, cap));
}

/** The plain text of lines: each `plainLine`, joined by `\n`. */
export function plainLog(lines: readonly FrameLine[]): string {
  return lines.map(plainLine).join('\n');
}

function fits(lines: FrameLine[]): CondenseResult {
  return { kind: 'fits', text: plainLog(lines), lines };
}

function rollover(kept: FrameLine[], carryEntries: TurnLogEntry[]): CondenseResult {
  const finalLines = [...kept, ROLLOVER_LINE];
  return { kind: 'rollover', finalText: plainLog(finalLines), finalLines, carryEntries };
}

function compose(dropped: number, lines: readonly FrameLine[]): FrameLine[] {
  return dropped > 0 ? [droppedLine(dropped), ...lines] : [...lines];
}

/** Everything that fits, then the rollover marker; the rest is carried. */
function fitOrRollOver(
  entries: readonly TurnLogEntry[],
  lines: readonly FrameLine[],
  dropped: number,
  maxChars: number,
): CondenseResult {
  const header = headerLength(dropped);
  if (header + joinedLength(lines) <= maxChars) return fits(compose(dropped, lines));
  if (lines.length === 1) return fits(compose(dropped, [cutLine(lines[0]!, maxChars - header)]));
  const budget = maxChars - header - ROLLOVER_MARKER.length - 1;
  let shown = 0;
  let used = -1;
  while (shown < lines.length && used + 1 + plainLineLength(lines[shown]!) <= budget)
    used += 1 + plainLineLength(lines[shown++]!);
  const kept = shown > 0 ? lines.slice(0, shown) : [cutLine(lines[0]!, budget)];
  return rollover(compose(dropped, kept), entries.slice(kept.length));
}

/** Drop the earliest; roll over only when the latest entry alone cannot fit beside the marker. */
function dropOrRollOver(
  entries: readonly TurnLogEntry[],
  lines: readonly FrameLine[],
  dropped: number,
  maxChars: number,
): CondenseResult {
  const last = lines.length - 1;
  if (last === 0 || headerLength(dropped + last) + plainLineLength(lines[last]!) <= maxChars) {
    return fits(keepLatestThatFit(lines, dropped, maxChars));
  }
  const head = keepLatestThatFit(lines.slice(0, last), dropped, maxChars - ROLLOVER_MARKER.length - 1);
  return rollover(head, entries.slice(last));
}

/**
 * The dropped marker (when anything is dropped) and as many of the latest
 * lines as fit `budget`; when not even the latest fits beside the marker,
 * the latest cut to fit.
 */
function keepLatestThatFit(lines: readonly FrameLine[], dropped: number, budget: number): FrameLine[] {
  const last = lines.length - 1;
  // Scan every start: the marker vanishes when nothing is dropped, so fitting is not monotone at 0.
  let start = -1;
  let sum = -1;
  for (let s = last; s >= 0; s--) {
    sum += plainLineLength(lines[s]!) + 1;
    if (headerLength(dropped + s) + sum <= budget) start = s;
  }
  if (start >= 0) return compose(dropped + start, lines.slice(start));
  const latest = cutLine(lines[last]!, budget - headerLength(dropped + last));
  return compose(dropped + last, [latest]);
}
