/**
 * Slack's rate limits (https://docs.slack.dev/apis/web-api/rate-limits):
 * each Web API method has a tier, counted per method per workspace per app
 * (Tier 3: about 50 a minute); `chat.postMessage` is "special", about one a
 * second per channel. A 429 names the wait in `Retry-After` and holds only
 * that method (or that channel's posts).
 *
 * {@link createSlackRateLimiter} is Slack's implementation of the budget's
 * RateLimiter, keyed by method (`chat.update`, `assistant.threads.setStatus`,
 * `reactions.add`, `reactions.remove`: each its own bucket) or, for posts, by
 * method and channel (`chat.postMessage:C123`, about one a second each). The tiers' rates are also where the
 * descriptor's budget takes its allowances from.
 */
import { type RateLimitedCall, type RateLimiter, retryAfterMsOf } from '../../budget/rate-limiter.js';

/** Calls a minute per tier, as Slack documents them (the lower bound of each tier's "+"). */
export const SLACK_TIER_PER_MINUTE = Object.freeze({ 1: 1, 2: 20, 3: 50, 4: 100 } as const);

export type SlackTier = keyof typeof SLACK_TIER_PER_MINUTE;

/** The methods turnlog calls, and their tiers ("special" methods have rules of their own). */
export const SLACK_METHOD_TIERS: Readonly<Record<string, SlackTier | 'special'>> = Object.freeze({
  'chat.postMessage': 'special',
  'chat.update': 3,
  'chat.delete': 3,
  // Each its own Tier 3 method: adding 👀 and taking it off never share a bucket (issue 26 item 4).
  'reactions.add': 3,
  'reactions.remove': 3,
  'assistant.threads.setStatus': 3,
  'conversations.info': 3,
  // Read after an uncertain post to find the message it may have made (reconcile.ts).
  'conversations.history': 3,
  'conversations.replies': 3,
  'auth.test': 4,
});

/** The Web API method a write calls. */
const METHOD_OF: Readonly<Record<RateLimitedCall['write'], string>> = {
  post: 'chat.postMessage',
  edit: 'chat.update',
  status: 'assistant.threads.setStatus',
  reaction: 'reactions.add',
  // Slack has no typing indicator; its "is thinking" line is the assistant status.
  typing: 'assistant.threads.setStatus',
};

/** The key a method's calls are limited under: the method, and the channel for posts. */
export function slackRateKey(method: string, channel: string): string {
  return method === 'chat.postMessage' ? `${method}:${channel}` : method;
}

export interface SlackRateLimiter extends RateLimiter {
  /** A method's tier; undefined for a method turnlog does not call. */
  tierOf(method: string): SlackTier | 'special' | undefined;
}

export function createSlackRateLimiter(opts: { now: () => number }): SlackRateLimiter {
  /** Key → when its last 429's Retry-After is over (epoch ms); forgotten once past. */
  const heldUntil = new Map<string, number>();
  return {
    platform: 'slack',
    keyOf: (call) => slackRateKey(call.method ?? METHOD_OF[call.write], call.space.replace(/^slack:/, '')),
    waitMsFor(key) {
      const until = heldUntil.get(key);
      if (until === undefined) return 0;
      const wait = until - opts.now();
      if (wait > 0) return Math.ceil(wait);
      heldUntil.delete(key);
      return 0;
    },
    onRequest() {},
    onResponse(key, { status, headers }) {
      if (status !== 429) return undefined;
      // Slack always sends Retry-After with a 429; a second when it is missing, as the client assumes.
      const waitMs = retryAfterMsOf(headers) ?? 1000;
      heldUntil.set(key, Math.max(heldUntil.get(key) ?? 0, opts.now() + waitMs));
      return waitMs;
    },
    tierOf: (method) => SLACK_METHOD_TIERS[method],
  };
}
