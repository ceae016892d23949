// spec: issue 11 (leftover) — a log line's outcome mark lives only in FrameLine.status: the formatter's text
// never carries ✓/⋯/✗, and plainLine and every platform's renderer add exactly one mark per line.
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/events/schema.js';
import { lineText as discordLine } from '../../src/platforms/discord/render.js';
import { renderGchatLog } from '../../src/platforms/gchat/render.js';
import {
  renderFrame as renderSlack,
  renderTextOnly as slackTextOnly,
} from '../../src/platforms/slack/render.js';
import { type FrameLine, plainLine, type SurfaceFrame } from '../../src/surfaces/frame.js';
import { formatTurnLogEntry } from '../../src/turnlog/format.js';
import { appendEntry, createTurnLog, renderTurnLog } from '../../src/turnlog/log.js';

const base = { space: 'slack:C0MARKS001', turnId: 'T1', at: Date.UTC(2026, 0, 1, 12) } as const;
const events: RunEvent[] = [
  { ...base, type: 'tool_call', callId: 'a', tool: 'Read', input: { path: 'a.ts' } },
  { ...base, type: 'tool_call', callId: 'b', tool: 'Bash', input: { command: 'npm test' } },
  { ...base, type: 'tool_result', callId: 'a', tool: 'Read', ok: true, output: '12 lines' },
  { ...base, type: 'tool_result', callId: 'b', tool: 'Bash', ok: false, exitCode: 1, output: '3 failing' },
  { ...base, type: 'tool_call', callId: 'c', tool: 'Grep', input: { pattern: 'TODO' } },
  { ...base, type: 'tool_result', callId: 'ghost', tool: 'Write', ok: true },
  { ...base, type: 'command', command: 'make', exitCode: 0 },
] as RunEvent[];

function logLines(): FrameLine[] {
  let log = createTurnLog();
  for (const event of events) log = appendEntry(log, formatTurnLogEntry(event)!);
  const rendered = renderTurnLog(log);
  return rendered.kind === 'fits' ? rendered.lines : rendered.finalLines;
}

const MARKS = /[✓✗⋯→✅❌⏳]/gu;
const marksIn = (text: string) => text.match(MARKS)?.length ?? 0;

describe('one status mark per line', () => {
  const lines = logLines();
  const frame: SurfaceFrame = { kind: 'log', lines };

  it('the formatter keeps the mark out of the text: it is the status', () => {
    expect(lines.map((line) => [line.status, line.text])).toEqual([
      ['ok', 'Read(a.ts) — 12 lines'],
      ['failed', 'Bash(npm test) — exit 1 · 3 failing'],
      ['pending', 'Grep("TODO")'],
      ['ok', 'Write'],
      ['ok', 'command: make'],
    ]);
  });

  it('plain text (Google Chat, the memory surface, Slack text only) shows each line with one mark', () => {
    expect(lines.map(plainLine).map(marksIn)).toEqual([1, 1, 1, 1, 1]);
    expect(renderGchatLog({ lines }).split('\n').map(marksIn)).toEqual([1, 1, 1, 1, 1]);
    expect(plainLine(lines[0]!)).toBe('• 12:00:00  ✓ Read(a.ts) — 12 lines');
    expect(plainLine(lines[2]!)).toBe('• 12:00:00  ⋯ Grep("TODO")');
    expect(slackTextOnly(frame).text.split('\n').map(marksIn)).toEqual([1, 1, 1, 1, 1]);
  });

  it('Slack Block Kit and Discord show each line with one mark', () => {
    const body = renderSlack(frame).blocks?.[0] as { elements: { elements: { text: string }[] }[] };
    expect(body.elements[0]!.elements.map((element) => marksIn(element.text))).toEqual([1, 1, 1, 1, 1]);
    expect(body.elements[0]!.elements[1]!.text).toBe('12:00:00  ✗ Bash(npm test) — exit 1 · 3 failing\n');
    expect(lines.map(discordLine).map(marksIn)).toEqual([1, 1, 1, 1, 1]);
  });
});
