import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { plainLine } from '../../src/surfaces/frame.js';
import {
  condenseTurnLog,
  droppedMarker,
  ROLLOVER_MARKER,
  resolveCondenseOpts,
} from '../../src/turnlog/condense.js';
import { renderEntryLine } from '../../src/turnlog/format.js';
import { TRUNCATION_SUFFIX } from '../../src/turnlog/truncate.js';
import { CONDENSE_STRATEGIES, type CondenseResult, type TurnLogEntry } from '../../src/turnlog/types.js';
import { entriesArb, fixedEntries, maxCharsArb, toolEntry } from './entries.js';

const textOf = (result: CondenseResult): string => (result.kind === 'fits' ? result.text : result.finalText);
const seqsIn = (text: string): number[] => [...text.matchAll(/tool: step (\d+) /g)].map((m) => Number(m[1]));

describe('condenseTurnLog: frame lines', () => {
  it('yields lines whose plain form is the text, for every strategy and budget', () => {
    fc.assert(
      fc.property(
        entriesArb(),
        maxCharsArb,
        fc.constantFrom(...CONDENSE_STRATEGIES),
        (entries, maxChars, strategy) => {
          const result = condenseTurnLog(entries, { maxChars, strategy });
          const lines = result.kind === 'fits' ? result.lines : result.finalLines;
          expect(lines.map(plainLine).join('\n')).toBe(textOf(result));
        },
      ),
    );
  });

  it('keeps kind, status, depth and time on each line; markers are lines of their own', () => {
    const entries = [
      { ...toolEntry('tool: Bash(ls)', 1), status: 'pending' as const },
      { ...toolEntry('✗ Bash: exit 2', 2), status: 'failed' as const, depth: 1, kind: 'command' as const },
      ...fixedEntries(10, 40, 3),
    ];
    const result = condenseTurnLog(entries, { maxChars: 150, strategy: 'rollover' });
    if (result.kind !== 'rollover') throw new Error('expected a rollover');
    expect(result.finalLines[0]).toEqual({
      kind: 'tool',
      status: 'pending',
      depth: 0,
      time: '12:00:00',
      text: 'tool: Bash(ls)',
    });
    expect(result.finalLines[1]).toMatchObject({ kind: 'command', status: 'failed', depth: 1 });
    expect(result.finalLines.at(-1)).toEqual({ kind: 'marker', depth: 0, time: '', text: '…log continues' });
  });
});

describe('condenseTurnLog', () => {
  // spec: Formatter & condenser "condenseTurnLog(strategy: rollover) fits when under budget"
  it('(strategy: rollover) fits when under budget', () => {
    const entries = fixedEntries(5, 40);
    const result = condenseTurnLog(entries, { maxChars: 3500, strategy: 'rollover' });
    expect(result).toMatchObject({ kind: 'fits', text: entries.map((e) => renderEntryLine(e)).join('\n') });
  });

  it('defaults to rollover within 3500 chars', () => {
    expect(resolveCondenseOpts()).toEqual({ maxChars: 3500, strategy: 'rollover' });
    const entries = fixedEntries(100, 40); // 100 × 41 - 1 = 4099 chars
    expect(condenseTurnLog(entries).kind).toBe('rollover');
  });

  // spec: Formatter & condenser "condenseTurnLog(strategy: rollover) rolls over when exceeded"
  it('(strategy: rollover) rolls over when exceeded: finalText ends in …log continues, carry is the overflow tail', () => {
    const entries = fixedEntries(10, 40); // 409 chars
    const result = condenseTurnLog(entries, { maxChars: 200, strategy: 'rollover' });
    if (result.kind !== 'rollover') throw new Error('expected a rollover');
    expect(result.finalText.endsWith(`\n${ROLLOVER_MARKER}`)).toBe(true);
    expect(result.finalText.length).toBeLessThanOrEqual(200);
    // 4 lines (4 × 41) + the marker (16) = 180 fit; a fifth would make 221.
    expect(seqsIn(result.finalText)).toEqual([1, 2, 3, 4]);
    expect(result.carryEntries).toEqual(entries.slice(4));
  });

  it('(strategy: rollover) cuts an entry longer than maxChars on its own', () => {
    const huge = toolEntry(`tool: ${'y'.repeat(1000)}`, 1, 2000);
    const alone = condenseTurnLog([huge], { maxChars: 150, strategy: 'rollover' });
    expect(alone.kind).toBe('fits');
    expect(textOf(alone).length).toBeLessThanOrEqual(150);
    expect(textOf(alone).endsWith(TRUNCATION_SUFFIX)).toBe(true);

    const first = condenseTurnLog([huge, ...fixedEntries(2, 40, 2)], { maxChars: 150, strategy: 'rollover' });
    if (first.kind !== 'rollover') throw new Error('expected a rollover');
    expect(first.finalText.length).toBeLessThanOrEqual(150);
    expect(first.finalText).toContain(TRUNCATION_SUFFIX);
    expect(first.carryEntries.map((e) => e.seq)).toEqual([2, 3]);
  });

  // spec: Formatter & condenser "condenseTurnLog(strategy: drop-earliest) drops oldest entries and prepends a count marker"
  it('(strategy: drop-earliest) drops oldest entries and prepends a count marker', () => {
    const entries = fixedEntries(10, 40);
    const result = condenseTurnLog(entries, { maxChars: 200, strategy: 'drop-earliest' });
    if (result.kind !== 'fits') throw new Error('drop-earliest never rolls over');
    const lines = result.text.split('\n');
    // marker (28) + 4 × 41 = 192 ≤ 200; 5 would be 233.
    expect(lines[0]).toBe('• …6 earlier entries dropped');
    expect(seqsIn(result.text)).toEqual([7, 8, 9, 10]);
    expect(result.text.length).toBeLessThanOrEqual(200);
  });

  it('(strategy: drop-earliest) says "entry" for one, and keeps everything when it fits', () => {
    expect(droppedMarker(1)).toBe('• …1 earlier entry dropped');
    const entries = fixedEntries(3, 40);
    expect(condenseTurnLog(entries, { maxChars: 200, strategy: 'drop-earliest' })).toEqual(
      condenseTurnLog(entries, { maxChars: 200, strategy: 'rollover' }),
    );
  });

  it('(strategy: drop-earliest) keeps the latest entry, cut, when even it does not fit beside the marker', () => {
    const entries = [...fixedEntries(2, 40), toolEntry(`tool: ${'z'.repeat(390)}`, 3)];
    const result = condenseTurnLog(entries, { maxChars: 120, strategy: 'drop-earliest' });
    const [marker, latest, ...rest] = textOf(result).split('\n');
    expect(marker).toBe(droppedMarker(2));
    expect(latest?.startsWith('• 12:00:00  tool: zzz')).toBe(true);
    expect(latest?.endsWith(TRUNCATION_SUFFIX)).toBe(true);
    expect(rest).toEqual([]);
    expect(textOf(result).length).toBeLessThanOrEqual(120);
  });

  // spec: Formatter & condenser "condenseTurnLog(strategy: aggressive-truncate) shortens per-entry summaries to fit"
  it('(strategy: aggressive-truncate) shortens per-entry summaries to fit', () => {
    const entries = Array.from({ length: 6 }, (_, i) =>
      toolEntry(`tool: step ${i + 1} ${'a'.repeat(500)}`, i + 1),
    );
    const full = entries.map((e) => renderEntryLine(e)).join('\n');
    expect(full.length).toBeGreaterThan(1000);
    const result = condenseTurnLog(entries, { maxChars: 1300, strategy: 'aggressive-truncate' });
    if (result.kind !== 'fits') throw new Error('expected the truncated log to fit');
    expect(result.text.length).toBeLessThanOrEqual(1300);
    const lines = result.text.split('\n');
    expect(lines).toHaveLength(6); // every entry still visible
    expect(seqsIn(result.text)).toEqual([1, 2, 3, 4, 5, 6]);
    lines.forEach((line, i) => {
      const shown = line.slice('• 12:00:00  '.length);
      expect(shown.endsWith(TRUNCATION_SUFFIX)).toBe(true);
      expect(shown.length).toBeLessThanOrEqual(200); // 400 was not enough, 200 is
      expect(entries[i]!.rawLength).toBeGreaterThan(shown.length);
    });
  });

  it('(strategy: aggressive-truncate) stops at the first cap that fits (400 → 200 → 100)', () => {
    const entries = Array.from({ length: 6 }, (_, i) =>
      toolEntry(`tool: step ${i + 1} ${'a'.repeat(500)}`, i + 1),
    );
    const lineLengths = (max: number) =>
      textOf(condenseTurnLog(entries, { maxChars: max, strategy: 'aggressive-truncate' }))
        .split('\n')
        .map((l) => l.length - '• 12:00:00  '.length);
    expect(lineLengths(2500)).toEqual(Array(6).fill(400));
    expect(lineLengths(1300)).toEqual(Array(6).fill(200));
    expect(lineLengths(700)).toEqual(Array(6).fill(100));
  });

  it('(strategy: aggressive-truncate) falls back to rollover when even 100-char summaries overflow', () => {
    const entries = Array.from({ length: 6 }, (_, i) =>
      toolEntry(`tool: step ${i + 1} ${'a'.repeat(500)}`, i + 1),
    );
    const result = condenseTurnLog(entries, { maxChars: 300, strategy: 'aggressive-truncate' });
    if (result.kind !== 'rollover') throw new Error('expected a rollover');
    expect(result.finalText.length).toBeLessThanOrEqual(300);
    // 112-char lines: two fit with the marker (2 × 113 + 16 = 242), three would not (355).
    expect(seqsIn(result.finalText)).toEqual([1, 2]);
    expect(result.finalText.endsWith(ROLLOVER_MARKER)).toBe(true);
    // The carry keeps the entries as formatted: the next message re-truncates only if it must.
    expect(result.carryEntries).toEqual(entries.slice(2));
  });

  // spec: Formatter & condenser "condenseTurnLog(strategy: hybrid) truncates first, then drops"
  it('(strategy: hybrid) truncates first, then drops', () => {
    const entries = Array.from({ length: 8 }, (_, i) =>
      toolEntry(`tool: step ${i + 1} ${'a'.repeat(500)}`, i + 1),
    );
    const result = condenseTurnLog(entries, { maxChars: 500, strategy: 'hybrid' });
    if (result.kind !== 'fits') throw new Error('hybrid keeps one message');
    expect(result.text.length).toBeLessThanOrEqual(500);
    const [marker, ...lines] = result.text.split('\n');
    // 8 × 113 - 1 = 903 chars at the 100 cap: truncation alone cannot fit 500.
    expect(marker).toBe(droppedMarker(4));
    expect(seqsIn(result.text)).toEqual([5, 6, 7, 8]);
    for (const line of lines) {
      expect(line.endsWith(TRUNCATION_SUFFIX)).toBe(true);
      expect(line.length - '• 12:00:00  '.length).toBe(100);
    }
  });

  it('(strategy: hybrid) only truncates when truncation is enough', () => {
    const entries = Array.from({ length: 4 }, (_, i) =>
      toolEntry(`tool: step ${i + 1} ${'a'.repeat(500)}`, i + 1),
    );
    const result = condenseTurnLog(entries, { maxChars: 900, strategy: 'hybrid' });
    expect(result).toEqual(condenseTurnLog(entries, { maxChars: 900, strategy: 'aggressive-truncate' }));
    expect(textOf(result)).not.toContain('dropped');
  });

  it('(strategy: hybrid) rolls over only when the latest entry cannot fit beside the dropped marker', () => {
    // 100 is the smallest budget: a 100-char summary line (112) cannot sit under a marker.
    const entries = [...fixedEntries(3, 30), toolEntry(`tool: ${'q'.repeat(400)}`, 4)];
    const result = condenseTurnLog(entries, { maxChars: 100, strategy: 'hybrid' });
    if (result.kind !== 'rollover') throw new Error('expected the pathological rollover');
    expect(result.finalText.length).toBeLessThanOrEqual(100);
    expect(result.finalText.endsWith(ROLLOVER_MARKER)).toBe(true);
    expect(result.carryEntries.map((e) => e.seq)).toEqual([4]);
    // The latest entry then gets a message of its own (cut to fit).
    const next = condenseTurnLog(result.carryEntries, { maxChars: 100, strategy: 'hybrid' });
    expect(next.kind).toBe('fits');
    expect(textOf(next).length).toBeLessThanOrEqual(100);
  });

  it('gives an empty text for no entries', () => {
    for (const strategy of CONDENSE_STRATEGIES) {
      expect(condenseTurnLog([], { maxChars: 100, strategy })).toEqual({ kind: 'fits', text: '', lines: [] });
    }
  });

  it('rejects bad options with errors that name them', () => {
    expect(() => condenseTurnLog([], { maxChars: 99 })).toThrow(/maxChars must be an integer ≥ 100, got 99/);
    expect(() => condenseTurnLog([], { maxChars: 1e3 + 0.5 })).toThrow(/maxChars/);
    expect(() => condenseTurnLog([], { strategy: 'newest' as 'rollover' })).toThrow(
      /strategy must be one of rollover, drop-earliest, aggressive-truncate, hybrid; got "newest"/,
    );
  });

  // spec: Formatter & condenser "condenseTurnLog is pure"
  it('is pure: identical output for identical input, entries not mutated', () => {
    const entries = [...fixedEntries(30, 60), toolEntry(`tool: ${'w'.repeat(600)}`, 31)];
    const before = structuredClone(entries);
    for (const strategy of CONDENSE_STRATEGIES) {
      const opts = { maxChars: 300, strategy };
      expect(condenseTurnLog(entries, opts)).toEqual(condenseTurnLog(entries, opts));
    }
    expect(entries).toEqual(before);
  });
});

describe('condenseTurnLog properties', () => {
  const strategyArb = fc.constantFrom(...CONDENSE_STRATEGIES);

  it('output never exceeds maxChars, for every strategy', () => {
    fc.assert(
      fc.property(entriesArb(), maxCharsArb, strategyArb, (entries, maxChars, strategy) => {
        const result = condenseTurnLog(entries, { maxChars, strategy });
        expect(textOf(result).length).toBeLessThanOrEqual(maxChars);
      }),
      { numRuns: 300 },
    );
  });

  it('rollover: finalText entries + carryEntries keep every entry exactly once, in order', () => {
    fc.assert(
      fc.property(entriesArb(), maxCharsArb, (entries, maxChars) => {
        const shownSeqs: number[] = [];
        let rest: TurnLogEntry[] = entries;
        for (let messages = 0; ; messages++) {
          expect(messages).toBeLessThanOrEqual(entries.length); // every rollover shows at least one entry
          const result = condenseTurnLog(rest, { maxChars, strategy: 'rollover' });
          const lines = textOf(result)
            .split('\n')
            .filter((line) => line !== '' && line !== ROLLOVER_MARKER);
          // Each line is one entry's line (possibly cut), in order.
          lines.forEach((line, i) => {
            const full = renderEntryLine(rest[i]!);
            expect(line === full || line.endsWith(TRUNCATION_SUFFIX)).toBe(true);
            shownSeqs.push(rest[i]!.seq!);
          });
          if (result.kind === 'fits') break;
          expect(result.carryEntries).toEqual(rest.slice(lines.length));
          rest = result.carryEntries;
        }
        expect(shownSeqs).toEqual(entries.map((e) => e.seq));
      }),
      { numRuns: 200 },
    );
  });

  it('drop-earliest: the dropped count is exact and the kept entries are the latest', () => {
    fc.assert(
      fc.property(entriesArb(), maxCharsArb, (entries, maxChars) => {
        const text = textOf(condenseTurnLog(entries, { maxChars, strategy: 'drop-earliest' }));
        const lines = text === '' ? [] : text.split('\n');
        const marker = lines[0]?.match(/^• …(\d+) earlier entr(?:y|ies) dropped$/);
        const dropped = marker ? Number(marker[1]) : 0;
        const kept = marker ? lines.slice(1) : lines;
        expect(dropped + kept.length).toBe(entries.length);
        kept.forEach((line, i) => {
          const full = renderEntryLine(entries[dropped + i]!);
          expect(line === full || line.endsWith(TRUNCATION_SUFFIX)).toBe(true);
        });
        // Maximal: one more entry would not fit.
        if (dropped > 0) {
          const more = entries.slice(dropped - 1).map((e) => renderEntryLine(e));
          if (dropped - 1 > 0) more.unshift(droppedMarker(dropped - 1));
          expect(more.join('\n').length).toBeGreaterThan(maxChars);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('is pure: inputs deep-equal before and after, for every strategy', () => {
    fc.assert(
      fc.property(entriesArb(), maxCharsArb, strategyArb, (entries, maxChars, strategy) => {
        const before = structuredClone(entries);
        const opts = { maxChars, strategy };
        const optsBefore = { ...opts };
        const first = condenseTurnLog(entries, opts);
        expect(entries).toEqual(before);
        expect(opts).toEqual(optsBefore);
        expect(condenseTurnLog(entries, opts)).toEqual(first);
      }),
      { numRuns: 150 },
    );
  });
});
