// spec: docs/architecture.md validation row "Redact-before-cap: no fragment leak at a truncation
// boundary" (redactAndCap redacts BEFORE capping); docs/events.md "redact before truncating".
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { capText } from '../../src/events/cap.js';
import { redactAndCap } from '../../src/events/redact.js';
import { anyText, SECRET_FAMILIES } from './secret-fixtures.js';
import { hasLoneSurrogate } from './unicode.js';

describe('capText', () => {
  it('returns text within the cap unchanged', () => {
    expect(capText('hello', 5)).toBe('hello');
    expect(capText('', 0)).toBe('');
  });

  it('cuts at the cap and says how much was left out', () => {
    expect(capText('abcdefghij', 4)).toBe('abcd…[6 more chars]');
    expect(capText('abc', 0)).toBe('…[3 more chars]');
  });

  it('never splits a surrogate pair', () => {
    const text = `ab${'😀'}cd`; // 😀 is two UTF-16 units at index 2–3
    const capped = capText(text, 3);
    expect(capped).toBe('ab…[4 more chars]');
    expect(hasLoneSurrogate(capped)).toBe(false);
  });

  it('does not cut a [REDACTED…] marker in half', () => {
    expect(capText('key [REDACTED:github-token] tail', 10)).toBe('key …[28 more chars]');
    expect(capText('[REDACTED] tail', 12)).toBe('[REDACTED] t…[3 more chars]');
  });

  it('refuses a cap that is not a non-negative integer', () => {
    expect(() => capText('x', -1)).toThrow('cap must be a non-negative integer, got -1');
    expect(() => capText('x', 1.5)).toThrow('got 1.5');
  });

  it('output is always well-formed UTF-16 when the input is', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.nat(300), (text, max) => {
        expect(hasLoneSurrogate(capText(text, max))).toBe(false);
      }),
    );
  });
});

describe('redactAndCap', () => {
  it('redacts BEFORE capping — a secret near the boundary never leaks as a fragment', () => {
    const secret = 'ghp_1234567890abcdefghijABCDEFGHIJ123456';
    const text = `${'x'.repeat(20)} ${secret} tail`;
    // A cap inside the secret would leave `ghp_123456…`, which no pattern recognises any more.
    for (let max = 0; max <= text.length; max++) {
      const out = redactAndCap(text, max);
      expect(out).not.toMatch(/ghp_1|1234567890/);
    }
    expect(redactAndCap(text, 200)).toBe(`${'x'.repeat(20)} [REDACTED:github-token] tail`);
  });

  it('property: a secret of any family at any offset, under any cap, leaves no 8-char fragment', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string(), anyText(), fc.lorem({ maxCount: 30 })),
        fc.oneof(...SECRET_FAMILIES),
        fc.nat(),
        fc.nat(600),
        (filler, placed, offsetSeed, max) => {
          const offset = filler.length === 0 ? 0 : offsetSeed % (filler.length + 1);
          const before = filler.slice(0, offset);
          const after = filler.slice(offset);
          const out = redactAndCap(`${before} ${placed.text} ${after}`, max);
          for (let i = 0; i + 8 <= placed.secret.length; i++) {
            const fragment = placed.secret.slice(i, i + 8);
            if (filler.includes(fragment)) continue; // the filler itself may hold it by chance
            expect(out, `${placed.family}: fragment ${fragment} leaked`).not.toContain(fragment);
          }
        },
      ),
      { numRuns: 1000 },
    );
  });
});
