/**
 * One run event → one structured log entry (docs/architecture.md
 * "Formatting" §1). Pure; knows nothing about the message budget, which is
 * the condenser's job.
 *
 * The formatter says what an event looks like as a log line; the router
 * (src/routing) says where it goes. So every type the router can send to the
 * thread log gets an entry — `input` (shown when `filters.user` is on) and
 * `policy_request` and `question` (cards by default, log lines when a space
 * routes them to `thread-log`) included — and only events that are never log lines give
 * null: the turn lifecycle (`inbound`, `turn_started`, `turn_ended`) and the
 * final `answer`.
 *
 * Text is expected already redacted (ingest redacts every event).
 */

import { normalizeOption, type RunEvent, type RunEventOf } from '../events/schema.js';
import { briefText, briefToolResult, summarizeToolResult, toolResultHeadline } from '../events/summaries.js';
import { type FrameLine, LINE_MARKS, type LineStatus, statusMark } from '../surfaces/frame.js';
import { formatClockTime } from './clock-time.js';
import { truncateGraphemes } from './truncate.js';
import type { FormatOpts, TurnLogEntry, TurnLogEntryKind } from './types.js';

export { formatClockTime } from './clock-time.js';

export const DEFAULT_MAX_TOOL_PREVIEW = 400;
/** Room for a few characters of content next to the `…[truncated]` marker. */
export const MIN_TOOL_PREVIEW = 20;
/** Deeper subagents render at this indentation so a line keeps room for its text. */
export const MAX_INDENT_DEPTH = 8;

/** Input keys that name what a call acts on, most telling first; `quoted` ones are search terms. */
const TARGET_KEYS: readonly { key: string; quoted: boolean }[] = [
  { key: 'command', quoted: false },
  { key: 'pattern', quoted: true },
  { key: 'query', quoted: true },
  { key: 'file_path', quoted: false },
  { key: 'path', quoted: false },
  { key: 'url', quoted: false },
  { key: 'name', quoted: false },
];

/** Line breaks, tabs and other control characters would break the one-line-per-entry layout. */
const LINE_BREAKING = /\r\n|[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

/** `Read(src/app.ts)`, `Grep("TODO")`, or the bare tool name when no input key names a target. */
export function describeToolCall(tool: string, input?: Record<string, unknown>): string {
  if (input !== undefined) {
    for (const { key, quoted } of TARGET_KEYS) {
      const value = input[key];
      if (typeof value === 'string' && value !== '')
        return quoted ? `${tool}("${value}")` : `${tool}(${value})`;
    }
  }
  return tool;
}

/**
 * What a pending tool call's line showed before its target when the mark was
 * part of the summary; the mark now lives in `status` only (LINE_MARKS), and
 * this names it for readers of lines written before.
 */
export const PENDING_MARK = LINE_MARKS.pending;

export function formatTurnLogEntry(event: RunEvent, opts: FormatOpts = {}): TurnLogEntry | null {
  const line = describeEvent(event, opts);
  if (line === null) return null;
  const maxToolPreview = resolveMaxToolPreview(opts.maxToolPreview);
  const oneLine = line.text.replace(LINE_BREAKING, ' ');
  const at = event.at ?? opts.now;
  const entry: TurnLogEntry = {
    timestamp: at === undefined ? '--:--:--' : formatClockTime(at, opts.timeZone),
    kind: line.kind,
    ...(line.status === undefined ? {} : { status: line.status }),
    summary: truncateGraphemes(oneLine, maxToolPreview),
    rawLength: oneLine.length,
    depth: opts.depth ?? inferDepth(event),
    messageRole: event.type,
  };
  if (event.subagentId !== undefined) entry.subagentId = event.subagentId;
  if (event.seq !== undefined) entry.seq = event.seq;
  if (event.type === 'tool_call' || event.type === 'tool_result') entry.callId = event.callId;
  if (event.type === 'tool_result') {
    entry.outcome = truncateGraphemes(toolOutcome(event).replace(LINE_BREAKING, ' '), maxToolPreview);
  }
  return entry;
}

/**
 * The call's line completed by its result, in place: `Grep("TODO")` (pending)
 * becomes `Grep("TODO") — 7 matches` (ok). It keeps the call's time, seq and
 * depth, and takes the result's status (the line's mark). Pure.
 */
export function completeToolCall(call: TurnLogEntry, result: TurnLogEntry): TurnLogEntry {
  const status = result.status === 'failed' ? 'failed' : 'ok';
  const target = call.summary;
  const outcome = result.outcome ?? '';
  const summary = `${target}${outcome === '' ? '' : ` — ${outcome}`}`;
  const completed: TurnLogEntry = {
    ...call,
    summary,
    status,
    rawLength: call.rawLength - call.summary.length + summary.length,
  };
  if (result.seq !== undefined) completed.resultSeq = result.seq;
  return completed;
}

/** Is `entry` a tool call still waiting for its result (not a result shown on its own)? */
export function isPendingCall(entry: TurnLogEntry): boolean {
  return entry.callId !== undefined && entry.status === 'pending' && entry.outcome === undefined;
}

/**
 * The visible line: `• 12:04:02  ✓ Read(src/app.ts)`, indented two spaces
 * per subagent level after the timestamp (timestamps stay aligned), the
 * status mark (if any) before the summary.
 */
export function renderEntryLine(entry: TurnLogEntry): string {
  return `${linePrefix(entry)}${entry.summary}`;
}

/** The line with the summary re-cut to `summaryCap` (the condenser's 400 → 200 → 100). */
export function renderEntryLineAtCap(entry: TurnLogEntry, summaryCap: number | undefined): string {
  if (summaryCap === undefined) return renderEntryLine(entry);
  return `${linePrefix(entry)}${truncateGraphemes(entry.summary, summaryCap)}`;
}

/** The entry as a frame line, its summary re-cut to `summaryCap`; `plainLine` of it is `renderEntryLineAtCap`. */
export function frameLineOf(entry: TurnLogEntry, summaryCap?: number): FrameLine {
  return {
    kind: entry.kind,
    ...(entry.status === undefined ? {} : { status: entry.status }),
    depth: indentDepth(entry),
    time: entry.timestamp,
    text: summaryCap === undefined ? entry.summary : truncateGraphemes(entry.summary, summaryCap),
  };
}

/** `renderEntryLineAtCap(entry, summaryCap).length`, without building the line. */
export function entryLineLength(entry: TurnLogEntry, summaryCap: number | undefined): number {
  const { summary } = entry;
  const shown =
    summaryCap === undefined || summary.length <= summaryCap
      ? summary.length
      : truncateGraphemes(summary, summaryCap).length;
  return 4 + entry.timestamp.length + 2 * indentDepth(entry) + statusMark(entry).length + shown;
}

function linePrefix(entry: TurnLogEntry): string {
  return `• ${entry.timestamp}  ${'  '.repeat(indentDepth(entry))}${statusMark(entry)}`;
}

function indentDepth(entry: TurnLogEntry): number {
  return Math.max(0, Math.min(entry.depth ?? 0, MAX_INDENT_DEPTH));
}

function resolveMaxToolPreview(value: number | undefined): number {
  if (value === undefined) return DEFAULT_MAX_TOOL_PREVIEW;
  if (!Number.isInteger(value) || value < MIN_TOOL_PREVIEW) {
    throw new RangeError(
      `formatTurnLogEntry: maxToolPreview must be an integer ≥ ${MIN_TOOL_PREVIEW}, got ${String(value)}`,
    );
  }
  return value;
}

/**
 * Without the caller's subagent tree: 0 for the parent agent, 1 inside a
 * subagent, 2 inside a nested one. A `subagent` status line belongs to the
 * agent that spawned it, one level up.
 */
function inferDepth(event: RunEvent): number {
  const ownDepth = event.parentSubagentId !== undefined ? 2 : event.subagentId !== undefined ? 1 : 0;
  return event.type === 'subagent' ? ownDepth - 1 : ownDepth;
}

const outcome = (ok: boolean): 'ok' | 'failed' => (ok ? 'ok' : 'failed');

function describeEvent(
  event: RunEvent,
  opts: FormatOpts,
): { kind: TurnLogEntryKind; text: string; status?: LineStatus } | null {
  switch (event.type) {
    case 'inbound':
    case 'turn_started':
    // Its lines (one per adopted message, with who and the first words) come from the space, which knows them.
    case 'messages_adopted':
    case 'turn_ended':
    case 'answer':
      return null;
    case 'input':
      return { kind: 'system', text: `👤 ${event.text}` };
    case 'assistant':
      return { kind: 'system', text: `💬 ${event.text}` };
    case 'note':
      return { kind: 'system', text: `${NOTE_PREFIX[event.level ?? 'info']}${event.text}` };
    case 'tool_call': {
      const call = describeToolCall(event.tool, event.input);
      return { kind: 'tool', status: 'pending', text: event.summary ? `${call} — ${event.summary}` : call };
    }
    case 'tool_result': {
      const status = outcome(succeeded(event));
      const shown = toolOutcome(event);
      return { kind: 'tool', status, text: `${event.tool}${shown === '' ? '' : ` — ${shown}`}` };
    }
    case 'subagent':
      return {
        kind: 'subagent',
        status: event.status === 'started' ? 'pending' : outcome(event.status === 'done'),
        text: describeSubagent(event, event.at ?? opts.now, opts.startedAt),
      };
    case 'policy_request': {
      const command = [event.command, ...(event.args ?? [])].join(' ');
      return { kind: 'policy', text: `policy: ${event.title ?? 'approval requested'} — ${command}` };
    }
    case 'question': {
      const options = event.options.map((option) => normalizeOption(option).label).join(' / ');
      return {
        kind: 'system',
        text: `❓ ${event.title ? `${event.title}: ` : ''}${event.question} — ${options}`,
      };
    }
    case 'policy_decision':
      return {
        kind: 'policy',
        text: `policy: ${event.decision} ${event.command || `request ${event.requestId}`}`,
      };
    case 'command': {
      const parts = [`command: ${event.command}`];
      if (event.exitCode !== undefined && event.exitCode !== 0) parts.push(`exit ${event.exitCode}`);
      const output = event.output === undefined ? '' : summarizeToolResult(event.output);
      if (output !== '') parts.push(output);
      return {
        kind: 'command',
        status: outcome(event.exitCode === undefined || event.exitCode === 0),
        text: parts.join(' — '),
      };
    }
  }
}

const NOTE_PREFIX = { info: 'note: ', warn: '⚠ ', error: '✗ ' } as const;

const succeeded = (event: RunEventOf<'tool_result'>): boolean =>
  event.ok && (event.exitCode === undefined || event.exitCode === 0);

/**
 * What a result adds to its call's line: something short when it succeeded
 * (a one-line output or summary of at most 60 chars, such as `7 matches`;
 * else nothing), why when it failed (`exit 1 · 3 failing`).
 */
function toolOutcome(event: RunEventOf<'tool_result'>): string {
  if (succeeded(event)) {
    if (event.summary !== undefined) return briefText(event.summary);
    return event.output === undefined ? '' : briefToolResult(event.output);
  }
  const detail = event.summary ?? (event.output === undefined ? '' : toolResultHeadline(event.output));
  const exit = event.exitCode === undefined ? '' : `exit ${event.exitCode}`;
  // Executors already render a failure as `exit <code>: …`; don't say it twice.
  if (exit === '' || detail.startsWith(exit)) return detail;
  return detail === '' ? exit : `${exit} · ${detail}`;
}

function describeSubagent(
  event: RunEventOf<'subagent'>,
  at: number | undefined,
  startedAt: number | undefined,
): string {
  const text = `subagent: ${event.name || event.subagentId} ${event.status}`;
  if (event.status === 'started' || startedAt === undefined || at === undefined) return text;
  return `${text} (${formatDuration(at - startedAt)})`;
}

/** `14s`, `2m 05s`, `1h 02m`. */
function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ${String(seconds % 60).padStart(2, '0')}s`;
  return `${Math.floor(minutes / 60)}h ${String(minutes % 60).padStart(2, '0')}m`;
}
