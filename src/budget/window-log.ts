/**
 * Logs of writes in a sliding window: the bucket's own (`config.windowLog`,
 * Slack's exact minute) and one per write kind the platform limits apart
 * (`config.separate`). A log holds the writes a window reaching the present
 * can still see, oldest first, booked ones included.
 */
import type { BudgetConfig, SeparateWriteConfig, WriteKind } from './config.js';
import type { BudgetState } from './state.js';

/**
 * The earliest time from `at` on at which one more write keeps every window
 * of `windowMs` (half-open, `(t - windowMs, t]`) of `log` (oldest first)
 * within `allowance`, counting the writes booked after `at` too. Writes no
 * window reaching `at` holds are forgotten.
 */
export function logFreeAt(log: number[], allowance: number, windowMs: number, at: number): number {
  let drop = 0;
  while (drop < log.length && log[drop]! <= at - windowMs) drop++;
  if (drop > 0) log.splice(0, drop);
  if (log.length < allowance) return at;
  // All but allowance − 1 of the writes must have left the window.
  return Math.max(at, log[log.length - allowance]! + windowMs);
}

/** Adds a write at `at` to a log kept oldest first. */
export function logWrite(log: number[], at: number): void {
  let i = log.length;
  while (i > 0 && log[i - 1]! > at) i--;
  log.splice(i, 0, at);
}

/** With `windowLog`: when the bucket's window has room for one more write, from `at` on (else `at`). */
export function windowFreeAt(state: BudgetState, config: BudgetConfig, at: number): number {
  if (!config.windowLog) return at;
  state.sent ??= [];
  return logFreeAt(state.sent, config.windowAllowance, config.windowMs, at);
}

/** With `windowLog`: a write of the bucket goes (or is booked to go) at `at`. */
export function recordSent(state: BudgetState, config: BudgetConfig, at: number): void {
  if (!config.windowLog) return;
  state.sent ??= [];
  logWrite(state.sent, at);
}

/** The kind's own limits, when the platform limits it apart from the bucket. */
export function separateOf(
  config: BudgetConfig,
  write: WriteKind | undefined,
): SeparateWriteConfig | undefined {
  return write === undefined ? undefined : config.separate?.[write];
}

/** The kind's log of writes (oldest first), created on first use. */
export function writeLog(state: BudgetState, kind: WriteKind): number[] {
  state.separate ??= {};
  let log = state.separate[kind];
  if (log === undefined) {
    log = [];
    state.separate[kind] = log;
  }
  return log;
}

/**
 * The earliest time from `at` on at which one more write of the kind keeps
 * every window of `windowMs` (half-open, `(t - windowMs, t]`) within its
 * allowance, counting the writes already booked after `at` too.
 */
export function separateFreeAt(
  state: BudgetState,
  own: SeparateWriteConfig,
  kind: WriteKind,
  at: number,
): number {
  if (own.allowance === null) return at;
  return logFreeAt(writeLog(state, kind), own.allowance, own.windowMs, at);
}

export function recordSeparate(
  state: BudgetState,
  own: SeparateWriteConfig,
  kind: WriteKind,
  at: number,
): void {
  if (own.allowance === null) return;
  logWrite(writeLog(state, kind), at);
}
