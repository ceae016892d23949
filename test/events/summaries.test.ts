// spec: docs/architecture.md item 4 "Result summaries are bounded" and the validation rows
// "Result summaries first-line + capped + size note", "prepareToolOutput: strip → redact → cap at
// 8000 with a note, empty → ''", "A tool_result's summary and output come from ONE strip+redact pass".
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stripControl } from '../../src/events/control.js';
import { redactSecrets } from '../../src/events/redact.js';
import {
  briefToolResult,
  formatBytes,
  prepareToolOutput,
  prepareToolResult,
  SUMMARY_MAX_CHARS,
  summarizeToolResult,
  TOOL_OUTPUT_CAP,
  toolResultHeadline,
} from '../../src/events/summaries.js';
import { anyText } from './secret-fixtures.js';
import { hasLoneSurrogate } from './unicode.js';

describe('summarizeToolResult', () => {
  it('returns a one-line output as it is', () => {
    expect(summarizeToolResult('All 12 tests passed')).toBe('All 12 tests passed');
  });

  it('takes the first non-empty line and notes the rest with its size', () => {
    const output = '\n\n   Compiled 3 files  \nwarning: x\nwarning: y\n';
    expect(summarizeToolResult(output)).toBe(`Compiled 3 files (+2 lines, ${output.length} B)`);
  });

  it('says "line" for one more line', () => {
    expect(summarizeToolResult('a\nb')).toBe('a (+1 line, 3 B)');
  });

  it('sizes large output in KB / MB', () => {
    const output = `first\n${'0123456789\n'.repeat(1200)}`;
    expect(summarizeToolResult(output)).toBe('first (+1200 lines, 12.9 KB)');
  });

  it('caps the line at 200 chars with an ellipsis and a size note', () => {
    const line = 'y'.repeat(500);
    const summary = summarizeToolResult(line);
    expect(summary).toBe(`${'y'.repeat(SUMMARY_MAX_CHARS - 1)}… (500 B)`);
  });

  it('never splits a surrogate pair at the 200-char cap', () => {
    const line = `${'y'.repeat(198)}😀😀😀`;
    expect(hasLoneSurrogate(summarizeToolResult(line))).toBe(false);
  });

  it('redacts the summary line (a secret on the first line)', () => {
    expect(summarizeToolResult('export GITHUB_TOKEN=ghp_1234567890abcdefghijABCDEFGHIJ123456')).toBe(
      'export GITHUB_TOKEN=[REDACTED:github-token]',
    );
  });

  it('redacts before splitting lines, so a PEM block as the first line shows only its marker', () => {
    const output = '-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----\ndone';
    expect(summarizeToolResult(output)).toBe(`[REDACTED:private-key] (+1 line, ${output.length} B)`);
  });

  it('strips terminal escapes from the line', () => {
    expect(summarizeToolResult('\x1b[32m✓\x1b[0m passed')).toBe('✓ passed');
  });

  it('gives "" for empty or blank output', () => {
    expect(summarizeToolResult('')).toBe('');
    expect(summarizeToolResult(' \n\t\n')).toBe('');
  });

  it('is always a single line', () => {
    fc.assert(
      fc.property(anyText(), (output) => {
        expect(summarizeToolResult(output)).not.toContain('\n');
      }),
    );
  });
});

describe('briefToolResult and toolResultHeadline', () => {
  it('gives a one-line output of at most 60 chars, else nothing', () => {
    expect(briefToolResult('  7 matches\n')).toBe('7 matches');
    expect(briefToolResult('x'.repeat(60))).toBe('x'.repeat(60));
    expect(briefToolResult('x'.repeat(61))).toBe('');
    expect(briefToolResult('a\nb')).toBe('');
    expect(briefToolResult('')).toBe('');
  });

  it('redacts what it shows', () => {
    expect(briefToolResult('token ghp_abcdefghijklmnopqrstuvwxyz0123456789')).not.toContain('ghp_abcdef');
  });

  it('headlines the first non-empty line without the size note', () => {
    const output = `\n\n3 failing\n${'at foo\n'.repeat(20)}`;
    expect(toolResultHeadline(output)).toBe('3 failing');
    expect(summarizeToolResult(output)).toMatch(/^3 failing \(\+20 lines, /);
    expect(toolResultHeadline('y'.repeat(300))).toBe(`${'y'.repeat(199)}…`);
  });
});

describe('formatBytes', () => {
  it('uses B below 1 KiB, KB below 1 MiB, MB above', () => {
    expect(formatBytes(1023)).toBe('1023 B');
    expect(formatBytes(1024)).toBe('1.0 KB');
    expect(formatBytes(12_600)).toBe('12.3 KB');
    expect(formatBytes(5 * 1024 * 1024)).toBe('5.0 MB');
  });
});

describe('prepareToolOutput', () => {
  it('strips control sequences, then redacts', () => {
    const raw = '\x1b[1mTOKEN=\x1b[0mabc123\r\nok\x07\n';
    expect(prepareToolOutput(raw)).toBe('TOKEN=[REDACTED]\nok');
  });

  it(`caps at ${TOOL_OUTPUT_CAP} chars with a note`, () => {
    const out = prepareToolOutput('z'.repeat(TOOL_OUTPUT_CAP + 123));
    expect(out).toBe(`${'z'.repeat(TOOL_OUTPUT_CAP)}…[123 more chars]`);
  });

  it('redacts before capping: a secret across the 8000 boundary is hidden whole', () => {
    const secret = 'sk-ant-api03-AbCdEf0123456789GhIjKlMnOpQrStUvWx';
    const out = prepareToolOutput(`${'z'.repeat(TOOL_OUTPUT_CAP - 10)} ${secret}`);
    // The marker would straddle the cap too, so the cut moves before it: nothing of the key shows.
    expect(out).toBe(`${'z'.repeat(TOOL_OUTPUT_CAP - 10)} …[24 more chars]`);
    expect(prepareToolOutput(`${'z'.repeat(TOOL_OUTPUT_CAP - 30)} ${secret}`)).toMatch(
      /z \[REDACTED:anthropic-key\]$/,
    );
  });

  it('gives "" for empty or blank output', () => {
    expect(prepareToolOutput('')).toBe('');
    expect(prepareToolOutput('\x1b[0m \r\n')).toBe('');
  });
});

describe('prepareToolResult', () => {
  it('equals the two separate functions, from one strip + redact pass', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.string(), fc.constant('password=hunter2\n'), fc.constant('\x1b[31m'))),
        (parts) => {
          const raw = parts.join('');
          expect(prepareToolResult(raw)).toEqual({
            summary: summarizeToolResult(raw),
            output: prepareToolOutput(raw),
          });
        },
      ),
    );
  });

  it('output is exactly strip → redact → cap of the raw text', () => {
    const raw = `\x1b[2K${'log line with PASSWORD=x\n'.repeat(400)}`;
    const expected = redactSecrets(stripControl(raw)).trimEnd();
    expect(prepareToolResult(raw).output).toBe(
      `${expected.slice(0, TOOL_OUTPUT_CAP)}…[${expected.length - TOOL_OUTPUT_CAP} more chars]`,
    );
  });
});
