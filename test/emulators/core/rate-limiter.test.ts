// spec: docs/emulators.md "at most `limit` calls per `windowS` seconds" per op and scope (sliding window).
import { describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { createRateLimiter, EmulatorInputError } from '../../../src/emulators/core/index.js';

const target = { op: 'update' as const, space: 'C1', app: 'bot' };

describe('createRateLimiter', () => {
  it('reports remaining and the time until a slot frees, Discord-header style', () => {
    const clock = new SimulatedClock();
    const limiter = createRateLimiter([{ op: 'update', scope: 'space', limit: 3, windowS: 5 }], () =>
      clock.now(),
    );
    expect(limiter.take(target)).toEqual({
      admitted: true,
      tightest: {
        rule: { op: 'update', scope: 'space', limit: 3, windowS: 5 },
        bucket: 'update:space:C1:5s',
        limit: 3,
        remaining: 2,
        resetAfterS: 5,
      },
    });
    clock.increment(2000);
    const second = limiter.take(target);
    expect(second.admitted && second.tightest).toMatchObject({ remaining: 1, resetAfterS: 3 });
    limiter.take(target);
    const refused = limiter.take(target);
    expect(refused).toMatchObject({ admitted: false, retryAfterS: 3, tightest: { remaining: 0 } });
  });

  it('never admits more than `limit` in any window, even across a fixed-window edge', () => {
    const clock = new SimulatedClock();
    const limiter = createRateLimiter([{ op: '*', scope: 'global', limit: 2, windowS: 1 }], () =>
      clock.now(),
    );
    clock.set(900);
    expect(limiter.take(target).admitted).toBe(true);
    expect(limiter.take(target).admitted).toBe(true);
    // A fixed 1 s window would reset at t=1000 and allow a burst of 2 more.
    clock.set(1000);
    expect(limiter.take(target)).toMatchObject({ admitted: false, retryAfterS: 0.9 });
    clock.set(1900);
    expect(limiter.take(target).admitted).toBe(true);
  });

  it('counts `space` per space, `app` per app and `global` across both; a refused call is not counted', () => {
    const clock = new SimulatedClock();
    const limiter = createRateLimiter(
      [
        { op: 'create', scope: 'space', limit: 1, windowS: 60 },
        { op: '*', scope: 'app', limit: 2, windowS: 60 },
      ],
      () => clock.now(),
    );
    const create = (space: string, app: string) => limiter.take({ op: 'create', space, app }).admitted;
    expect(create('C1', 'a')).toBe(true);
    expect(create('C1', 'a')).toBe(false);
    expect(create('C2', 'a')).toBe(true);
    expect(create('C3', 'a')).toBe(false);
    expect(create('C3', 'b')).toBe(true);
    // An op the space rule does not name is only held by the app rule.
    expect(limiter.take({ op: 'update', space: 'C1', app: 'b' }).admitted).toBe(true);
    expect(limiter.take({ op: 'update', space: 'C1', app: 'b' }).admitted).toBe(false);
  });

  it('waits for the slowest refusing bucket when several are full', () => {
    const clock = new SimulatedClock();
    const limiter = createRateLimiter(
      [
        { op: 'update', scope: 'space', limit: 1, windowS: 2 },
        { op: 'update', scope: 'app', limit: 1, windowS: 60 },
      ],
      () => clock.now(),
    );
    limiter.take(target);
    expect(limiter.take(target)).toMatchObject({
      admitted: false,
      retryAfterS: 60,
      tightest: { bucket: 'update:app:bot:60s' },
    });
  });

  it('several rules of one op+scope (a burst and a sustained rate) count each call once', () => {
    const clock = new SimulatedClock();
    const limiter = createRateLimiter(
      [
        { op: 'update', scope: 'space', limit: 1, windowS: 1 },
        { op: 'update', scope: 'space', limit: 3, windowS: 10 },
      ],
      () => clock.now(),
    );
    expect(limiter.take(target).admitted).toBe(true);
    clock.set(500);
    expect(limiter.take(target)).toMatchObject({ admitted: false, retryAfterS: 0.5 });
    clock.set(1000);
    expect(limiter.take(target).admitted).toBe(true);
    clock.set(2000);
    expect(limiter.take(target).admitted).toBe(true);
    clock.set(3000);
    expect(limiter.take(target)).toMatchObject({
      admitted: false,
      retryAfterS: 7,
      tightest: { bucket: 'update:space:C1:10s' },
    });
  });

  it('override replaces the rules of that op+scope only, keeps counted calls, and reset restores the defaults', () => {
    const clock = new SimulatedClock();
    const defaults = [
      { op: 'update' as const, scope: 'space' as const, limit: 5, windowS: 10 },
      { op: '*' as const, scope: 'global' as const, limit: 50, windowS: 1 },
    ];
    const limiter = createRateLimiter(defaults, () => clock.now());
    limiter.take(target);
    expect(limiter.override([{ op: 'update', scope: 'space', limit: 1, windowS: 10 }])).toEqual([
      { op: '*', scope: 'global', limit: 50, windowS: 1 },
      { op: 'update', scope: 'space', limit: 1, windowS: 10 },
    ]);
    expect(limiter.take(target).admitted).toBe(false);
    limiter.reset();
    expect(limiter.rules()).toEqual(defaults);
    expect(limiter.take(target).admitted).toBe(true);
  });

  it('rejects a bad rule with an error naming the field', () => {
    const limiter = createRateLimiter([], () => 0);
    expect(() => limiter.override([{ op: 'update', scope: 'space', limit: 0, windowS: 1 }])).toThrow(
      EmulatorInputError,
    );
    expect(() => limiter.override([{ op: 'edit', scope: 'space', limit: 1, windowS: 1 }])).toThrow(
      /^bad limit rule: rules\[0\]\.op: /,
    );
  });
});
