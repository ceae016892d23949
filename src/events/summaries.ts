import { capText, surrogateSafeCut } from './cap.js';
import { stripControl } from './control.js';
import { redactSecrets } from './redact.js';

/** A tool result's one-line summary is at most this many characters (before the size note). */
export const SUMMARY_MAX_CHARS = 200;
/** A tool result's `output` is capped here (docs/architecture.md item 1, TOOL_OUTPUT_CAP). */
export const TOOL_OUTPUT_CAP = 8000;

/**
 * The first non-empty line of a tool's output, control-stripped, redacted and
 * capped at 200 chars, with a size note when there is more to it:
 * `Compiled 3 files (+41 lines, 12.3 KB)`. Empty output gives "".
 */
export function summarizeToolResult(output: string): string {
  return summarizeClean(redactSecrets(stripControl(output)), output);
}

/**
 * The first non-empty line of a tool's output, control-stripped, redacted and
 * capped at 200 chars, without the size note: why a failed call failed
 * (`3 failing`), on its call's one line.
 */
export function toolResultHeadline(output: string): string {
  return summarizeClean(redactSecrets(stripControl(output)), output, false);
}

/** A result says something short when its output is one line of at most this many characters (`7 matches`). */
export const BRIEF_MAX_CHARS = 60;

/**
 * The output itself when it is one short line (`7 matches`, `exit 0`),
 * control-stripped and redacted; otherwise "": a longer output is a
 * preview nobody asked for in a one-line-per-tool log.
 */
export function briefToolResult(output: string): string {
  return briefText(redactSecrets(stripControl(output)));
}

/** `text` trimmed when it is one line of at most `BRIEF_MAX_CHARS`, else "". */
export function briefText(text: string): string {
  const trimmed = text.trim();
  return trimmed.length <= BRIEF_MAX_CHARS && !/[\r\n]/.test(trimmed) ? trimmed : '';
}

/** Control-stripped, redacted, capped at 8000 chars with `…[N more chars]`; blank output gives "". */
export function prepareToolOutput(text: string): string {
  return outputFromClean(redactSecrets(stripControl(text)));
}

/** Both of a tool result's texts from one strip + redact pass (the same as the two functions). */
export function prepareToolResult(output: string): { summary: string; output: string } {
  const clean = redactSecrets(stripControl(output));
  return { summary: summarizeClean(clean, output), output: outputFromClean(clean) };
}

function outputFromClean(clean: string): string {
  const trimmed = clean.trimEnd();
  return trimmed.trim() === '' ? '' : capText(trimmed, TOOL_OUTPUT_CAP);
}

function summarizeClean(clean: string, raw: string, withSize = true): string {
  const text = clean.trimEnd();
  let lineStart = 0;
  let lineIndex = 0;
  let line = '';
  while (lineStart <= text.length) {
    const newline = text.indexOf('\n', lineStart);
    const lineEnd = newline === -1 ? text.length : newline;
    line = text.slice(lineStart, lineEnd).trim();
    if (line !== '' || newline === -1) break;
    lineStart = newline + 1;
    lineIndex++;
  }
  if (line === '') return '';
  const linesAfter = countLines(text) - lineIndex - 1;
  const capped = line.length > SUMMARY_MAX_CHARS;
  const shown = capped ? `${line.slice(0, surrogateSafeCut(line, SUMMARY_MAX_CHARS - 1))}…` : line;
  if (!withSize) return shown;
  const size = formatBytes(Buffer.byteLength(raw, 'utf8'));
  if (linesAfter > 0) return `${shown} (+${linesAfter} ${linesAfter === 1 ? 'line' : 'lines'}, ${size})`;
  return capped ? `${shown} (${size})` : shown;
}

function countLines(text: string): number {
  let lines = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lines++;
  return lines;
}

/** `512 B`, `12.3 KB`, `4.0 MB` (1 KB = 1024 bytes). */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
