// spec: docs/architecture.md item 1 (tool output is "control-stripped → redacted → capped"); the
// task's stripControl contract: ANSI CSI/OSC and C0 controls except \n and \t removed, \r\n → \n.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stripControl } from '../../src/events/control.js';

describe('stripControl', () => {
  it('removes CSI sequences (colours, cursor moves, erase line)', () => {
    expect(stripControl('\x1b[1;31merror\x1b[0m: \x1b[2K\x1b[1Gdone')).toBe('error: done');
  });

  it('removes OSC sequences ended by BEL or ST (window titles, hyperlinks)', () => {
    expect(stripControl('\x1b]0;title\x07a\x1b]8;;https://x\x1b\\link\x1b]8;;\x1b\\')).toBe('alink');
  });

  it('removes DCS strings, 8-bit CSI and two-byte escapes', () => {
    expect(stripControl('a\x1bPq#0\x1b\\b\x9b31mc\x1b=d\x1bMe\x1b(Bf')).toBe('abcdef');
  });

  it('turns \\r\\n into \\n and drops a lone \\r', () => {
    expect(stripControl('a\r\nb\r10%\r100%\n')).toBe('a\nb10%100%\n');
  });

  it('keeps \\n and \\t, drops other C0 controls and DEL', () => {
    expect(stripControl('a\tb\nc\x00\x07\x08\x0b\x0c\x1f\x7fd')).toBe('a\tb\ncd');
  });

  it('leaves printable text (any script, emoji) alone', () => {
    expect(stripControl('héllo — 世界 😀 <b>&amp;</b>')).toBe('héllo — 世界 😀 <b>&amp;</b>');
  });

  it('property: no C0 control except \\n and \\t survives, and stripping twice changes nothing', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary-ascii' }), (text) => {
        const once = stripControl(text);
        expect(once).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f]/);
        expect(stripControl(once)).toBe(once);
      }),
    );
  });
});
