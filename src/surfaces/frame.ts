/**
 * The structured frame that crosses the ChatSurface port. The runtime says
 * WHAT a message shows (log lines with their kind and status, a headline, a
 * card with actions, or prose); each platform's renderer decides HOW, in its
 * own idiom (Google Chat text and cardsV2, Slack Block Kit `rich_text`,
 * Discord Components V2). No renderer parses text to recover structure.
 *
 * Every string in a frame is user-supplied content, already redacted and cut
 * to fit by the condenser: a renderer shows it literally (no mention, link or
 * markup may form from it) except `prose.markdown`, which it converts.
 */
import type { TurnLogEntryKind } from '../turnlog/types.js';

/** The state a log message shows in its headline (and its colour, where the platform has one). */
export type FrameState = 'running' | 'done' | 'failed' | 'stopped';

/** A log line's outcome: a tool call is `pending` until its result completes it. */
export type LineStatus = 'pending' | 'ok' | 'failed';

export interface FrameLine {
  kind: TurnLogEntryKind | 'marker';
  /** Set on lines that have an outcome (tool calls, subagents, commands); absent for notes and markers. */
  status?: LineStatus;
  /** Subagent nesting depth (0 = the parent agent). */
  depth: number;
  /** `HH:MM:SS` (empty for condenser markers such as `…log continues`). */
  time: string;
  /** The line's content, one line, already cut to the condenser's budget. */
  text: string;
}

export interface FrameHeadline {
  state: FrameState;
  /** What the turn is about (the host's title or the platform's default). */
  title: string;
  /** Milliseconds since the turn started (the renderer formats the clock: `3m 04s`). */
  elapsedMs: number;
  /** What is happening now, e.g. `running Bash (12s)`, `thinking (4s since last tool)`; absent when ended. */
  now?: string;
}

export interface FrameAction {
  /** The action id a click comes back with (`approve`, `reject`, an option's value, `stop`). */
  id: string;
  label: string;
  style?: 'primary' | 'danger';
}

export interface FrameCard {
  kind: 'policy' | 'question';
  /** `requestId` of a policy request, `questionId` of a question. */
  id: string;
  title: string;
  /** The command (shown monospace) for a policy card; the question for a question card. */
  body: string;
  /** Buttons; empty once decided. */
  actions: FrameAction[];
  /** Set once someone decided: `✅ approved by Alice`. */
  outcome?: string;
}

export type SurfaceFrame =
  /** A turn's activity log message. */
  | { kind: 'log'; headline?: FrameHeadline; lines: FrameLine[] }
  /** A card with actions (policy request, question). */
  | { kind: 'card'; card: FrameCard }
  /** Free text in Markdown: answers, headers, notes posted top-level. */
  | { kind: 'prose'; markdown: string };

/** The plain-text form of a log line (what a platform without structure shows). */
export function plainLine(line: FrameLine): string {
  if (line.kind === 'marker') return `• ${line.text}`;
  const indent = '  '.repeat(line.depth);
  return `• ${line.time}  ${indent}${line.text}`;
}
