/**
 * issue 9 item 1 · an answer over the platform's limit is split at paragraph or
 * line boundaries (splitProse); issue 9 audit · a ``` code block that spans a
 * split is closed at the end of one part and reopened, with its info string,
 * at the start of the next, and every part still fits the limit with its fences.
 */
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

  describe('code fences', () => {
    const code = (n: number) => Array.from({ length: n }, (_, i) => `const x${i} = ${i};`);
    /** Lines that open or close a fence (up to three spaces, then three or more backticks). */
    const fenceLines = (part: string) => part.split('\n').filter((l) => /^ {0,3}```/.test(l));
    /** Does `part` end inside a code block (CommonMark: closed by a line of at least as many backticks, nothing after)? */
    const endsInsideFence = (part: string) => {
      let open = 0;
      for (const line of part.split('\n')) {
        const fence = /^ {0,3}(`{3,})([^`]*)$/.exec(line);
        if (open === 0 && fence) open = fence[1]!.length;
        else if (open > 0 && fence && fence[1]!.length >= open && fence[2]!.trim() === '') open = 0;
      }
      return open > 0;
    };
    const units = (part: string) => [...part].reduce((n, c) => n + escapedUnits(c.charCodeAt(0)), 0);

    it('closes a block a cut falls inside and reopens it, with its info string, in the next part', () => {
      const text = ['Intro.', '', '```ts', ...code(20), '```', '', 'Outro.'].join('\n');
      const parts = splitProse(text, 200);
      expect(parts.length).toBeGreaterThan(1);
      for (const part of parts) {
        expect(part.length).toBeLessThanOrEqual(200);
        expect(fenceLines(part).length % 2).toBe(0);
      }
      // Every code line is inside a ```ts … ``` block, wherever it landed.
      for (const part of parts.filter((p) => p.includes('const '))) {
        const lines = part.split('\n');
        const open = lines.indexOf('```ts');
        expect(open).toBeGreaterThanOrEqual(0);
        expect(lines.slice(open + 1).includes('```')).toBe(true);
      }
      const withoutFences = (p: string) => p.split('\n').filter((l) => !/^```/.test(l) && l !== '');
      expect(parts.flatMap(withoutFences)).toEqual(withoutFences(text));
      // No part ends on an opening fence (an empty block): a cut there moves before it.
      expect(parts.some((p) => /```ts$/.test(p))).toBe(false);
      expect(parts[0]).toMatch(/^Intro\./);
      expect(parts.at(-1)).toMatch(/Outro\.$/);
    });

    it('splits a block larger than a whole part into several parts, each fenced as a whole', () => {
      const lines = code(400);
      const text = ['```python', ...lines, '```'].join('\n');
      const parts = splitProse(text, 500);
      expect(parts.length).toBeGreaterThan(10);
      for (const part of parts) {
        expect(part.length).toBeLessThanOrEqual(500);
        expect(part.startsWith('```python\n')).toBe(true);
        expect(part.endsWith('\n```')).toBe(true);
        expect(fenceLines(part)).toHaveLength(2);
      }
      expect(parts.flatMap((p) => p.split('\n').slice(1, -1))).toEqual(lines);
    });

    it('cuts a code line longer than a part hard, each piece still fenced', () => {
      const long = 'x'.repeat(1000);
      const parts = splitProse(['```', long, '```'].join('\n'), 300);
      expect(parts.length).toBeGreaterThan(3);
      for (const part of parts) {
        expect(part.length).toBeLessThanOrEqual(300);
        expect(part).toMatch(/^```\n[x]+\n```$/);
      }
      expect(parts.map((p) => p.slice(4, -4)).join('')).toBe(long);
    });

    it('keeps a longer fence (````) as written, and a cut just before a closing fence leaves no empty block', () => {
      const text = ['````md', ...code(10), '````', 'after'].join('\n');
      const parts = splitProse(text, 120);
      for (const part of parts) {
        expect(part.length).toBeLessThanOrEqual(120);
        expect(part).not.toMatch(/^````md\n````/);
        expect(part).not.toMatch(/````md\n*$/);
      }
      expect(parts.filter((p) => p.includes('const ')).every((p) => p.startsWith('````md\n'))).toBe(true);
      expect(parts.filter((p) => p.includes('const ')).every((p) => p.split('\n').includes('````'))).toBe(
        true,
      );
      expect(parts.at(-1)).toMatch(/\n````\nafter$/);
    });

    it('counts the fences it adds in the limit as sent (escapedUnits): every part fits, no code line is lost', () => {
      fc.assert(
        fc.property(
          fc.array(
            fc.oneof(
              fc.constantFrom('```ts', '```', '', 'a <b> & c'),
              fc.string({ unit: fc.constantFrom('a', 'b', ' ', '&', '<'), minLength: 1, maxLength: 40 }),
            ),
            { maxLength: 80 },
          ),
          fc.integer({ min: 40, max: 300 }),
          (lines, max) => {
            const text = lines.join('\n');
            const parts = splitProse(text, max, escapedUnits);
            expect(parts.every((p) => units(p) <= max)).toBe(true);
            // Every part but the last closes what it opens (the last may end in a block the text never closed).
            for (const part of parts.slice(0, -1)) expect(endsInsideFence(part)).toBe(false);
            const words = (s: string) =>
              s
                .split('\n')
                .filter((l) => !/^```/.test(l))
                .join(' ')
                .split(/\s+/)
                .filter(Boolean)
                .join('');
            expect(parts.map(words).join('')).toBe(words(text));
          },
        ),
      );
    });
  });
});
