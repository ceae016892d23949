/**
 * Rate limits (`GET/POST /_emulator/limits`): at most `limit` calls per
 * `windowS` seconds for an op (or `*`) in a scope.
 *
 * Sliding window (a log of admitted calls): any `windowS`-long interval holds
 * at most `limit` calls. It is stricter than the fixed windows some platforms
 * use (no double burst at a window edge), so a client that passes here passes
 * there. Refused calls (429) and faulted calls are not counted, as on the
 * platforms.
 */
import { z } from 'zod';
import type { CallOp, LimitRule, LimitScope } from '../types.js';
import { describeZodError } from './describe-zod-error.js';
import { CALL_OPS, EmulatorInputError } from './faults.js';

export const limitRuleSchema = z
  .object({
    op: z.enum([...CALL_OPS, '*']),
    scope: z.enum(['app', 'space', 'global']),
    limit: z.number().int().positive(),
    windowS: z.number().positive(),
  })
  .strict();

/** Parses rules with zod, throwing an EmulatorInputError that names the bad field. */
export function parseLimitRules(rules: unknown): LimitRule[] {
  const parsed = z.array(limitRuleSchema).safeParse(rules);
  if (!parsed.success)
    throw new EmulatorInputError(`bad limit rule: ${describeZodError(parsed.error, 'rules')}`);
  return parsed.data;
}

/** The call being counted. */
export interface LimitTarget {
  op: CallOp;
  /** The platform's space id; calls without one are not counted by `space` rules. */
  space: string | null;
  /** Who is calling (the token); `app` rules count per app. */
  app: string;
}

/** One bucket's state after a call: what Discord's `X-RateLimit-*` headers report. */
export interface RateLimitStatus {
  rule: LimitRule;
  /** Stable bucket name `op:scope:key:windowS`, e.g. `update:space:C1:5s` (Discord's `X-RateLimit-Bucket`). */
  bucket: string;
  limit: number;
  /** Calls still allowed now. */
  remaining: number;
  /** Seconds until the oldest counted call leaves the window, freeing a slot (the window length when none is counted). */
  resetAfterS: number;
}

export type LimitVerdict =
  /** Admitted and counted; `tightest` is the bucket with the fewest calls left (null when no rule applies). */
  | { admitted: true; tightest: RateLimitStatus | null }
  /** Over a limit: answer 429; `retryAfterS` (exact, not rounded) is when every refusing bucket has room again. */
  | { admitted: false; retryAfterS: number; tightest: RateLimitStatus };

export interface RateLimiter {
  /** Counts the call against every matching rule when all have room; otherwise counts nothing and refuses. */
  take(target: LimitTarget): LimitVerdict;
  /** Replaces the rules for each given op+scope (validated; EmulatorInputError on a bad rule). Returns the rules in force. */
  override(rules: unknown): LimitRule[];
  /** The defaults with the overrides applied. */
  rules(): LimitRule[];
  /** Drops the overrides and forgets every counted call. */
  reset(): void;
}

const ruleKey = (rule: { op: string; scope: LimitScope }) => `${rule.op}:${rule.scope}`;

function scopeKey(scope: LimitScope, target: LimitTarget): string | null {
  if (scope === 'global') return 'global';
  if (scope === 'app') return target.app;
  return target.space;
}

export function createRateLimiter(defaults: readonly LimitRule[], now: () => number): RateLimiter {
  const base = parseLimitRules(defaults);
  let overrides = new Map<string, LimitRule[]>();
  // `op:scope:key` → admission times (ms), oldest first. Shared by the rules
  // of that op+scope, so replacing a rule keeps the calls already counted.
  let logs = new Map<string, number[]>();

  const rules = (): LimitRule[] => {
    const replaced = new Set(overrides.keys());
    return [...base.filter((rule) => !replaced.has(ruleKey(rule))), ...[...overrides.values()].flat()];
  };

  return {
    take(target) {
      const at = now();
      const counted: Array<{ log: number[]; status: RateLimitStatus }> = [];
      const longestWindowMs = new Map<string, number>();
      for (const rule of rules()) {
        if (rule.op !== '*' && rule.op !== target.op) continue;
        const key = scopeKey(rule.scope, target);
        if (key === null) continue;
        const logKey = `${rule.op}:${rule.scope}:${key}`;
        const log = logs.get(logKey) ?? [];
        logs.set(logKey, log);
        const windowMs = rule.windowS * 1000;
        longestWindowMs.set(logKey, Math.max(windowMs, longestWindowMs.get(logKey) ?? 0));
        const firstInWindow = log.findIndex((t) => t > at - windowMs);
        const inWindow = firstInWindow < 0 ? 0 : log.length - firstInWindow;
        counted.push({
          log,
          status: {
            rule,
            bucket: `${logKey}:${rule.windowS}s`,
            limit: rule.limit,
            remaining: Math.max(0, rule.limit - inWindow),
            resetAfterS: inWindow === 0 ? rule.windowS : (log[firstInWindow]! + windowMs - at) / 1000,
          },
        });
      }
      for (const [logKey, windowMs] of longestWindowMs) {
        const log = logs.get(logKey)!;
        const kept = log.findIndex((t) => t > at - windowMs);
        log.splice(0, kept < 0 ? log.length : kept);
      }

      let refusal: { retryAfterS: number; status: RateLimitStatus } | null = null;
      for (const { log, status } of counted) {
        if (status.remaining > 0) continue;
        const { rule } = status;
        // The call fits once enough of the oldest calls have left this rule's window.
        const retryAfterS = (log[log.length - rule.limit]! + rule.windowS * 1000 - at) / 1000;
        if (!refusal || retryAfterS > refusal.retryAfterS) refusal = { retryAfterS, status };
      }
      if (refusal) return { admitted: false, retryAfterS: refusal.retryAfterS, tightest: refusal.status };

      for (const logKey of longestWindowMs.keys()) logs.get(logKey)!.push(at);
      let tightest: RateLimitStatus | null = null;
      for (const { status } of counted) {
        // This call now counts (an empty window's reset is already the window length).
        const after = { ...status, remaining: status.remaining - 1 };
        if (!tightest || after.remaining < tightest.remaining) tightest = after;
      }
      return { admitted: true, tightest };
    },
    override(input) {
      const parsed = parseLimitRules(input);
      const next = new Map(overrides);
      for (const key of new Set(parsed.map(ruleKey))) {
        next.set(
          key,
          parsed.filter((rule) => ruleKey(rule) === key),
        );
      }
      overrides = next;
      return rules();
    },
    rules,
    reset() {
      overrides = new Map();
      logs = new Map();
    },
  };
}
