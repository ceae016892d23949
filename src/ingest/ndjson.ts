/**
 * Streaming NDJSON line reader for files and stdin: yields each non-blank
 * line with its 1-based physical line number, without holding more than one
 * line in memory. `\n` and `\r\n` both end a line; a last line without a
 * newline is read; a UTF-8 BOM at the start is dropped.
 */
import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';

export interface NdjsonLine {
  /** 1-based, counting blank lines too, so it matches what an editor shows. */
  line: number;
  /** The line without its line ending. */
  text: string;
}

export interface NdjsonReadOptions {
  /** Longest line accepted, in UTF-16 code units. Default 8 Mi. */
  maxLineLength?: number;
}

/** Generous for a Claude Code tool result holding a whole file; far below what would exhaust memory. */
export const DEFAULT_MAX_LINE_LENGTH = 8 * 1024 * 1024;

export class NdjsonLineTooLongError extends Error {
  override readonly name = 'NdjsonLineTooLongError';
  constructor(
    readonly line: number,
    readonly maxLineLength: number,
  ) {
    super(`line ${line} is longer than ${maxLineLength} characters (the NDJSON line limit); stopped reading`);
  }
}

/** Lines of `source` (a file stream, `process.stdin`, or any async iterable of chunks). */
export async function* readNdjsonLines(
  source: AsyncIterable<string | Uint8Array> | Iterable<string | Uint8Array>,
  options: NdjsonReadOptions = {},
): AsyncGenerator<NdjsonLine> {
  const maxLineLength = options.maxLineLength ?? DEFAULT_MAX_LINE_LENGTH;
  if (!Number.isInteger(maxLineLength) || maxLineLength < 1) {
    throw new RangeError(`readNdjsonLines: maxLineLength must be a positive integer, got ${maxLineLength}`);
  }
  const decoder = new StringDecoder('utf8');
  // The current line's pieces; joined once the line ends, so a long line costs one copy.
  let pieces: string[] = [];
  let pending = 0;
  let line = 1;

  const tooLong = () => new NdjsonLineTooLongError(line, maxLineLength);
  // One more than the limit: a trailing `\r` may still be the first half of a `\r\n`.
  const fits = (length: number) => length <= maxLineLength + 1;

  const finish = (tail: string): NdjsonLine | null => {
    if (!fits(pending + tail.length)) throw tooLong();
    const whole = pieces.length === 0 ? tail : pieces.join('') + tail;
    pieces = [];
    pending = 0;
    const text = whole.endsWith('\r') ? whole.slice(0, -1) : whole;
    if (text.length > maxLineLength) throw tooLong();
    const current = line++;
    const clean = current === 1 && text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
    return clean.trim() === '' ? null : { line: current, text: clean };
  };
  const hold = (piece: string) => {
    if (!fits(pending + piece.length)) throw tooLong();
    pieces.push(piece);
    pending += piece.length;
  };

  for await (const chunk of source) {
    const text = typeof chunk === 'string' ? chunk : decoder.write(chunk);
    let start = 0;
    for (let newline = text.indexOf('\n'); newline !== -1; newline = text.indexOf('\n', start)) {
      const item = finish(text.slice(start, newline));
      start = newline + 1;
      if (item) yield item;
    }
    if (start < text.length) hold(text.slice(start));
  }
  const rest = decoder.end();
  if (rest !== '') hold(rest);
  if (pieces.length > 0) {
    const item = finish('');
    if (item) yield item;
  }
}

/** `-` is stdin; anything else a file path (opened lazily: a missing file fails on the first read). */
export function openNdjsonInput(path: string, stdin: Readable): Readable {
  return path === '-' ? stdin : createReadStream(path);
}
