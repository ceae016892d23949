import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import {
  type NdjsonLine,
  NdjsonLineTooLongError,
  openNdjsonInput,
  readNdjsonLines,
} from '../../src/ingest/ndjson.js';

async function collect(chunks: (string | Uint8Array)[], maxLineLength?: number): Promise<NdjsonLine[]> {
  const out: NdjsonLine[] = [];
  const options = maxLineLength === undefined ? {} : { maxLineLength };
  for await (const line of readNdjsonLines(chunks, options)) out.push(line);
  return out;
}

describe('readNdjsonLines', () => {
  it('yields each line with its 1-based number, skipping blank lines but counting them', async () => {
    expect(await collect(['{"a":1}\n\n   \n{"b":2}\n'])).toEqual([
      { line: 1, text: '{"a":1}' },
      { line: 4, text: '{"b":2}' },
    ]);
  });

  it('handles CRLF line endings, including a \\r\\n split across chunks', async () => {
    expect(await collect(['{"a":1}\r\n{"b":', '2}\r', '\n{"c":3}\r\n'])).toEqual([
      { line: 1, text: '{"a":1}' },
      { line: 2, text: '{"b":2}' },
      { line: 3, text: '{"c":3}' },
    ]);
  });

  it('reads a last line without a newline', async () => {
    expect(await collect(['{"a":1}\n{"b"', ':2}'])).toEqual([
      { line: 1, text: '{"a":1}' },
      { line: 2, text: '{"b":2}' },
    ]);
  });

  it('decodes a multi-byte character split across byte chunks, and drops a leading BOM', async () => {
    const bytes = Buffer.from('\uFEFF{"t":"ünïcødé ✓"}\n', 'utf8');
    const split = [bytes.subarray(0, 9), bytes.subarray(9, 10), bytes.subarray(10)];
    expect(await collect(split)).toEqual([{ line: 1, text: '{"t":"ünïcødé ✓"}' }]);
  });

  it('accepts a line of exactly the limit (its \\r\\n not counted) and refuses a longer one with the line number', async () => {
    const at = 'x'.repeat(16);
    expect(await collect([`${at}\r\n`, `${at}`], 16)).toEqual([
      { line: 1, text: at },
      { line: 2, text: at },
    ]);
    await expect(collect(['ok\n', 'x'.repeat(10), 'x'.repeat(10), '\n'], 16)).rejects.toThrow(
      new NdjsonLineTooLongError(2, 16),
    );
    await expect(collect([`ok\n${'y'.repeat(17)}`], 16)).rejects.toThrow(
      'line 2 is longer than 16 characters (the NDJSON line limit); stopped reading',
    );
  });

  it('refuses a limit that is not a positive integer', async () => {
    await expect(collect(['{}'], 0)).rejects.toThrow('maxLineLength must be a positive integer, got 0');
  });

  it('reads a file, and stdin for "-"', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'turnlog-ndjson-'));
    const path = join(dir, 'events.ndjson');
    writeFileSync(path, '{"from":"file"}\n');
    const stdin = new PassThrough();
    stdin.end('{"from":"stdin"}\n');
    const fromFile: NdjsonLine[] = [];
    for await (const line of readNdjsonLines(openNdjsonInput(path, stdin))) fromFile.push(line);
    const fromStdin: NdjsonLine[] = [];
    for await (const line of readNdjsonLines(openNdjsonInput('-', stdin))) fromStdin.push(line);
    expect(fromFile).toEqual([{ line: 1, text: '{"from":"file"}' }]);
    expect(fromStdin).toEqual([{ line: 1, text: '{"from":"stdin"}' }]);
  });
});
