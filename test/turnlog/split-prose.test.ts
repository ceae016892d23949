import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { escapedUnits, splitProse } from '../../src/turnlog/split-prose.js';

describe('splitProse', () => {
  it('keeps text within the limit as one part', () => {
    expect(splitProse('hello\n\nworld', 100)).toEqual(['hello\n\nworld']);
  });

  it('cuts at the last paragraph break in reach, then at a line break', () => {
    const text = `${'a'.repeat(30)}\n\n${'b'.repeat(30)}\n${'c'.repeat(30)}`;
    expect(splitProse(text, 70)).toEqual(['a'.repeat(30), `${'b'.repeat(30)}\n${'c'.repeat(30)}`]);
    expect(splitProse(`${'b'.repeat(30)}\n${'c'.repeat(30)}`, 40)).toEqual(['b'.repeat(30), 'c'.repeat(30)]);
  });

  it('cuts 40,000 "A"s hard into 4096-unit parts that add up to the whole', () => {
    const parts = splitProse('A'.repeat(40_000), 4096);
    expect(parts).toHaveLength(10);
    expect(parts.every((p) => p.length <= 4096)).toBe(true);
    expect(parts.join('')).toBe('A'.repeat(40_000));
  });

  it('never splits an emoji sequence or a surrogate pair', () => {
    const family = '👨‍👩‍👧';
    const parts = splitProse(family.repeat(100), 50);
    expect(parts.join('')).toBe(family.repeat(100));
    for (const part of parts) expect(part.length % family.length).toBe(0);
  });

  it('cuts a single grapheme longer than the limit (a letter with 30,000 combining marks) into full parts, not one part per code unit', () => {
    const text = `e${'\u0301'.repeat(30_000)}`;
    const parts = splitProse(text, 4096);
    expect(parts.join('')).toBe(text);
    expect(parts.every((p) => p.length <= 4096)).toBe(true);
    expect(parts).toHaveLength(Math.ceil(text.length / 4096));
  });

  it('cuts an over-long grapheme of astral code points without splitting a surrogate pair', () => {
    const text = `👍${'\u{1F3FD}'.repeat(5000)}`; // one emoji with 5,000 skin-tone modifiers
    const parts = splitProse(text, 101);
    expect(parts.join('')).toBe(text);
    expect(parts.length).toBeLessThanOrEqual(Math.ceil(text.length / 100));
    for (const part of parts) {
      expect(part.length).toBeLessThanOrEqual(101);
      expect(/^[\uDC00-\uDFFF]|[\uD800-\uDBFF]$/.test(part)).toBe(false);
    }
  });

  it('sizes parts for the text as sent: with escapedUnits an `&` counts five, so each part fits once escaped', () => {
    const text = 'a&b<c>'.repeat(1000);
    const parts = splitProse(text, 1000, escapedUnits);
    expect(parts.join('')).toBe(text);
    const escaped = (p: string) => p.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
    expect(parts.every((p) => escaped(p).length <= 1000)).toBe(true);
  });

  it('gives no part for text with nothing to show (5,000 newlines)', () => {
    expect(splitProse('\n'.repeat(5000), 4096)).toEqual([]);
  });

  it('keeps every non-blank line, in order, each part within the limit', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: fc.constantFrom('a', 'b', ' ', 'é'), minLength: 1, maxLength: 40 }), {
          maxLength: 60,
        }),
        fc.integer({ min: 40, max: 300 }),
        (lines, max) => {
          const text = lines.join('\n');
          const parts = splitProse(text, max);
          expect(parts.every((p) => p.length <= max)).toBe(true);
          const words = (s: string) => s.split(/\s+/).filter(Boolean).join('');
          expect(parts.map(words).join('')).toBe(words(text));
        },
      ),
    );
  });
});
