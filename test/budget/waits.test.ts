// Issue 21.3 (bucket.ts split): the cool-off after a 429 is read in one function, so every rule that
// waits on it (progress, terminal bookings, queued and separate writes) waits the same length.
import { describe, expect, it } from 'vitest';
import { bookTerminal, coolOff, createBudgetState, requestProgress } from '../../src/budget/bucket.js';
import { resolveBudgetConfig } from '../../src/budget/config.js';
import { coolOffEndsAt, coolOffWaitMs } from '../../src/budget/waits.js';

const config = resolveBudgetConfig({ platform: 'slack', ratePerMinute: 60, channelSpacingMs: 0 });

describe('coolOffWaitMs', () => {
  it('is 0 before any 429, the time left while one runs, and 0 once it is over', () => {
    const state = createBudgetState(config);
    expect(coolOffWaitMs(state, 0)).toBe(0);
    coolOff(state, config, { retryAfterMs: 5000, now: 1000 });
    expect(coolOffWaitMs(state, 1000)).toBe(5000);
    expect(coolOffWaitMs(state, 4000)).toBe(2000);
    expect(coolOffWaitMs(state, 6000)).toBe(0);
    expect(coolOffWaitMs(state, 9000)).toBe(0);
    expect(coolOffEndsAt(state, 4000)).toBe(6000);
    expect(coolOffEndsAt(state, 9000)).toBe(9000);
  });

  it('is the wait a progress frame is refused for and the time a terminal frame is funded at', () => {
    const state = createBudgetState(config);
    coolOff(state, config, { retryAfterMs: 3000, now: 0 });
    const { decision } = requestProgress(state, config, { cardId: 'a', channel: 'x', now: 1000 });
    expect(decision).toEqual({ granted: false, retryInMs: coolOffWaitMs(state, 1000), reason: 'cool-off' });
    const { booking } = bookTerminal(state, config, { cardId: 'b', channel: 'y', now: 1000 });
    expect(booking.fundedAt).toBe(coolOffEndsAt(state, 1000));
  });
});
