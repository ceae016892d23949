/**
 * The turn log kept incrementally, so the cost of an event or a flush does
 * not grow with the turn. The turn actor holds a `TurnLogState` (plain,
 * JSON-serialisable data) in its context, calls `appendEntry` on every
 * entry and `renderTurnLog` on every flush, and `startNextMessage` once a
 * message is finalized.
 *
 * The state keeps only what can still be shown: the window of the open
 * message (bounded by `maxChars`: a strategy that drops forgets entries no
 * future text can show; one that rolls over seals a full message as soon as
 * it fills) and the rendered length of that window, kept up to date on every
 * append at each summary cap. So an append costs O(window), a render
 * O(window), never O(turn), and `renderTurnLog` gives exactly what
 * `condenseTurnLog` would give for every entry appended to the message.
 *
 * Pass the same options to every call for a state. When they change anyway
 * (a config reload), texts still never exceed the current `maxChars`, but
 * they may differ from what `condenseTurnLog` would give.
 */
import type { FrameLine } from '../surfaces/frame.js';
import { condenseWindow, headerLength, plainLog, resolveCondenseOpts, TRUNCATION_CAPS } from './condense.js';
import { completeToolCall, entryLineLength, frameLineOf, isPendingCall } from './format.js';
import type { CondenseOpts, CondenseResult, TurnLogEntry } from './types.js';

/** A message that filled up and waits for its final edit. */
export interface SealedMessage {
  /** Its final text, `• …log continues` last. */
  text: string;
  /** The same as frame lines (`text` is their plain form). */
  lines: FrameLine[];
  /** Entries dropped before `entries` (only when the strategy changed mid-message). */
  dropped: number;
  entries: TurnLogEntry[];
}

export interface TurnLogState {
  /** Entries of the open message that a text can still show, oldest first. */
  window: TurnLogEntry[];
  /** Entries of the open message dropped before `window`; the dropped marker counts them. */
  dropped: number;
  /**
   * Length (UTF-16 units) of `window`'s lines joined by `\n`, with summaries
   * as formatted, then re-cut to each of `TRUNCATION_CAPS` (400, 200, 100).
   */
  windowChars: number[];
  /** Full messages not yet finalized, oldest first; `window` continues after them. */
  sealed: SealedMessage[];
  /**
   * When, in the open message's revisions (each append or in-place
   * completion is one, from its first entry), a tool result completed its
   * call's line in place: a completion adds a revision but no entry, so
   * `entriesAtRevision` can tell how many entries a frame covered. Absent = none.
   */
  completions?: number[];
  /**
   * What each tool call still awaiting its result acts on (`Grep("TODO")`),
   * by `callId`, across messages: a result that cannot complete its call's
   * line (sealed or finalized) still names it on its own line. At most
   * `MAX_PENDING_CALLS`, oldest forgotten first. Absent = none.
   */
  calls?: Record<string, string>;
}

/** Calls a log remembers awaiting their results (a host that never sends some cannot grow it). */
export const MAX_PENDING_CALLS = 256;

/** Which `windowChars` slot measures the lines a strategy fits. */
const AS_FORMATTED = 0;
const SHORTEST_CAP = TRUNCATION_CAPS.length;
const CAPS = [undefined, ...TRUNCATION_CAPS];

export function createTurnLog(): TurnLogState {
  return { window: [], dropped: 0, windowChars: CAPS.map(() => 0), sealed: [] };
}

/** A log holding `entries` as one message (e.g. restored after a restart). */
export function turnLogFromEntries(
  entries: readonly TurnLogEntry[],
  opts?: Partial<CondenseOpts>,
): TurnLogState {
  return entries.reduce((state, entry) => appendEntry(state, entry, opts), createTurnLog());
}

/**
 * Adds an entry to the open message. A tool result whose call is still in
 * the window completes that call's line in place (one line per tool call);
 * one whose call was already sealed or finalized, or never came, is a line
 * of its own.
 */
export function appendEntry(
  state: TurnLogState,
  entry: TurnLogEntry,
  opts?: Partial<CondenseOpts>,
): TurnLogState {
  const resolved = resolveCondenseOpts(opts);
  const call = entry.outcome === undefined ? -1 : pendingCallIndex(state.window, entry.callId);
  const grown = trackCalls(
    call >= 0 ? completeInWindow(state, call, entry) : appendToWindow(state, namedResult(state, entry)),
    entry,
  );
  switch (resolved.strategy) {
    case 'rollover':
      return sealFullMessages(grown, resolved, AS_FORMATTED);
    case 'aggressive-truncate':
      return sealFullMessages(grown, resolved, SHORTEST_CAP);
    case 'drop-earliest':
      return forgetUnshowable(grown, resolved.maxChars, AS_FORMATTED);
    case 'hybrid':
      return forgetUnshowable(grown, resolved.maxChars, SHORTEST_CAP);
  }
}

/** A result on its own line, naming its call when the log knows it: `Grep("TODO") — 7 matches`. */
function namedResult(state: TurnLogState, entry: TurnLogEntry): TurnLogEntry {
  const target =
    entry.outcome === undefined || entry.callId === undefined ? undefined : state.calls?.[entry.callId];
  if (target === undefined) return entry;
  return completeToolCall({ ...entry, summary: target, rawLength: target.length }, entry);
}

/** Remembers a pending call's target; forgets it once its result came. */
function trackCalls(state: TurnLogState, entry: TurnLogEntry): TurnLogState {
  const { callId } = entry;
  if (callId === undefined) return state;
  if (isPendingCall(entry)) {
    const calls = { ...state.calls, [callId]: entry.summary };
    const keys = Object.keys(calls);
    for (let i = 0; i < keys.length - MAX_PENDING_CALLS; i++) delete calls[keys[i]!];
    return { ...state, calls };
  }
  if (entry.outcome === undefined || state.calls?.[callId] === undefined) return state;
  const { [callId]: _, ...calls } = state.calls;
  return { ...state, calls };
}

function appendToWindow(state: TurnLogState, entry: TurnLogEntry): TurnLogState {
  const lengths = lineLengths(entry);
  const separator = state.window.length > 0 ? 1 : 0;
  return {
    ...state,
    window: [...state.window, entry],
    windowChars: state.windowChars.map((chars, i) => chars + separator + lengths[i]!),
  };
}

/** The window with its `index`th entry (a pending call) completed by `result`, re-measured. */
function completeInWindow(state: TurnLogState, index: number, result: TurnLogEntry): TurnLogState {
  const before = state.window[index]!;
  const after = completeToolCall(before, result);
  const was = lineLengths(before);
  const now = lineLengths(after);
  const window = state.window.slice();
  window[index] = after;
  return {
    ...state,
    window,
    windowChars: state.windowChars.map((chars, i) => chars - was[i]! + now[i]!),
    completions: [...(state.completions ?? []), messageRevisions(state)],
  };
}

/** The newest pending call in the window with this `callId`, or -1 (scans the window: O(window), like an append). */
function pendingCallIndex(window: readonly TurnLogEntry[], callId: string | undefined): number {
  if (callId === undefined) return -1;
  for (let i = window.length - 1; i >= 0; i--) {
    const entry = window[i]!;
    if (entry.callId === callId && isPendingCall(entry)) return i;
  }
  return -1;
}

/** What `condenseTurnLog` gives for every entry appended since the message opened. */
export function renderTurnLog(state: TurnLogState, opts?: Partial<CondenseOpts>): CondenseResult {
  const resolved = resolveCondenseOpts(opts);
  const first = state.sealed[0];
  if (first !== undefined && first.text.length <= resolved.maxChars) {
    return {
      kind: 'rollover',
      finalText: first.text,
      finalLines: first.lines,
      carryEntries: entriesAfter(state.sealed, 1, state.window),
    };
  }
  if (first !== undefined) {
    // Sealed under a larger maxChars (the options changed): condense everything pending afresh.
    return condenseWindow(entriesAfter(state.sealed, 0, state.window), first.dropped, resolved);
  }
  if (state.dropped === 0) {
    // The common case: it fits; the kept lengths say at which cap, so render that one only.
    const usable =
      resolved.strategy === 'rollover' || resolved.strategy === 'drop-earliest' ? 1 : CAPS.length;
    const slot = state.windowChars.slice(0, usable).findIndex((chars) => chars <= resolved.maxChars);
    if (slot >= 0) {
      const lines = state.window.map((e) => frameLineOf(e, CAPS[slot]));
      return { kind: 'fits', text: plainLog(lines), lines };
    }
  }
  return condenseWindow(state.window, state.dropped, resolved);
}

/** Entries appended to the open message so far: shown, sealed, dropped or in view. */
export function messageEntryCount(state: TurnLogState): number {
  let count = state.dropped + state.window.length;
  for (const message of state.sealed) count += message.dropped + message.entries.length;
  return count;
}

/** Appends and in-place completions since the open message started (its carried entries count one each). */
export function messageRevisions(state: TurnLogState): number {
  return messageEntryCount(state) + (state.completions?.length ?? 0);
}

/**
 * How many of the open message's entries existed at its `revisions`th
 * revision (what a frame rendered then covered): completions before it
 * added a revision but no entry.
 */
export function entriesAtRevision(state: TurnLogState, revisions: number): number {
  let completed = 0;
  for (const at of state.completions ?? []) if (at < revisions) completed++;
  return Math.max(0, revisions - completed);
}

/**
 * The log after the open message was finalized, the next message starting
 * with what it did not show. `shownEntries` counts the message's entries
 * (from its first, dropped ones included) that the final text covered:
 * by default what `renderTurnLog` shows now; pass the count the sent frame
 * covered when entries arrived since, or when a message is abandoned after
 * failed edits (then it is the count its last successful edit showed).
 */
export function startNextMessage(
  state: TurnLogState,
  opts?: Partial<CondenseOpts>,
  shownEntries?: number,
): TurnLogState {
  const total = messageEntryCount(state);
  const shown = shownEntries ?? shownNow(state, opts, total);
  if (!Number.isInteger(shown) || shown < 0 || shown > total) {
    throw new RangeError(
      `startNextMessage: shownEntries must be an integer from 0 to the message's ${total} entries, got ${String(shown)}`,
    );
  }
  let skip = shown;
  let next = 0;
  for (; next < state.sealed.length; next++) {
    const message = state.sealed[next]!;
    const size = message.dropped + message.entries.length;
    if (skip < size) break;
    skip -= size;
  }
  if (skip === 0) return { ...withoutCompletions(state), sealed: state.sealed.slice(next) };
  if (next === state.sealed.length) {
    const window = state.window.slice(Math.max(0, skip - state.dropped));
    return {
      window,
      dropped: Math.max(0, state.dropped - skip),
      windowChars: measure(window),
      sealed: [],
      ...callsOf(state),
    };
  }
  // Cut inside a full message: what it did not show starts the next one, re-measured.
  const partial = state.sealed[next]!;
  const unshown = [
    ...partial.entries.slice(Math.max(0, skip - partial.dropped)),
    ...entriesAfter(state.sealed, next + 1, state.window),
  ];
  const { calls: _, ...replayed } = turnLogFromEntries(unshown, opts);
  return { ...replayed, ...callsOf(state) };
}

/** The pending calls a next message keeps knowing. */
function callsOf(state: TurnLogState): Pick<TurnLogState, 'calls'> {
  return state.calls === undefined ? {} : { calls: state.calls };
}

/** The state as a fresh message: its revisions start again from its entries. */
function withoutCompletions(state: TurnLogState): TurnLogState {
  if (state.completions === undefined) return state;
  const { completions: _, ...rest } = state;
  return rest;
}

function shownNow(state: TurnLogState, opts: Partial<CondenseOpts> | undefined, total: number): number {
  const first = state.sealed[0];
  if (first !== undefined && first.text.length <= resolveCondenseOpts(opts).maxChars) {
    return first.dropped + first.entries.length;
  }
  const result = renderTurnLog(state, opts);
  return result.kind === 'fits' ? total : total - result.carryEntries.length;
}

/** The entries of `sealed[from…]`, then `window`, in one array (a plain loop: `flatMap` is slow here). */
function entriesAfter(
  sealed: readonly SealedMessage[],
  from: number,
  window: readonly TurnLogEntry[],
): TurnLogEntry[] {
  const entries: TurnLogEntry[] = [];
  for (let i = from; i < sealed.length; i++) for (const entry of sealed[i]!.entries) entries.push(entry);
  for (const entry of window) entries.push(entry);
  return entries;
}

/** Rolling strategies: while the window overflows, seal the full message it holds. */
function sealFullMessages(state: TurnLogState, opts: CondenseOpts, slot: number): TurnLogState {
  let current = state;
  while (
    current.window.length > 1 &&
    headerLength(current.dropped) + current.windowChars[slot]! > opts.maxChars
  ) {
    const result = condenseWindow(current.window, current.dropped, opts);
    // Two or more lines over the budget always roll over.
    if (result.kind === 'fits') return current;
    const shown = current.window.length - result.carryEntries.length;
    current = {
      ...current,
      window: result.carryEntries,
      dropped: 0,
      windowChars: measure(result.carryEntries),
      sealed: [
        ...current.sealed,
        {
          text: result.finalText,
          lines: result.finalLines,
          dropped: current.dropped,
          entries: current.window.slice(0, shown),
        },
      ],
    };
  }
  return current;
}

/**
 * Dropping strategies: forget the oldest entries no future text can show.
 * A text showing entry `f` holds at least the lines from `f` to the one
 * before the newest (a later text ends at a later entry; a pathological
 * hybrid rollover ends just before its latest), so once those lines alone
 * exceed `maxChars`, `f` is gone for good, in this message and in any the
 * runtime starts from it. The two newest are always kept.
 */
function forgetUnshowable(state: TurnLogState, maxChars: number, slot: number): TurnLogState {
  const { window } = state;
  let beforeNewest = state.windowChars[slot]! - lineLengths(window[window.length - 1]!)[slot]! - 1;
  let forgotten = 0;
  const forgottenChars = CAPS.map(() => 0);
  while (window.length - forgotten > 2 && beforeNewest > maxChars) {
    const lengths = lineLengths(window[forgotten]!);
    beforeNewest -= lengths[slot]! + 1;
    lengths.forEach((length, i) => {
      forgottenChars[i]! += length + 1;
    });
    forgotten++;
  }
  if (forgotten === 0) return state;
  return {
    ...state,
    window: window.slice(forgotten),
    dropped: state.dropped + forgotten,
    windowChars: state.windowChars.map((chars, i) => chars - forgottenChars[i]!),
  };
}

/** The entry's rendered line length as formatted and at each cap. */
function lineLengths(entry: TurnLogEntry): number[] {
  return CAPS.map((cap) => entryLineLength(entry, cap));
}

function measure(entries: readonly TurnLogEntry[]): number[] {
  const chars = CAPS.map(() => (entries.length === 0 ? 0 : entries.length - 1));
  for (const entry of entries) {
    lineLengths(entry).forEach((length, i) => {
      chars[i]! += length;
    });
  }
  return chars;
}
