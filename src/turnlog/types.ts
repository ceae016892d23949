/** Shapes of the turn log (docs/architecture.md "Formatting"). */
import type { FrameLine, LineStatus, TurnLogEntryKind } from '../surfaces/frame.js';

export type { TurnLogEntryKind };

export interface TurnLogEntry {
  /** `HH:MM:SS` wall-clock in the configured time zone; no date (the thread anchors the day). */
  timestamp: string;
  kind: TurnLogEntryKind;
  /** One-line rendered form, already per-entry truncated (`maxToolPreview`). No newlines. */
  summary: string;
  /** The outcome of what the line reports (a call pending, a result ok or failed); absent for notes. */
  status?: LineStatus;
  /** Untruncated content length: lets the condenser decide how much to re-cut. */
  rawLength: number;
  subagentId?: string;
  /** Subagent nesting depth (0 = the parent agent), shown as indentation. */
  depth?: number;
  /** The run event type the entry came from, for telemetry and debugging. */
  messageRole: string;
  /** The `seq` of the event the entry came from, when known (lets tests prove nothing is lost). */
  seq?: number;
  /** A tool call's or result's `callId`: a result completes its call's line in place. */
  callId?: string;
  /**
   * On a tool result: what its call's line gains once completed (`7 matches`,
   * `exit 1 · 3 failing`; empty when nothing short is worth saying).
   */
  outcome?: string;
  /** On a call completed in place: the `seq` of the result that completed it. */
  resultSeq?: number;
}

export type CondenseStrategy = 'rollover' | 'drop-earliest' | 'aggressive-truncate' | 'hybrid';
export const CONDENSE_STRATEGIES: readonly CondenseStrategy[] = [
  'rollover',
  'drop-earliest',
  'aggressive-truncate',
  'hybrid',
];

export interface CondenseOpts {
  /** Default 3500, at least 100. Characters are UTF-16 code units (JS `.length`). */
  maxChars: number;
  /** Default `rollover`. */
  strategy: CondenseStrategy;
}

/** `text` is the plain form of `lines` (each `plainLine`, joined by `\n`); renderers read `lines`. */
export type CondenseResult =
  | { kind: 'fits'; text: string; lines: FrameLine[] }
  | { kind: 'rollover'; finalText: string; finalLines: FrameLine[]; carryEntries: TurnLogEntry[] };

export interface FormatOpts {
  /** Default 400. */
  maxToolPreview?: number;
  /** IANA zone for `HH:MM:SS`; default the process's zone. */
  timeZone?: string;
  /** Epoch ms used when the event carries no `at`. */
  now?: number;
  /**
   * Subagent depth of the event, when the caller tracks the tree. Default:
   * inferred from `subagentId` / `parentSubagentId` (0, 1 or 2).
   */
  depth?: number;
  /** Epoch ms the subagent started, so a `done`/`failed` line can show its duration. */
  startedAt?: number;
}
