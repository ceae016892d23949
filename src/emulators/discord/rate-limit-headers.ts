/**
 * Discord's rate-limit answer (discord-api-docs, Topics → Rate Limits):
 * `X-RateLimit-Limit/Remaining/Reset/Reset-After/Bucket` on answers, and over
 * a limit a 429 with `Retry-After` (whole seconds), `X-RateLimit-Scope`
 * (`user`, or `global` with `X-RateLimit-Global: true` and no bucket headers)
 * and the body `{message, retry_after, global}`.
 */
import { createHash } from 'node:crypto';
import type { HttpAnswer, RateLimitStatus } from '../core/index.js';
import type { LimitRule } from '../types.js';

/** Seconds with at most millisecond precision, trailing zeros dropped (`5`, `64.57`). */
const seconds = (value: number) => String(Math.round(value * 1000) / 1000);

/**
 * A bucket id like Discord's: stable per rule, without the top-level resource
 * (the channel), which the client keys on separately as the major parameter.
 */
export function bucketHash(rule: LimitRule): string {
  return createHash('sha256').update(`${rule.op}:${rule.scope}:${rule.windowS}`).digest('hex').slice(0, 32);
}

export function rateLimitHeaders(status: RateLimitStatus, nowMs: number): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(status.limit),
    'X-RateLimit-Remaining': String(status.remaining),
    'X-RateLimit-Reset': seconds(nowMs / 1000 + status.resetAfterS),
    'X-RateLimit-Reset-After': seconds(status.resetAfterS),
    'X-RateLimit-Bucket': bucketHash(status.rule),
  };
}

/** Discord's global limit is the one not tied to a route: the emulator's `global` scope. */
export const isGlobalLimit = (rule: LimitRule) => rule.scope === 'global';

/** The 429. `refusing` is the bucket that refused (for an injected fault, the route's; see error-response.ts). */
export function rateLimitedAnswer(
  retryAfterS: number,
  nowMs: number,
  refusing: RateLimitStatus | undefined,
): HttpAnswer {
  const global = refusing !== undefined && isGlobalLimit(refusing.rule);
  const headers: Record<string, string> = { 'Retry-After': String(Math.ceil(retryAfterS)) };
  if (global) {
    headers['X-RateLimit-Global'] = 'true';
    headers['X-RateLimit-Scope'] = 'global';
  } else {
    if (refusing) {
      Object.assign(
        headers,
        rateLimitHeaders({ ...refusing, remaining: 0, resetAfterS: retryAfterS }, nowMs),
      );
    }
    headers['X-RateLimit-Scope'] = 'user';
  }
  return {
    status: 429,
    headers,
    body: {
      message: 'You are being rate limited.',
      retry_after: Math.round(retryAfterS * 1000) / 1000,
      global,
    },
  };
}
