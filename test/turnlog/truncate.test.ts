import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cutGraphemes, TRUNCATION_SUFFIX, truncateGraphemes } from '../../src/turnlog/truncate.js';

const graphemes = (text: string): string[] =>
  [...new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(text)].map((s) => s.segment);

describe('cutGraphemes', () => {
  it('returns ASCII text cut at exactly maxChars', () => {
    expect(cutGraphemes('abcdefgh', 5)).toBe('abcde');
    expect(cutGraphemes('abc', 5)).toBe('abc');
    expect(cutGraphemes('abc', 0)).toBe('');
  });

  it('never splits a surrogate pair', () => {
    // '😀' is two code units; a cut at 2 would leave a lone high surrogate.
    expect(cutGraphemes('a😀b', 2)).toBe('a');
    expect(cutGraphemes('a😀b', 3)).toBe('a😀');
  });

  it('never splits a ZWJ family, a flag or a combining accent', () => {
    const family = '👩‍👩‍👧';
    expect(cutGraphemes(`x${family}y`, 1 + family.length - 1)).toBe('x');
    expect(cutGraphemes('ab🇫🇷', 3)).toBe('ab');
    expect(cutGraphemes('caf\u0065\u0301!', 4)).toBe('caf');
  });

  it('sees a combining mark outside the BMP right after the cut', () => {
    // KAITHI LETTER DDA + KAITHI SIGN NUKTA (both astral): one cluster of four code units.
    const text = 'ab\u{11099}\u{110BA}';
    expect(cutGraphemes(text, 4)).toBe('ab');
    expect(cutGraphemes(text, 6)).toBe(text);
  });

  it('never splits CR LF (a single grapheme cluster below U+0300)', () => {
    expect(cutGraphemes('ab\r\ncd', 3)).toBe('ab');
    expect(cutGraphemes('ab\r\ncd', 4)).toBe('ab\r\n');
  });

  it('ends on a grapheme boundary for any text (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 40 }), fc.nat(90), (text, max) => {
        const cut = cutGraphemes(text, max);
        expect(cut.length).toBeLessThanOrEqual(max);
        expect(text.startsWith(cut)).toBe(true);
        // The cut is a whole number of the text's own clusters.
        const clusters = graphemes(text);
        let acc = '';
        for (const g of clusters) {
          if (acc.length >= cut.length) break;
          acc += g;
        }
        expect(acc).toBe(cut);
        // Maximal: the next cluster would not fit.
        const next = clusters[graphemes(cut).length];
        if (next !== undefined) expect(cut.length + next.length).toBeGreaterThan(max);
      }),
      { numRuns: 500 },
    );
  });
});

describe('truncateGraphemes', () => {
  it('leaves text that fits untouched', () => {
    expect(truncateGraphemes('short', 20)).toBe('short');
  });

  it('cuts and appends the suffix within maxChars', () => {
    const out = truncateGraphemes('x'.repeat(50), 20);
    expect(out).toBe(`${'x'.repeat(20 - TRUNCATION_SUFFIX.length)}${TRUNCATION_SUFFIX}`);
    expect(out.length).toBe(20);
  });

  it('does not stack suffixes when re-truncating', () => {
    const once = truncateGraphemes('y'.repeat(100), 40);
    const twice = truncateGraphemes(once, 30);
    expect(twice).toBe(`${'y'.repeat(30 - TRUNCATION_SUFFIX.length)}${TRUNCATION_SUFFIX}`);
  });

  it('accepts a custom suffix', () => {
    expect(truncateGraphemes('abcdefghij', 6, '..')).toBe('abcd..');
  });

  it('rejects a maxChars shorter than the suffix with a clear error', () => {
    expect(() => truncateGraphemes('abcdefghijklmnop', 5)).toThrow(
      /maxChars must be an integer ≥ the suffix/,
    );
    expect(() => truncateGraphemes('abc', 20.5)).toThrow(/got 20.5/);
  });

  it('is never longer than maxChars and keeps a prefix (property)', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 60 }),
        fc.integer({ min: 12, max: 80 }),
        (text, max) => {
          const out = truncateGraphemes(text, max);
          expect(out.length).toBeLessThanOrEqual(max);
          if (text.length <= max) expect(out).toBe(text);
          else expect(text.startsWith(out.slice(0, -TRUNCATION_SUFFIX.length))).toBe(true);
        },
      ),
    );
  });
});
