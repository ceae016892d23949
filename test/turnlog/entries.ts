/** Test fixtures: turn log entries and fast-check arbitraries for them. */
import fc from 'fast-check';
import { renderEntryLine } from '../../src/turnlog/format.js';
import { truncateGraphemes } from '../../src/turnlog/truncate.js';
import type { TurnLogEntry } from '../../src/turnlog/types.js';

/** A tool entry whose summary is `text` cut to `maxToolPreview` like the formatter does. */
export function toolEntry(text: string, seq: number, maxToolPreview = 400): TurnLogEntry {
  return {
    timestamp: '12:00:00',
    kind: 'tool',
    summary: truncateGraphemes(text, maxToolPreview),
    rawLength: text.length,
    depth: 0,
    messageRole: 'tool_call',
    seq,
  };
}

/** `count` entries `tool: step <i> xxxx…`, each rendered line exactly `lineLength` long. */
export function fixedEntries(count: number, lineLength: number, from = 1): TurnLogEntry[] {
  return Array.from({ length: count }, (_, i) => {
    const seq = from + i;
    const head = `tool: step ${seq} `;
    const prefix = renderEntryLine(toolEntry('', seq)).length;
    return toolEntry(head.padEnd(lineLength - prefix, 'x'), seq);
  });
}

const summaryText = fc.oneof(
  { weight: 3, arbitrary: fc.string({ minLength: 1, maxLength: 60 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 500 }) },
  { weight: 1, arbitrary: fc.string({ minLength: 300, maxLength: 1200 }) },
);

/** Entries with varied lengths (some longer than any budget), depths and graphemes; seq numbers them. */
export const entriesArb = (maxLength = 40): fc.Arbitrary<TurnLogEntry[]> =>
  fc
    .array(fc.record({ text: summaryText, depth: fc.nat(12) }), { maxLength })
    .map((items) =>
      items.map(({ text, depth }, i) => ({ ...toolEntry(text.replace(/[\n\r]/g, ' '), i + 1), depth })),
    );

export const maxCharsArb = fc.oneof(fc.integer({ min: 100, max: 400 }), fc.integer({ min: 400, max: 4000 }));
