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

/**
 * The state a log message shows in its headline (and its colour, where the
 * platform has one). Ended: `done` ✅, `failed` ❌, `stopped` ⏹, `blocked` ⛔
 * (it failed or stopped after a policy request was rejected), `degraded` ⚠️
 * (it ended well, but its log could not stay in its thread).
 */
export type FrameState = 'running' | 'done' | 'failed' | 'stopped' | 'blocked' | 'degraded';

/** A log line's outcome: a tool call is `pending` until its result completes it. */
/** What a turn-log line reports (kept here so frames need nothing from turnlog/). */
export type TurnLogEntryKind = 'tool' | 'subagent' | 'policy' | 'system' | 'command';

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

/** A link a log carries: a fixed label (never a URL, so it cannot pass for another target) and its URL. */
export interface FrameLink {
  label: string;
  url: string;
}

export type SurfaceFrame =
  /**
   * A turn's activity log message. `actions`: buttons under it (Stop while it
   * runs); an empty list removes buttons an earlier frame showed.
   */
  | {
      kind: 'log';
      headline?: FrameHeadline;
      lines: FrameLine[];
      actions?: FrameAction[];
      /** The turn's run page ("Full log"), on every frame of its log when `runs.publicUrl` is set. */
      link?: FrameLink;
    }
  /** A card with actions (policy request, question). */
  | { kind: 'card'; card: FrameCard }
  /** Free text in Markdown: answers, headers, notes posted top-level. */
  | { kind: 'prose'; markdown: string };

/**
 * A line's outcome mark. It lives only in `FrameLine.status`, never in
 * `text`: each renderer adds it once (these marks in text, Discord its own glyphs).
 */
export const LINE_MARKS: Readonly<Record<LineStatus, string>> = { pending: '⋯ ', ok: '✓ ', failed: '✗ ' };

/** The mark a line shows before its text (`✓ `), or `''` for a line without an outcome. */
export function statusMark(line: Pick<FrameLine, 'status'>): string {
  return line.status === undefined ? '' : LINE_MARKS[line.status];
}

/** The plain-text form of a log line (what a platform without structure shows): `• 12:04:02  ✓ Read(a.ts)`. */
export function plainLine(line: FrameLine): string {
  if (line.kind === 'marker') return `• ${line.text}`;
  const indent = '  '.repeat(line.depth);
  return `• ${line.time}  ${indent}${statusMark(line)}${line.text}`;
}

/** A condenser marker line (`…log continues`, `…3 earlier entries dropped`). */
export function markerLine(text: string): FrameLine {
  return { kind: 'marker', depth: 0, time: '', text };
}

/** The length of `plainLine(line)`, without building it. */
export function plainLineLength(line: FrameLine): number {
  return line.kind === 'marker'
    ? 2 + line.text.length
    : 4 + line.time.length + 2 * line.depth + statusMark(line).length + line.text.length;
}

/** A prose frame (answers, headers, notes posted top-level). */
export function proseFrame(markdown: string): SurfaceFrame {
  return { kind: 'prose', markdown };
}

const HEADLINE_ICON: Record<FrameState, string> = {
  running: '⏳',
  done: '✅',
  failed: '❌',
  stopped: '⏹',
  blocked: '⛔',
  degraded: '⚠️',
};

/** `3m 04s`, `12s`, `1h 02m`: a headline's elapsed time. */
export function formatElapsed(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ${String(seconds % 60).padStart(2, '0')}s`;
  return `${Math.floor(minutes / 60)}h ${String(minutes % 60).padStart(2, '0')}m`;
}

/** The plain-text form of a headline: `⏳ title · 3m 04s · running Bash (12s)`. */
export function plainHeadline(headline: FrameHeadline): string {
  const parts = [`${HEADLINE_ICON[headline.state]} ${headline.title}`, formatElapsed(headline.elapsedMs)];
  if (headline.now !== undefined) parts.push(headline.now);
  return parts.join(' · ');
}

/** The plain-text form of a card: its title and body, its outcome once decided. */
export function plainCard(card: FrameCard): string {
  const icon = card.kind === 'policy' ? '🔐' : '❓';
  const text = `${icon} ${card.title}: ${card.body}`;
  return card.outcome === undefined ? text : `${text}\n${card.outcome}`;
}

/**
 * The plain-text form of a frame: what a platform without structure shows,
 * the fallback text of a card, and what the memory surface records.
 */
export function plainText(frame: SurfaceFrame): string {
  switch (frame.kind) {
    case 'log': {
      const lines = frame.lines.map(plainLine);
      return (frame.headline ? [plainHeadline(frame.headline), ...lines] : lines).join('\n');
    }
    case 'card':
      return plainCard(frame.card);
    case 'prose':
      return frame.markdown;
  }
}
