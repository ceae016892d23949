/**
 * One rate-limit interface for every platform, small like discord.js's
 * `IHandler`: the platform keys a write the way it limits it (Discord: the
 * route, whose bucket and the global limit apply; Google Chat: the space;
 * Slack: the method, `chat.postMessage` per channel), says how long before a
 * call on that key would be admitted, and reads each answer. The budget and
 * the pacing ask this interface (`waitMsForCall`), never a platform's own
 * tracker; each platform folder implements it (the platform imports the
 * core, never the other way round).
 */
import { SurfaceError } from '../surfaces/surface.js';
import type { WriteKind } from './config.js';

/** A fetch `Headers` or a plain object of lower- or mixed-case header names. */
export type HeaderSource =
  | { get(name: string): string | null }
  | Readonly<Record<string, string | undefined>>;

/** A header's value, whatever the case of its name; undefined when absent. */
export function headerOf(headers: HeaderSource | undefined, name: string): string | undefined {
  if (headers === undefined) return undefined;
  if (typeof (headers as { get?: unknown }).get === 'function') {
    return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  }
  const lower = name.toLowerCase();
  for (const [key, value] of Object.entries(headers as Readonly<Record<string, string | undefined>>)) {
    if (key.toLowerCase() === lower) return value;
  }
  return undefined;
}

/** A header holding a finite number; undefined when absent or not a number. */
export function numberHeaderOf(headers: HeaderSource | undefined, name: string): number | undefined {
  const value = headerOf(headers, name);
  if (value === undefined || value === '') return undefined;
  const parsed = Number(value);
  return Number.isFinite(parsed) ? parsed : undefined;
}

/** `Retry-After` (seconds) in ms, when the answer carries one. */
export function retryAfterMsOf(headers: HeaderSource | undefined): number | undefined {
  const seconds = numberHeaderOf(headers, 'Retry-After');
  return seconds === undefined || seconds < 0 ? undefined : Math.ceil(seconds * 1000);
}

/** A write as the runtime knows it, before a platform keys it. */
export interface RateLimitedCall {
  write: WriteKind;
  space: string;
  threadId?: string;
  messageId?: string;
  /**
   * The platform's own method, where the write kind alone does not name it
   * (Slack: `reactions.remove` beside `reactions.add`, each limited apart).
   * Absent: the kind's usual method.
   */
  method?: string;
}

/** What the platform answered a call: its status and headers. */
export interface RateLimitAnswer {
  status: number;
  headers: HeaderSource;
}

export interface RateLimiter {
  /** The platform id (`discord`, `gchat`, `slack`, …). */
  readonly platform: string;
  /** The key the platform limits this write under. */
  keyOf(call: RateLimitedCall): string;
  /** Milliseconds before a call on `key` would be admitted (0: go). */
  waitMsFor(key: string): number;
  /** A call on `key` is going out now. */
  onRequest(key: string): void;
  /** What the answer to a call on `key` said; for a 429, how long (ms) the key is held back. */
  onResponse(key: string, answer: RateLimitAnswer): number | undefined;
}

/** How long before this write would be admitted (0: go): what the budget and the pacing ask. */
export function waitMsForCall(limiter: RateLimiter, call: RateLimitedCall): number {
  return limiter.waitMsFor(limiter.keyOf(call));
}

/** A call the platform (or its limiter, knowing the answer would be a 429) refused for its rate limit. */
export class RateLimitedError extends SurfaceError {
  constructor(
    message: string,
    retryAfterMs: number,
    details: { status?: number; code?: string | number; cause?: unknown } = {},
  ) {
    super('rate-limited', message, { ...details, retryAfterMs });
  }
}
