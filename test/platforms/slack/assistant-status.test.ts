// spec: issue 11 item 3 — assistant.threads.setStatus shows the current tool, is re-sent before Slack's
// two-minute expiry, cleared at the end, and a workspace without it (missing_scope, not_allowed,
// method_deprecated, feature_not_enabled) is remembered and not asked again; `statusDue` tells the runtime
// which calls would reach Slack (issue 11 item 3 · all of it goes through the budget).
import { afterEach, describe, expect, it } from 'vitest';
import {
  dueForRefresh,
  STATUS_EXPIRY_MS,
  STATUS_REFRESH_MS,
  statusDecision,
} from '../../../src/platforms/slack/assistant-status.js';
import { isSurfaceError } from '../../../src/surfaces/surface.js';
import { CHANNEL, rejectionOf, type SlackHarness, SPACE, startSlackHarness } from './harness.js';

describe('statusDecision (pure)', () => {
  it('sends a new status, skips the same one until the refresh is due, clears only what is shown', () => {
    const shown = { status: 'is running Bash', sentAt: 1000 };
    expect(statusDecision(undefined, 'is running Bash', 1000)).toBe('send');
    expect(statusDecision(shown, 'is running Read', 1001)).toBe('send');
    expect(statusDecision(shown, 'is running Bash', 1000 + STATUS_REFRESH_MS - 1)).toBe('skip');
    expect(statusDecision(shown, 'is running Bash', 1000 + STATUS_REFRESH_MS)).toBe('send');
    expect(statusDecision(shown, '', 2000)).toBe('send');
    expect(statusDecision(undefined, '', 2000)).toBe('skip');
  });

  it('refreshes well before Slack’s two-minute expiry', () => {
    expect(STATUS_REFRESH_MS).toBeLessThan(STATUS_EXPIRY_MS);
    expect(STATUS_EXPIRY_MS).toBe(120_000);
  });

  it('lists the threads due for a refresh', () => {
    const shown = new Map([
      ['a', { channel: 'C1', threadTs: '1.000001', status: 'x', sentAt: 0 }],
      ['b', { channel: 'C1', threadTs: '1.000002', status: 'y', sentAt: 50_000 }],
    ]);
    expect(dueForRefresh(shown, 90_000)).toEqual([{ channel: 'C1', threadTs: '1.000001', status: 'x' }]);
  });
});

let h: SlackHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const statusCalls = () => h!.calls().filter((call) => call.path === '/api/assistant.threads.setStatus');

describe('Slack surface: setStatus against the emulator', () => {
  it('sends a change, skips a repeat, re-sends before the expiry so the status never lapses, and clears at the end', async () => {
    h = await startSlackHarness();
    const { surface, clock } = h;
    const asked = await h.personPosts('fix it');
    const set = (status: string) => surface.setStatus({ space: SPACE, threadId: asked.threadId, status });

    await set('is running Bash');
    clock.increment(10_000);
    await set('is running Bash');
    expect(surface.statusRefreshDue()).toEqual([]);
    clock.increment(STATUS_REFRESH_MS - 10_000);
    expect(surface.statusRefreshDue()).toEqual([
      { space: SPACE, threadId: asked.threadId, status: 'is running Bash' },
    ]);
    await set('is running Bash');
    clock.increment(STATUS_REFRESH_MS);
    await set('is running Bash');
    await set('is running Read');
    await set('');
    await set('');

    expect(statusCalls().map((call) => [call.status, call.details?.status, call.details?.previous])).toEqual([
      [200, 'is running Bash', null],
      // Each refresh finds the last status still showing: it never lapsed.
      [200, 'is running Bash', 'is running Bash'],
      [200, 'is running Bash', 'is running Bash'],
      [200, 'is running Read', 'is running Bash'],
      [200, '', 'is running Read'],
    ]);
    expect(statusCalls().every((call) => call.space === CHANNEL && call.thread === asked.threadId)).toBe(
      true,
    );
  });

  it('statusDue says which setStatus calls would reach Slack (what the runtime books with the budget)', async () => {
    h = await startSlackHarness();
    const { surface, clock } = h;
    const asked = await h.personPosts('fix it');
    const req = (status: string) => ({ space: SPACE, threadId: asked.threadId, status });
    expect(surface.statusDue(req(''))).toBe(false);
    expect(surface.statusDue(req('is running Bash'))).toBe(true);
    await surface.setStatus(req('is running Bash'));
    expect(surface.statusDue(req('is running Bash'))).toBe(false);
    expect(surface.statusDue(req('is running Read'))).toBe(true);
    expect(surface.statusDue(req(''))).toBe(true);
    clock.increment(STATUS_REFRESH_MS);
    expect(surface.statusDue(req('is running Bash'))).toBe(true);
    expect(statusCalls()).toHaveLength(1);
  });

  it('statusDue is false once the workspace said it has no status', async () => {
    h = await startSlackHarness({ emulator: { assistantStatus: 'missing_scope' } });
    const { surface } = h;
    const asked = await h.personPosts('fix it');
    await rejectionOf(surface.setStatus({ space: SPACE, threadId: asked.threadId, status: 'is busy' }));
    expect(surface.statusDue({ space: SPACE, threadId: asked.threadId, status: 'is still busy' })).toBe(
      false,
    );
  });

  it.each(['missing_scope', 'not_allowed', 'method_deprecated', 'feature_not_enabled'] as const)(
    'remembers a workspace answering %s and does not ask again',
    async (code) => {
      h = await startSlackHarness({ emulator: { assistantStatus: code } });
      const { surface } = h;
      const asked = await h.personPosts('fix it');
      const error = await rejectionOf(
        surface.setStatus({ space: SPACE, threadId: asked.threadId, status: 'is busy' }),
      );
      expect(isSurfaceError(error) && [error.kind, error.details.code]).toEqual(['forbidden', code]);
      expect(surface.statusUnsupported).toBe(code);

      await surface.setStatus({ space: SPACE, threadId: asked.threadId, status: 'is still busy' });
      await surface.setStatus({ space: SPACE, threadId: asked.threadId, status: '' });
      expect(statusCalls()).toHaveLength(1);
      expect(surface.statusRefreshDue()).toEqual([]);
    },
  );

  it('a rate-limited status reaches the caller as rate-limited and is sent again on the next call', async () => {
    h = await startSlackHarness();
    const { surface } = h;
    const asked = await h.personPosts('fix it');
    await h.faults([{ path: 'assistant.threads.setStatus', status: 429, retryAfterS: 3, times: 1 }]);
    const error = await rejectionOf(
      surface.setStatus({ space: SPACE, threadId: asked.threadId, status: 'is busy' }),
    );
    expect(isSurfaceError(error) && [error.kind, error.retryAfterMs]).toEqual(['rate-limited', 3000]);
    expect(surface.statusUnsupported).toBeUndefined();
    await surface.setStatus({ space: SPACE, threadId: asked.threadId, status: 'is busy' });
    expect(statusCalls().map((call) => call.status)).toEqual([429, 200]);
  });
});
