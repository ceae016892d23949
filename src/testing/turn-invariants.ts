/**
 * The turn's promises to the people in the chat, checked on what a finished
 * turn left behind: the platform's recorded calls, the space as a person sees
 * it, and the turn's own record of log messages and dead letters.
 *
 * Entries are found in texts by their tag (`turnModelEntryTag`): a summary
 * may be cut to fit, its tag at the start never is.
 *
 * `checkTurnStep` checks, after every step of a turn, what a shutdown flush
 * (`turn.flush`) promises before the turn ends.
 */
import type { DeadLetter, LogMessageRef } from '../../machines/turn.machine.js';
import type { EmulatedMessage, RecordedCall } from '../emulators/types.js';
import type { CondenseStrategy, TurnLogEntry } from '../turnlog/types.js';

/** What the kit's entries start with, so a text shows an entry even when its summary was cut. */
export const turnModelEntryTag = (seq: number): string => `[e${seq}]`;

const tagOf = (entry: TurnLogEntry): string => {
  if (entry.seq === undefined) throw new Error(`entry ${JSON.stringify(entry.summary)} has no seq to tag it`);
  return turnModelEntryTag(entry.seq);
};

export interface FinishedTurn {
  /** Entries the turn accepted, in order. */
  entries: readonly TurnLogEntry[];
  /** The platform's recorded calls (the memory surface's `calls`). */
  calls: readonly RecordedCall[];
  /** The space as a person sees it at the end. */
  messages: readonly EmulatedMessage[];
  logMessages: readonly LogMessageRef[];
  deadLetters: readonly DeadLetter[];
  /** Did the turn reach `ended`? */
  ended: boolean;
  /** Surface calls made after it did. */
  callsAfterEnd: number;
  /** What the turn told its platform's budget actor, in order (`budget.card.closed` …). */
  budgetRequests: readonly string[];
  /**
   * Entries the strategy dropped from the log message still open at the end
   * (`log.dropped`): when its last frame failed for good, no marker ever
   * counted them and the dead letter lists only the entries still held.
   */
  droppedAtEnd: number;
  /** Can the platform post without notifying (Discord)? */
  silentPosts: boolean;
  strategy: CondenseStrategy;
  /** The header a proactive turn was given (posted top-level before the log), or null. */
  header: string | null;
}

/** A text short enough for a report: its start and its end. */
function abbreviate(text: string | null | undefined): string {
  if (text === null || text === undefined) return 'nothing';
  return JSON.stringify(text.length <= 90 ? text : `${text.slice(0, 40)}…${text.slice(-40)}`);
}

const DROPPED_COUNT = /^• …(\d+) earlier entr(?:y|ies) dropped$/m;
const ENTRY_TAG = /\[e\d+\]/g;
const isWrite = (call: RecordedCall): boolean =>
  (call.op === 'create' || call.op === 'update') && call.status >= 200 && call.status < 300;

/** Strategies that forget the earliest entries by design (the dropped marker counts them). */
const DROPPING: ReadonlySet<CondenseStrategy> = new Set(['drop-earliest', 'hybrid']);

/**
 * Returns the broken promises (empty when none):
 * (a) one notifying post per log message opened, and every log message after
 *     the first asked to be silent (so where posts can be silent, a turn buzzes
 *     once); a proactive turn's header is one more notifying post: it is a new
 *     top-level message for the whole space, and the first log message, in
 *     its thread, notifies that thread's participants (the memory surface
 *     says a post notifies unless it asked to be silent where posts can be):
 *     buzzes = 1 (header) + 1 (first log message) + the rest where they cannot be silent;
 * (b) the turn ended, made no surface call after it did, and told the budget
 *     once that its card closed (so it leaves the fair share);
 * (c) the terminal frame was sent: the last text written shows the newest
 *     entry, and a person sees that text (unless they deleted the message);
 * (d) no entry lost: each is in some text the platform accepted, or in a dead
 *     letter, or (strategies that drop) counted by the dropped marker of a
 *     frame the turn sent or tried to send, or by the open message's log;
 * (e) a proactive turn's header is its first post, top-level, not silent, made
 *     once, and the log messages hang in its thread (or top-level once the log
 *     degraded); when the header post failed, the whole log is top-level;
 * (f) no entry shown twice: the last texts of the log messages (what a
 *     person reads at the end) show each entry at most once — a rollover
 *     carries only what the finished message's final text did not show, a
 *     top-level batch only what no earlier batch showed.
 */
export function checkFinishedTurn(turn: FinishedTurn): string[] {
  const problems: string[] = [];
  const writes = turn.calls.filter(isWrite);
  const creates = writes.filter((call) => call.op === 'create' && call.details?.idempotentReplay !== true);
  const headers = turn.header === null ? [] : creates.filter((call) => call.text === turn.header);
  const logCreates = creates.filter((call) => !headers.includes(call));
  const logWrites = writes.filter((call) => !headers.includes(call));

  // (a)
  if (logCreates.length !== turn.logMessages.length) {
    problems.push(
      `(a) ${logCreates.length} log message(s) created on the platform, but the turn opened ${turn.logMessages.length}`,
    );
  }
  const buzzes = creates.filter((call) => call.notifies).length;
  const expectedBuzzes =
    headers.length + (turn.silentPosts ? Math.min(1, logCreates.length) : logCreates.length);
  if (buzzes !== expectedBuzzes) {
    problems.push(
      `(a) ${buzzes} notifying post(s) for ${logCreates.length} log message(s)${headers.length > 0 ? ' and the header' : ''}; expected ${expectedBuzzes}`,
    );
  }
  logCreates.slice(1).forEach((call, i) => {
    if (call.details?.silent !== true) {
      problems.push(`(a) log message #${i + 2} (${call.messageId}) was posted without asking to be silent`);
    }
  });

  // (b)
  if (!turn.ended) problems.push('(b) the turn never reached ended');
  if (turn.callsAfterEnd > 0) problems.push(`(b) ${turn.callsAfterEnd} surface call(s) after the turn ended`);
  const closed = turn.budgetRequests.filter((type) => type === 'budget.card.closed').length;
  if (turn.ended && closed !== 1)
    problems.push(`(b) the turn told the budget ${closed} time(s) that its card closed`);

  const deadTags = new Set(turn.deadLetters.flatMap((letter) => letter.entries.map(tagOf)));
  // (c)
  const newest = turn.entries.at(-1);
  const lastWrite = writes.at(-1);
  if (newest && !deadTags.has(tagOf(newest))) {
    if (!lastWrite?.text?.includes(tagOf(newest))) {
      problems.push(
        `(c) the newest entry ${tagOf(newest)} is not in the last text sent: ${abbreviate(lastWrite?.text)}`,
      );
    } else {
      const seen = turn.messages.find((message) => message.id === lastWrite.messageId);
      if (seen && !seen.deleted && seen.text !== lastWrite.text) {
        problems.push(
          `(c) message ${seen.id} shows ${abbreviate(seen.text)}, not the last text sent ${abbreviate(lastWrite.text)}`,
        );
      }
    }
  }

  // (d)
  const sentTexts = writes.map((call) => call.text ?? '');
  const missing = turn.entries
    .map(tagOf)
    .filter((tag) => !deadTags.has(tag) && !sentTexts.some((text) => text.includes(tag)));
  const attempts = turn.calls.filter((call) => call.op === 'create' || call.op === 'update');
  const droppable = DROPPING.has(turn.strategy) ? droppedByMarkers(attempts) + turn.droppedAtEnd : 0;
  if (missing.length > droppable) {
    problems.push(
      `(d) ${missing.length} entr${missing.length === 1 ? 'y' : 'ies'} never shown nor dead-lettered: ${missing.join(' ')}` +
        (droppable > 0 ? ` (dropped markers account for ${droppable})` : ''),
    );
  }

  if (turn.header !== null) problems.push(...headerProblems(headers, creates, logCreates));
  problems.push(...repeatedEntries(logWrites));
  return problems;
}

/** (e) for a proactive turn. */
function headerProblems(
  headers: readonly RecordedCall[],
  creates: readonly RecordedCall[],
  logCreates: readonly RecordedCall[],
): string[] {
  const [header] = headers;
  if (!header) {
    return logCreates
      .filter((call) => call.thread !== null)
      .map((call) => `(e) the header was never posted, yet log message ${call.messageId} is in a thread`);
  }
  const problems: string[] = [];
  if (headers.length > 1) problems.push(`(e) the header was posted ${headers.length} times`);
  if (creates[0] !== header) problems.push(`(e) the header was not the turn's first post`);
  if (header.thread !== null) problems.push(`(e) the header was posted in thread ${header.thread}`);
  if (header.details?.silent === true) problems.push('(e) the header was posted silent');
  for (const call of logCreates) {
    if (call.thread !== null && call.thread !== header.messageId) {
      problems.push(
        `(e) log message ${call.messageId} is in thread ${call.thread}, not the header's (${header.messageId})`,
      );
    }
  }
  return problems;
}

/** (f): the log messages whose last accepted text shows each entry. */
function repeatedEntries(logWrites: readonly RecordedCall[]): string[] {
  const lastText = new Map<string, string>();
  for (const call of logWrites) lastText.set(call.messageId ?? 'unknown', call.text ?? '');
  const shownIn = new Map<string, string[]>();
  for (const [messageId, text] of lastText) {
    for (const tag of new Set(text.match(ENTRY_TAG)))
      shownIn.set(tag, [...(shownIn.get(tag) ?? []), messageId]);
  }
  const repeated = [...shownIn].filter(([, messages]) => messages.length > 1);
  if (repeated.length === 0) return [];
  return [
    `(f) entries shown in more than one log message: ${repeated
      .map(([tag, messages]) => `${tag} (${messages.join(', ')})`)
      .join(' ')}`,
  ];
}

export interface TurnStep {
  /** Has the turn been told to end (`turn.end`), at this step or before? */
  endSent: boolean;
  /** Is the turn `ended` after the step? */
  ended: boolean;
  deadLetters: readonly DeadLetter[];
  /**
   * Set when the step took the turn out of `flushing` and it went on (a
   * shutdown flush settled): are entries still pending (its send failed for
   * good), the newest entry the turn accepted, the last text the platform
   * accepted, and the failed sends the turn still counts (`failures`).
   */
  flushSettled: {
    pending: boolean;
    newest: TurnLogEntry | undefined;
    lastText: string | null;
    failures: number;
  } | null;
}

/**
 * (g) What a shutdown flush promises, checked after every step: it never
 * ends the turn (only `turn.end` does), it never dead-letters (a send that
 * fails for good keeps the entries pending for the next process), when it
 * settles with nothing pending the newest entry is in the last text sent,
 * and its failed sends are not counted against the next frame (which gets
 * its own retries: the edit retry, the end's terminal attempts).
 */
export function checkTurnStep(step: TurnStep): string[] {
  const problems: string[] = [];
  if (step.ended && !step.endSent) problems.push('(g) the turn ended without being told to end');
  if (step.deadLetters.length > 0 && !step.endSent) {
    problems.push(`(g) ${step.deadLetters.length} dead letter(s) before the turn was told to end`);
  }
  const settled = step.flushSettled;
  if (settled && !settled.pending && settled.newest && !settled.lastText?.includes(tagOf(settled.newest))) {
    problems.push(
      `(g) the flush settled with nothing pending, but the newest entry ${tagOf(settled.newest)} is not in the last text sent: ${abbreviate(settled.lastText)}`,
    );
  }
  if (settled && settled.failures > 0) {
    problems.push(
      `(g) the flush went on with ${settled.failures} failed send(s) counted against the next frame`,
    );
  }
  return problems;
}

/**
 * Entries a dropping strategy forgot, as the dropped markers of the frames
 * the turn sent or tried to send say (a frame that failed for good still
 * shows what the strategy dropped): per message, the most any of its frames
 * counted, frames that never became a message counted together; summed.
 */
function droppedByMarkers(attempts: readonly RecordedCall[]): number {
  const most = new Map<string, number>();
  for (const call of attempts) {
    const count = Number(DROPPED_COUNT.exec(call.text ?? '')?.[1] ?? 0);
    const id = call.messageId ?? 'never posted';
    most.set(id, Math.max(most.get(id) ?? 0, count));
  }
  let total = 0;
  for (const count of most.values()) total += count;
  return total;
}
