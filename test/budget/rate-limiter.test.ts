// Issue 21.3: one rate-limit interface under the budget (src/budget/rate-limiter.ts), like discord.js's
// small IHandler, with the per-platform trackers as its implementations: Discord's route buckets and
// global limit, Google Chat's per-space backoff, Slack's per-method tiers. The budget asks the interface
// (`waitMsForCall`), never a platform's specifics; a refused call is a RateLimitedError.
import { describe, expect, it } from 'vitest';
import { RateLimitedError, type RateLimiter, waitMsForCall } from '../../src/budget/rate-limiter.js';
import { createRateLimitTracker } from '../../src/platforms/discord/rate-limits.js';
import { BACKOFF_INITIAL_MS, createGchatRateLimiter } from '../../src/platforms/gchat/backoff.js';
import { slackPlatform } from '../../src/platforms/slack/descriptor.js';
import { createSlackRateLimiter, SLACK_TIER_PER_MINUTE } from '../../src/platforms/slack/rate-limits.js';
import { SurfaceError } from '../../src/surfaces/surface.js';

function clock() {
  let now = 1_000_000;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

const C1 = '111111111111111111';

describe('RateLimiter implementations', () => {
  const cases: { name: string; make: (now: () => number) => RateLimiter; space: string; other: string }[] = [
    {
      name: 'discord',
      make: (now) => createRateLimitTracker({ now }),
      space: `discord:${C1}`,
      other: 'discord:222222222222222222',
    },
    {
      name: 'gchat',
      make: (now) => createGchatRateLimiter({ now }),
      space: 'gchat:spaces/A',
      other: 'gchat:spaces/B',
    },
    { name: 'slack', make: (now) => createSlackRateLimiter({ now }), space: 'slack:C1', other: 'slack:C2' },
  ];

  for (const { name, make, space, other } of cases) {
    it(`${name}: a 429 with Retry-After holds that call's key back for as long, then lets it go`, () => {
      const c = clock();
      const limiter = make(c.now);
      expect(limiter.platform).toBe(name);
      const edit = { write: 'edit' as const, space, messageId: '333333333333333333' };
      expect(waitMsForCall(limiter, edit)).toBe(0);
      const key = limiter.keyOf(edit);
      limiter.onRequest(key);
      expect(limiter.onResponse(key, { status: 429, headers: { 'Retry-After': '3' } })).toBe(3000);
      expect(waitMsForCall(limiter, edit)).toBe(3000);
      c.advance(1000);
      expect(waitMsForCall(limiter, edit)).toBe(2000);
      c.advance(2000);
      expect(waitMsForCall(limiter, edit)).toBe(0);
      // An answer that is not a 429 asks for no wait.
      expect(limiter.onResponse(key, { status: 200, headers: {} })).toBeUndefined();
      // Another space's posts are keyed apart (Slack counts posts per channel, edits per app).
      const post = { write: 'post' as const, space };
      expect(limiter.keyOf({ ...post, space: other })).not.toBe(limiter.keyOf(post));
    });
  }

  it('gchat: a 429 without Retry-After backs off 1 s, 2 s, 4 s in its space; a success starts over', () => {
    const c = clock();
    const limiter = createGchatRateLimiter({ now: c.now });
    const key = limiter.keyOf({ write: 'edit', space: 'gchat:spaces/A' });
    expect(limiter.onResponse(key, { status: 429, headers: {} })).toBe(BACKOFF_INITIAL_MS);
    expect(limiter.onResponse(key, { status: 429, headers: {} })).toBe(2 * BACKOFF_INITIAL_MS);
    expect(limiter.onResponse(key, { status: 429, headers: {} })).toBe(4 * BACKOFF_INITIAL_MS);
    expect(limiter.waitMsFor(key)).toBe(4 * BACKOFF_INITIAL_MS);
    limiter.onResponse(key, { status: 200, headers: {} });
    expect(limiter.onResponse(key, { status: 429, headers: {} })).toBe(BACKOFF_INITIAL_MS);
  });

  it('slack: methods are limited apart (a 429 on chat.update holds no chat.postMessage), by their tier', () => {
    const c = clock();
    const limiter = createSlackRateLimiter({ now: c.now });
    const edit = limiter.keyOf({ write: 'edit', space: 'slack:C1', messageId: '1.2' });
    const post = limiter.keyOf({ write: 'post', space: 'slack:C1' });
    expect(edit).toBe('chat.update');
    expect(post).toBe('chat.postMessage:C1');
    limiter.onResponse(edit, { status: 429, headers: { 'retry-after': '30' } });
    expect(limiter.waitMsFor(edit)).toBe(30_000);
    expect(limiter.waitMsFor(post)).toBe(0);
    expect(limiter.tierOf('chat.update')).toBe(3);
    // The budget's separate writes take their allowance from the method's tier.
    expect(slackPlatform.budget.separateWrites?.status?.ratePerMinute).toBe(SLACK_TIER_PER_MINUTE[3]);
    expect(slackPlatform.budget.ratePerMinute).toBe(SLACK_TIER_PER_MINUTE[3]);
  });

  it('slack: chat.postMessage per channel, chat.update, setStatus, reactions.add and reactions.remove are five buckets (issue 26 item 4)', () => {
    const c = clock();
    const limiter = createSlackRateLimiter({ now: c.now });
    const keys = {
      post: limiter.keyOf({ write: 'post', space: 'slack:C1' }),
      otherChannel: limiter.keyOf({ write: 'post', space: 'slack:C2' }),
      edit: limiter.keyOf({ write: 'edit', space: 'slack:C1', messageId: '1.2' }),
      status: limiter.keyOf({ write: 'status', space: 'slack:C1', threadId: '1.1' }),
      add: limiter.keyOf({ write: 'reaction', space: 'slack:C1', messageId: '1.1' }),
      remove: limiter.keyOf({
        write: 'reaction',
        method: 'reactions.remove',
        space: 'slack:C1',
        messageId: '1.1',
      }),
    };
    expect(keys).toEqual({
      post: 'chat.postMessage:C1',
      otherChannel: 'chat.postMessage:C2',
      edit: 'chat.update',
      status: 'assistant.threads.setStatus',
      add: 'reactions.add',
      remove: 'reactions.remove',
    });
    for (const method of [
      'chat.update',
      'assistant.threads.setStatus',
      'reactions.add',
      'reactions.remove',
    ]) {
      expect(limiter.tierOf(method)).toBe(3);
    }
    expect(limiter.tierOf('chat.postMessage')).toBe('special');
    // A 429 holds its own key only.
    for (const [held, key] of Object.entries(keys)) {
      const fresh = createSlackRateLimiter({ now: c.now });
      fresh.onResponse(key, { status: 429, headers: { 'retry-after': '5' } });
      for (const [other, otherKey] of Object.entries(keys)) {
        expect([held, other, fresh.waitMsFor(otherKey)]).toEqual([held, other, other === held ? 5000 : 0]);
      }
    }
    // The budget takes no chat.update token for a post, a status or a reaction: each is limited apart.
    expect(Object.keys(slackPlatform.budget.separateWrites ?? {}).sort()).toEqual([
      'post',
      'reaction',
      'status',
    ]);
  });

  it('discord: the global limit holds every key, a route bucket only its own', () => {
    const c = clock();
    const limiter = createRateLimitTracker({ now: c.now });
    const post = limiter.keyOf({ write: 'post', space: `discord:${C1}` });
    const typing = limiter.keyOf({ write: 'typing', space: `discord:${C1}` });
    expect(post).toBe(`POST /channels/${C1}/messages`);
    expect(typing).toBe(`POST /channels/${C1}/typing`);
    limiter.onResponse(post, { status: 429, headers: { 'Retry-After': '2', 'X-RateLimit-Global': 'true' } });
    expect(limiter.waitMsFor(typing)).toBe(2000);
  });
});

describe('RateLimitedError', () => {
  it('is a rate-limited SurfaceError carrying when to try again', () => {
    const error = new RateLimitedError('chat.update: wait', 1500, { status: 429, code: 'ratelimited' });
    expect(error).toBeInstanceOf(SurfaceError);
    expect(error).toMatchObject({ kind: 'rate-limited', retryAfterMs: 1500, details: { status: 429 } });
  });
});
