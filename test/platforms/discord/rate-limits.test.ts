// spec: issue 12 item 6 — rate limits from the headers, not hard-coded: per bucket from X-RateLimit-Bucket,
// -Remaining, -Reset-After, plus the global limit, Retry-After and X-RateLimit-Scope; an invalid-request
// counter (401/403/429 in 10 minutes, shared-scope 429s excluded) that stops writing long before 10,000.
import { describe, expect, it } from 'vitest';
import {
  createInvalidRequestGuard,
  createRateLimitTracker,
  routeParts,
} from '../../../src/platforms/discord/rate-limits.js';

function fakeClock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

const C1 = '1100000000000000001';
const C2 = '1100000000000000002';
const M1 = '1300000000000000001';
const M2 = '1300000000000000002';

const bucketHeaders = (bucket: string, limit: number, remaining: number, resetAfterS: number) => ({
  'X-RateLimit-Bucket': bucket,
  'X-RateLimit-Limit': String(limit),
  'X-RateLimit-Remaining': String(remaining),
  'X-RateLimit-Reset-After': String(resetAfterS),
});

describe('routeParts', () => {
  it('keys a route by its template and its top-level resource, as Discord counts buckets', () => {
    expect(routeParts(`PATCH /channels/${C1}/messages/${M1}`)).toEqual({
      template: 'PATCH /channels/:id/messages/:id',
      major: C1,
    });
    expect(routeParts(`put /channels/${C1}/messages/${M1}/reactions/%F0%9F%91%8D/@me`).template).toBe(
      'PUT /channels/:id/messages/:id/reactions/:reaction',
    );
    expect(routeParts('GET /users/@me')).toEqual({ template: 'GET /users/@me', major: 'global' });
  });
});

describe('createRateLimitTracker', () => {
  it('knows nothing before the first answer: no wait', () => {
    const clock = fakeClock();
    const tracker = createRateLimitTracker({ now: clock.now });
    expect(tracker.waitMsFor(`POST /channels/${C1}/messages`)).toBe(0);
  });

  it('waits for the bucket to reset once Remaining reaches 0, and only for that channel', () => {
    const clock = fakeClock();
    const tracker = createRateLimitTracker({ now: clock.now });
    const route = `POST /channels/${C1}/messages`;
    tracker.onRequest(route);
    tracker.onResponse(route, { status: 200, headers: bucketHeaders('b-create', 5, 1, 4.25) });
    expect(tracker.waitMsFor(route)).toBe(0);
    tracker.onRequest(route);
    // The reservation spent the last call before the answer came back.
    expect(tracker.waitMsFor(route)).toBe(4250);
    tracker.onResponse(route, { status: 200, headers: bucketHeaders('b-create', 5, 0, 4.0) });
    expect(tracker.waitMsFor(route)).toBe(4000);
    // Another channel is another bucket instance.
    expect(tracker.waitMsFor(`POST /channels/${C2}/messages`)).toBe(0);
    clock.advance(3999);
    expect(tracker.waitMsFor(route)).toBe(1);
    clock.advance(1);
    expect(tracker.waitMsFor(route)).toBe(0);
  });

  it('routes that share a bucket hash share its state (edits of two messages in one channel)', () => {
    const clock = fakeClock();
    const tracker = createRateLimitTracker({ now: clock.now });
    tracker.onResponse(`PATCH /channels/${C1}/messages/${M1}`, {
      status: 200,
      headers: bucketHeaders('b-edit', 5, 0, 2),
    });
    expect(tracker.waitMsFor(`PATCH /channels/${C1}/messages/${M2}`)).toBe(2000);
    expect(tracker.bucketOf(`PATCH /channels/${C1}/messages/${M2}`)).toMatchObject({
      hash: 'b-edit',
      limit: 5,
      remaining: 0,
    });
  });

  it('a 429 blocks its bucket for Retry-After; a global 429 blocks every route', () => {
    const clock = fakeClock();
    const tracker = createRateLimitTracker({ now: clock.now });
    const edit = `PATCH /channels/${C1}/messages/${M1}`;
    tracker.onResponse(edit, { status: 429, headers: { 'Retry-After': '3', 'X-RateLimit-Scope': 'user' } });
    expect(tracker.waitMsFor(edit)).toBe(3000);
    expect(tracker.waitMsFor(`POST /channels/${C1}/messages`)).toBe(0);

    tracker.onResponse(`POST /channels/${C2}/messages`, {
      status: 429,
      headers: {
        'Retry-After': '2',
        'X-RateLimit-Global': 'true',
        'X-RateLimit-Scope': 'global',
      },
    });
    expect(tracker.waitMsFor(`POST /channels/${C1}/messages`)).toBe(2000);
    expect(tracker.waitMsFor('GET /users/@me')).toBe(2000);
    clock.advance(2000);
    expect(tracker.waitMsFor('GET /users/@me')).toBe(0);
    expect(tracker.waitMsFor(edit)).toBe(1000);
  });

  it('keeps to the global requests per second on its own count of calls sent', () => {
    const clock = fakeClock();
    const tracker = createRateLimitTracker({ now: clock.now, globalPerSecond: 3, globalMarginMs: 0 });
    const route = (i: number) => `POST /channels/11000000000000000${10 + i}/messages`;
    for (let i = 0; i < 3; i += 1) {
      expect(tracker.waitMsFor(route(i))).toBe(0);
      tracker.onRequest(route(i));
      tracker.onResponse(route(i), { status: 200, headers: {} });
      clock.advance(100);
    }
    // Three sent at t, t+100, t+200: the fourth waits until the first leaves the second.
    expect(tracker.waitMsFor(route(3))).toBe(700);
    clock.advance(700);
    expect(tracker.waitMsFor(route(3))).toBe(0);
  });

  it('counts a request from its answer (after Discord counted it) plus a margin, so the window never ends early', () => {
    const clock = fakeClock();
    const tracker = createRateLimitTracker({ now: clock.now, globalPerSecond: 2 });
    const route = `POST /channels/${C1}/messages`;
    tracker.onRequest(route);
    tracker.onRequest(route);
    clock.advance(300);
    // The first answer arrives 300 ms after it was sent: its second starts now; the other is still out.
    tracker.onResponse(route, { status: 200, headers: {} });
    expect(tracker.waitMsFor(route)).toBe(1000 + 50);
    clock.advance(750);
    tracker.onResponse(route, { status: 200, headers: {} });
    // The first, counted from its answer, leaves the window 300 ms from now.
    expect(tracker.waitMsFor(route)).toBe(300);
    clock.advance(300);
    expect(tracker.waitMsFor(route)).toBe(0);
  });

  it('counts a request with no answer yet for as long as it waits (the client queues requests of a route), until its timeout', () => {
    const clock = fakeClock();
    const tracker = createRateLimitTracker({ now: clock.now, globalPerSecond: 2, unansweredForMs: 15_000 });
    const route = `POST /channels/${C1}/messages/${M1}/threads`;
    tracker.onRequest(route);
    tracker.onRequest(route);
    // Held by the client for 2 s: neither has reached Discord yet, so both may still land in one second.
    clock.advance(2000);
    expect(tracker.waitMsFor(route)).toBe(1050);
    // No answer within the client's timeout: none will come; their slots are free.
    clock.advance(13_001);
    expect(tracker.waitMsFor(route)).toBe(0);
  });

  it('a full bucket after its reset is usable again without a new answer', () => {
    const clock = fakeClock();
    const tracker = createRateLimitTracker({ now: clock.now });
    const route = `POST /channels/${C1}/messages`;
    tracker.onResponse(route, { status: 200, headers: bucketHeaders('b', 1, 0, 1) });
    expect(tracker.waitMsFor(route)).toBe(1000);
    clock.advance(1000);
    tracker.onRequest(route);
    expect(tracker.bucketOf(route)?.remaining).toBe(0);
  });

  it('refuses a non-positive global limit', () => {
    expect(() => createRateLimitTracker({ now: Date.now, globalPerSecond: 0 })).toThrow(/globalPerSecond/);
  });
});

describe('createInvalidRequestGuard', () => {
  it('counts 401, 403 and 429 (not shared-scope 429s, not other statuses) and stops a space at its limit, saying why', () => {
    const clock = fakeClock();
    const guard = createInvalidRequestGuard({ now: clock.now, spaceLimit: 3, globalLimit: 10 });
    const space = `discord:${C1}`;
    guard.record(space, 429, 'shared');
    guard.record(space, 404);
    guard.record(space, 500);
    expect(guard.count(space)).toBe(0);
    guard.record(space, 401);
    clock.advance(1000);
    guard.record(space, 403);
    guard.record(space, 429, 'user');
    expect(guard.count(space)).toBe(3);
    const verdict = guard.check(space);
    expect(verdict).toMatchObject({ ok: false, retryAfterMs: 600_000 - 1000 });
    expect(verdict.ok === false && verdict.reason).toMatch(
      /stopped writing to discord:1100000000000000001: 3 invalid requests \(401\/403\/429\) in the last 10 min \(limit 3; Discord bans the IP at 10000\)/,
    );
    // Other spaces are still written to.
    expect(guard.check(`discord:${C2}`)).toEqual({ ok: true });
    // The sliding window lets the space go once the oldest leaves it.
    clock.advance(599_000);
    expect(guard.check(space)).toEqual({ ok: true });
    expect(guard.count(space)).toBe(2);
  });

  it('stops every space once the total reaches the global limit', () => {
    const clock = fakeClock();
    const guard = createInvalidRequestGuard({ now: clock.now, spaceLimit: 100, globalLimit: 4 });
    for (let i = 0; i < 4; i += 1) guard.record(`discord:11000000000000000${10 + i}`, 403);
    const verdict = guard.check(`discord:${C1}`);
    expect(verdict.ok).toBe(false);
    expect(verdict.ok === false && verdict.reason).toMatch(/across all spaces \(limit 4;/);
    expect(guard.count()).toBe(4);
  });

  it('defaults to 1,000 per space, far below the ban, and refuses a global limit at the ban', () => {
    const clock = fakeClock();
    const guard = createInvalidRequestGuard({ now: clock.now });
    for (let i = 0; i < 999; i += 1) guard.record('discord:1', 429, 'user');
    expect(guard.check('discord:1')).toEqual({ ok: true });
    guard.record('discord:1', 429, 'global');
    expect(guard.check('discord:1').ok).toBe(false);
    expect(() => createInvalidRequestGuard({ now: clock.now, globalLimit: 10_000 })).toThrow(
      /below Discord's ban/,
    );
    expect(() => createInvalidRequestGuard({ now: clock.now, spaceLimit: 0 })).toThrow(/spaceLimit/);
  });
});

describe('createRateLimitTracker: memory', () => {
  it('forgets buckets that have reset once it tracks more than 10,000', () => {
    const clock = fakeClock();
    const tracker = createRateLimitTracker({ now: clock.now });
    const route = (i: number) => `POST /channels/${String(1_100_000_000_000_000_000n + BigInt(i))}/messages`;
    for (let i = 0; i <= 10_000; i += 1)
      tracker.onResponse(route(i), { status: 200, headers: bucketHeaders('b', 5, 4, 1) });
    expect(tracker.bucketOf(route(0))).toBeDefined();
    clock.advance(1000);
    tracker.onResponse(route(10_001), { status: 200, headers: bucketHeaders('b', 5, 4, 1) });
    expect(tracker.bucketOf(route(0))).toBeUndefined();
    expect(tracker.bucketOf(route(10_001))).toMatchObject({ remaining: 4 });
  });
});
