/**
 * The turn machine's types (machines/turn.machine.ts): its settings, input,
 * context and events, the frame it sends, and the client ids of its posts.
 * Pure: types and a few pure functions.
 */
import type { ActionUser } from '../src/actions/types.js';
import type { FrameAction, FrameHeadline, FrameLine } from '../src/surfaces/frame.js';
import type { EditRequest, PostedMessage, PostRequest, ThreadAnchor } from '../src/surfaces/surface.js';
import type { TurnLogState } from '../src/turnlog/log.js';
import type { CondenseStrategy, TurnLogEntry } from '../src/turnlog/types.js';
import type { FundedEvent, GrantedEvent, RefusedEvent } from './budget.protocol.js';

export type TurnOutcome = 'ok' | 'error' | 'stopped';

export interface TurnSettings {
  /** Coalescing window for edits (ms). Default 1000. */
  editDebounceMs: number;
  /** The condenser's budget per log message (characters). Default 3500. */
  maxChars: number;
  strategy: CondenseStrategy;
  /** Wait before the one retry of a transiently failed edit (ms). Default 500. */
  editRetryMs: number;
  /** Give up a terminal frame after this many rate-limited or failed sends. Default 10. */
  terminalAttempts: number;
  /** A Stop button on the live log (`visibility.stopButton`). Default false. */
  stopButton?: boolean;
}

export interface TurnInput {
  turnId: string;
  /** Platform-prefixed space. */
  space: string;
  /** Where the thread hangs; null when the turn has no thread (threads off, anchor unknown). */
  anchor: ThreadAnchor | null;
  settings: TurnSettings;
  /** Why the turn starts without a thread (shown once, top-level). */
  degradedReason?: string;
  /** A header posted top-level first, the log threading under it: a proactive turn's (`🕒 <title>`), or a lost root's. */
  header?: string;
  /** Warnings the turn starts with (why its root was not found), shown in its view. */
  warnings?: string[];
  /** The host's title for the turn (`turn_started.title`), shown in the log's headline. */
  title?: string;
  /**
   * Post the (still empty) log at once, as an ack (Slack's 👀 card), instead
   * of waiting for the first entry. Only for a threaded turn.
   */
  ack?: boolean;
  /** Epoch ms the turn started (`turn_started.at`); default: when its first entry arrives. */
  startedAt?: number;
  /**
   * A persisted snapshot to resume from instead of starting fresh: the
   * supervisor's restart/restore path (the logic is wrapped by `restorable`).
   */
  persisted?: unknown;
}

/**
 * The frame being sent: rendered at send time, never queued. `text` is the
 * plain form of `lines`; the headline (state, elapsed clock, what is
 * happening now) is rendered with it.
 */
export type Frame = (
  | { kind: 'fits'; text: string; lines: FrameLine[]; headline: FrameHeadline; appended: number }
  | {
      kind: 'rollover';
      text: string;
      lines: FrameLine[];
      headline: FrameHeadline;
      carry: TurnLogEntry[];
      appended: number;
    }
) & {
  /** Buttons under the log (Stop while live; `[]` removes it); absent without `settings.stopButton`. */
  actions?: FrameAction[];
  /** Someone asked the turn to stop (the headline says so). */
  stopping?: boolean;
};

/**
 * What makes a frame worth sending: its lines and its headline's state and
 * title. The clock and the `now` suffix are left out, so time passing alone
 * never causes an edit (they refresh on the edits that happen anyway).
 */
export const frameKey = (frame: Frame | null): string =>
  frame === null
    ? ''
    : `${frame.headline.state}\u0000${frame.headline.title}\u0000${frame.stopping ? 'stopping' : ''}\u0000${(frame.actions ?? []).map((a) => a.id).join(',')}\u0000${frame.text}`;

/**
 * A log message the turn posted: `postedAt` (epoch ms, stamped just before
 * the create was sent) tells when the platform's edit window closes on it.
 */
export interface PostedLog extends PostedMessage {
  postedAt?: number;
}

export interface LogMessageRef extends PostedLog {
  /** No further edits: rolled over, deleted by a person, or abandoned after failed edits. */
  final: boolean;
}

export interface DeadLetter {
  reason: string;
  entries: TurnLogEntry[];
}

export interface TurnContext {
  turnId: string;
  space: string;
  settings: TurnSettings;
  /** The thread log messages go to; null = top-level. */
  anchor: ThreadAnchor | null;
  /** Entries of the current log message (the source of truth for its text); null until the first entry. */
  log: TurnLogState | null;
  /**
   * Revisions of the current log message (including carried entries): each entry appended, or a
   * tool call completed in place by its result, is one, so a completion alone is something to send.
   */
  appended: number;
  /** Entries the turn received in all, for the turn view. */
  entryCount: number;
  /** How many of those revisions the last sent frame showed. */
  shown: number;
  frame: Frame | null;
  /** The live log message, or null before the first post / after finalizing. */
  current: PostedLog | null;
  logMessages: LogMessageRef[];
  lastSentText: string | null;
  /** Creates that landed: the next create's client id is turn id + (this + 1), kept by its retries. */
  ordinal: number;
  retryAfterMs: number;
  budgetRetryMs: number;
  /** Failed sends of the frame in flight (edit retry, terminal attempts). */
  failures: number;
  outcome: TurnOutcome | null;
  degradedReason: string | null;
  /** The header still to post before the log (a proactive turn), or null. */
  header: string | null;
  /** Entries that could not be delivered, with why: nothing is lost silently. */
  deadLetters: DeadLetter[];
  /** Warnings worth showing in GET /v1/turns/:id. */
  warnings: string[];
  /** The headline's title. */
  title: string;
  /** Post the empty log at start (an ack card); absent in snapshots made before it existed. */
  ack?: boolean;
  /** Epoch ms the turn started (the headline's clock); null until known. */
  startedAt: number | null;
  /** The tool call with no result yet, and since when (`running Bash (12s)`); null when none is. */
  toolInFlight: { tool: string; since: number } | null;
  /** When the last tool result (or call) arrived (`thinking (4s since last tool)`); null before any. */
  lastToolAt: number | null;
  /** The last policy decision logged in the turn: a turn that fails or stops after a rejection ended blocked (⛔). */
  lastDecision?: 'approved' | 'rejected';
  /** The log lost its thread while the turn ran (a failed thread post): it ends ⚠️ degraded, not ✅. */
  lostThread?: boolean;
  /** Who asked the turn to stop (Stop on the log): shown until `turn_ended`; null when no one did. */
  stopRequest: { by: string } | null;
  /** Messages the turn adopted (its roots besides `anchor`), for its view; absent in snapshots from before issue 26. */
  adopted?: AdoptedMessage[];
}

/** A log entry, and the tool it starts when it is a `tool_call` (for the headline's `now`). */
export interface TurnLogItem {
  entry: TurnLogEntry;
  tool?: string;
  decision?: 'approved' | 'rejected';
}

/** A person's message a turn adopted: where it is. */
export interface AdoptedMessage {
  messageId: string;
  threadId?: string;
}

export type TurnEvent =
  /**
   * `tool`: the tool a `tool_call` entry starts; `decision`: what a
   * `policy_decision` entry decided. `following`: more entries of the same
   * batch (one `POST /v1/events` body), appended after `entry` in one step,
   * so a batch costs the turn one event, not one per entry.
   */
  | ({ type: 'turn.log'; following?: TurnLogItem[] } & TurnLogItem)
  | { type: 'turn.end'; outcome: TurnOutcome }
  /** Sent after restoring from a persisted snapshot: re-arms the timer of the waiting state. */
  | { type: 'turn.recover' }
  /** Shutdown: send the pending frame now through a terminal slot, then go on (the next process resumes). */
  | { type: 'turn.flush' }
  /** A person pressed Stop on the log (src/actions/clicks.ts): the headline says so, the button goes. */
  | { type: 'turn.stopRequested'; user: ActionUser }
  /** Later messages of people joined the turn (`messages_adopted`, issue 26): it answers them too. */
  | { type: 'turn.adopt'; messages: AdoptedMessage[] }
  | GrantedEvent
  | RefusedEvent
  | FundedEvent;

/**
 * What a post/edit actor needs: the request, the turn of a log with Stop (for
 * the card registry), and the turn (`turnId`: its card in the budget, which
 * the status written after the frame is booked for).
 */
export type PostInput = PostRequest & { stopFor?: string; turnId?: string };
export type EditInput = EditRequest & { turnId?: string };
/** Where a typing indicator shows: the log's thread, or the space (a top-level log). */
export interface TypingInput {
  space: string;
  threadId?: string;
}

/**
 * The first thread post gets this many attempts when it fails transiently
 * (5xx, timeout) before the turn degrades to top-level: one blip must not
 * move a whole turn's log out of its thread.
 */
export const FIRST_POST_ATTEMPTS = 3;

export const clientIdFor = (turnId: string, ordinal: number): string => `${turnId}:${ordinal}`;

/** The headline's title when the host gave none. */
export const DEFAULT_TURN_TITLE = 'Agent activity';
