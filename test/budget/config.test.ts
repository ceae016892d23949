// spec: run-visibility 8 (the process-wide edit budget) — its numbers; docs/platforms.md limits.
import { describe, expect, it } from 'vitest';
import { budgetDefaults, resolveBudgetConfig } from '../../src/budget/config.js';
import { builtinPlatforms } from '../../src/platforms/all.js';

describe('budgetDefaults (docs/platforms.md)', () => {
  it('Slack: chat.update 50 a minute per app, one edit per channel per second', () => {
    const config = resolveBudgetConfig(budgetDefaults('slack', builtinPlatforms));
    // A tenth of each limit is kept as margin (clock skew, writes the budget does not see).
    expect(config.allowance).toBe(45);
    expect(config.windowMs).toBe(60_000);
    expect(config.channelSpacingMs).toBe(1112);
  });

  it('Google Chat: 3000 writes a minute per project; the 1 s spacing keeps a space at ≤ 60 a minute', () => {
    const config = resolveBudgetConfig(budgetDefaults('gchat', builtinPlatforms));
    expect(config.allowance).toBe(2700);
    expect(60_000 / config.channelSpacingMs).toBeLessThanOrEqual(54);
  });

  it('Discord: 50 requests per second global, counted over a one-second window', () => {
    const config = resolveBudgetConfig(budgetDefaults('discord', builtinPlatforms));
    expect(config.ratePerMinute).toBe(3000);
    expect(config.windowMs).toBe(1000);
    expect(config.allowance).toBe(45);
  });

  it('keeps a configurable margin under the platform limits (default a tenth)', () => {
    expect(
      resolveBudgetConfig({ ...budgetDefaults('gchat', builtinPlatforms), marginFraction: 0 }).allowance,
    ).toBe(3000);
    expect(
      resolveBudgetConfig({ ...budgetDefaults('gchat', builtinPlatforms), marginFraction: 0.2 })
        .channelSpacingMs,
    ).toBe(1250);
    expect(() =>
      resolveBudgetConfig({ ...budgetDefaults('gchat', builtinPlatforms), marginFraction: 1 }),
    ).toThrow(/marginFraction must be below 1/);
  });

  it('refuses an unknown platform by name', () => {
    expect(() => budgetDefaults('teams' as never, builtinPlatforms)).toThrow(/unknown platform "teams"/);
  });
});

describe('resolveBudgetConfig', () => {
  it('keeps a fifth of the rate in reserve by default (spec 8: "a fifth of the rate")', () => {
    expect(resolveBudgetConfig({ platform: 'slack', ratePerMinute: 50 }).reserve).toBe(10);
  });

  it('a full burst plus one window of refill is exactly the allowance, so no window can exceed it', () => {
    for (const platform of ['gchat', 'discord'] as const) {
      const config = resolveBudgetConfig(budgetDefaults(platform, builtinPlatforms));
      expect(config.capacity + config.refillPerMs * config.windowMs).toBeCloseTo(config.allowance, 9);
      expect(config.capacity).toBeGreaterThanOrEqual(config.reserve + 1);
    }
  });

  it('Slack counts each window exactly (windowLog): it refills at the whole allowance, the log caps each window', () => {
    const config = resolveBudgetConfig(budgetDefaults('slack', builtinPlatforms));
    expect(config.windowLog).toBe(true);
    expect(config.refillPerMs * config.windowMs).toBeCloseTo(config.allowance, 9);
    expect(config.windowAllowance).toBe(45);
    expect(config.capacity).toBeGreaterThanOrEqual(config.reserve + 1);
  });

  it('leaves a fifth of the refill to terminal frames: progress frames share the rest', () => {
    const config = resolveBudgetConfig({ platform: 'slack', ratePerMinute: 50, capacity: 20 });
    expect(config.refillPerMs * 60_000).toBeCloseTo(30, 9);
    expect(config.progressRatePerMs * 60_000).toBeCloseTo(24, 9);
  });

  it.each([
    [{ ratePerMinute: 0 }, /ratePerMinute must be a positive number, got 0/],
    [{ ratePerMinute: Number.NaN }, /ratePerMinute must be a positive number/],
    [{ windowMs: -5 }, /windowMs must be a positive number, got -5/],
    [{ reserveFraction: 1 }, /reserveFraction must be below 1, got 1/],
    [{ reserveFraction: -0.1 }, /reserveFraction must be a number ≥ 0/],
    [{ liveWindowMs: 0 }, /liveWindowMs must be a positive number/],
    [{ channelSpacingMs: -1 }, /channelSpacingMs must be a number ≥ 0/],
    [{ capacity: 10 }, /capacity 10 leaves no progress token above the reserve of 10/],
    [{ capacity: 50 }, /capacity 50 must be below the window's allowance of 50/],
  ])('names what is wrong in %j', (override, message) => {
    expect(() => resolveBudgetConfig({ platform: 'slack', ratePerMinute: 50, ...override })).toThrow(message);
  });

  it('names a missing platform', () => {
    expect(() => resolveBudgetConfig({ platform: '', ratePerMinute: 50 })).toThrow(
      /platform must be a non-empty string/,
    );
  });
});
