/**
 * A turn log message's headline (state, title, elapsed clock, what is
 * happening now), the room kept for it, and the assistant status a frame
 * implies: pure functions of the turn's context, read by the turn's
 * implementations when they render a frame.
 */
import type { TurnContext, TurnOutcome } from '../../machines/turn.machine.js';
import type { FrameAction, FrameHeadline, FrameState, SurfaceFrame } from '../surfaces/frame.js';
import { MIN_LOG_MESSAGE_CHARS } from '../turnlog/condense.js';
import { PENDING_MARK } from '../turnlog/format.js';
/** A headline's title is cut to this many characters. */
export const HEADLINE_TITLE_CHARS = 80;
/** A tool name in the headline's `now` is cut to this many characters. */
export const HEADLINE_TOOL_CHARS = 40;
/** The longest `now`: `running <tool cut to 40> (99999s)`, `thinking (99999s since last tool)`. */
const HEADLINE_NOW_CHARS = 'running  (99999s)'.length + HEADLINE_TOOL_CHARS;
/** The name in `stopping… (asked by <name>)` is cut to this many characters (within the `now` reserve). */
const HEADLINE_STOPPER_CHARS = HEADLINE_NOW_CHARS - 'stopping… (asked by )'.length;
/** The Stop button of a live log (`visibility.stopButton`). */
export const STOP_ACTION: FrameAction = { id: 'stop', label: 'Stop', style: 'danger' };
/** The longest clock (`99h 59m`). */
const HEADLINE_CLOCK_CHARS = 8;

/**
 * Characters kept free for the headline line of a turn titled `title`: the
 * icon, the (cut) title, the clock and the longest `now`, joined by ` · `,
 * and its newline. Fixed for the turn, so the condenser's budget is too.
 */
export function headlineReserve(title: string): number {
  const titleChars = Math.min(title.length, HEADLINE_TITLE_CHARS);
  return 2 + titleChars + 3 + HEADLINE_CLOCK_CHARS + 3 + HEADLINE_NOW_CHARS + 1;
}

/**
 * The condenser's budget for a turn's log lines: the configured `maxChars`
 * or the platform's limit, whichever is smaller, less the headline's room, so
 * a whole log message stays within both (never under the condenser's minimum).
 */
export function condenseBudget(settingsMaxChars: number, platformMaxChars: number, title: string): number {
  return Math.max(
    MIN_LOG_MESSAGE_CHARS,
    Math.min(settingsMaxChars, platformMaxChars) - headlineReserve(title),
  );
}

const cut = (text: string, max: number): string => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

const HEADLINE_STATE: Record<TurnOutcome, FrameState> = { ok: 'done', error: 'failed', stopped: 'stopped' };

/**
 * The state an ended turn shows: ⛔ `blocked` when it failed or stopped
 * after its last policy request was rejected (the agent was not let through),
 * ⚠️ `degraded` when it ended well but its log lost its thread on the way (a
 * turn that never had one — threads off, a DM without — is not degraded),
 * else from its outcome (✅ ❌ ⏹).
 */
export function endedState(
  context: Pick<TurnContext, 'outcome' | 'lostThread' | 'lastDecision'>,
): FrameState {
  const outcome = context.outcome ?? 'ok';
  if (outcome !== 'ok' && context.lastDecision === 'rejected') return 'blocked';
  if (outcome === 'ok' && context.lostThread === true) return 'degraded';
  return HEADLINE_STATE[outcome];
}

/**
 * The headline at `now`: the state (from the outcome once the end came), the
 * elapsed clock, and what is happening — the tool in flight, else how long
 * the model has been thinking since the last tool (absent once ended, and on
 * a message finalized by a rollover).
 */
export function headlineAt(context: TurnContext, now: number, live: boolean): FrameHeadline {
  const startedAt = context.startedAt ?? now;
  const headline: FrameHeadline = {
    state: context.outcome === null ? 'running' : endedState(context),
    title: cut(context.title, HEADLINE_TITLE_CHARS),
    elapsedMs: Math.max(0, now - startedAt),
  };
  if (!live || context.outcome !== null) return headline;
  if (context.stopRequest) {
    return {
      ...headline,
      now: `stopping… (asked by ${cut(context.stopRequest.by, HEADLINE_STOPPER_CHARS)})`,
    };
  }
  const seconds = (since: number) => Math.max(0, Math.floor((now - since) / 1000));
  const busy = context.toolInFlight;
  if (busy)
    return { ...headline, now: `running ${cut(busy.tool, HEADLINE_TOOL_CHARS)} (${seconds(busy.since)}s)` };
  if (context.lastToolAt !== null)
    return { ...headline, now: `thinking (${seconds(context.lastToolAt)}s since last tool)` };
  return { ...headline, now: `thinking (${seconds(startedAt)}s)` };
}

/** What a pending call's line starts with before its target (the formatter's mark, or the older `tool: `). */
const PENDING_PREFIX = new RegExp(`^(?:${PENDING_MARK}|tool: )`);

/** The assistant status a log frame implies: the tool in flight while it runs, '' (cleared) otherwise. */
export function statusOf(frame: SurfaceFrame): string | undefined {
  if (frame.kind !== 'log') return undefined;
  if (frame.headline !== undefined && frame.headline.state !== 'running') return '';
  // The newest tool line is the activity: a call still waiting for its result, or a result (nothing in flight).
  const newest = frame.lines.findLast((line) => line.kind === 'tool');
  return newest?.status === 'pending' ? `running ${newest.text.replace(PENDING_PREFIX, '')}` : '';
}
