// spec: issue 12 item 7 — Discord's error cases mapped to the port's taxonomy (and to explicit codes where
// the turn must act: 30046 rolls the log over, a 429's scope decides whether it is an invalid request).
import { DiscordAPIError, HTTPError, RateLimitError } from '@discordjs/rest';
import { describe, expect, it } from 'vitest';
import {
  DiscordEditWindowError,
  DiscordRateLimitedError,
  toSurfaceError,
} from '../../../src/platforms/discord/errors.js';

const apiError = (status: number, code: number, message: string) =>
  new DiscordAPIError(
    { code, message },
    code,
    status,
    'PATCH',
    'https://discord.com/api/v10/channels/1/messages/2',
    {},
  );

const rateLimit = (over: Partial<ConstructorParameters<typeof RateLimitError>[0]> = {}) =>
  new RateLimitError({
    timeToReset: 0,
    limit: 5,
    method: 'PATCH',
    hash: 'h',
    url: 'u',
    route: '/channels/:id/messages/:id',
    majorParameter: '1',
    global: false,
    retryAfter: 0,
    sublimitTimeout: 0,
    scope: 'user',
    ...over,
  });

describe('toSurfaceError', () => {
  it.each([
    [404, 10008, 'Unknown Message', 'not-found'],
    [404, 10003, 'Unknown Channel', 'not-found'],
    [403, 50001, 'Missing Access', 'forbidden'],
    [403, 50013, 'Missing Permissions', 'forbidden'],
    [401, 0, '401: Unauthorized', 'forbidden'],
    [400, 50035, 'Invalid Form Body', 'invalid'],
    [400, 50083, 'Thread is archived', 'invalid'],
    [502, 0, 'Bad Gateway', 'transient'],
  ] as const)('HTTP %i code %i → %s', (status, code, message, kind) => {
    const error = toSurfaceError(apiError(status, code, message), 'edit message in discord:1');
    expect(error).toMatchObject({ kind, details: { status, code } });
    expect(error.message).toContain(`edit message in discord:1: HTTP ${status}`);
  });

  it('30046 is a DiscordEditWindowError: not-found with its own code, so the turn rolls over', () => {
    const error = toSurfaceError(
      apiError(400, 30046, 'Maximum number of edits to messages older than 1 hour reached. Try again later'),
      'edit',
    );
    expect(error).toBeInstanceOf(DiscordEditWindowError);
    expect(error).toMatchObject({ kind: 'not-found', details: { code: 'edit-window-closed' } });
  });

  it("a 429 is rate-limited with Retry-After's wait and its scope; the client's own refusal waits until the reset", () => {
    const remote = toSurfaceError(rateLimit({ retryAfter: 2050, scope: 'shared' }), 'post');
    expect(remote).toBeInstanceOf(DiscordRateLimitedError);
    expect(remote).toMatchObject({
      kind: 'rate-limited',
      retryAfterMs: 2050,
      scope: 'shared',
      details: { code: 'shared' },
    });
    expect(toSurfaceError(rateLimit({ global: true, retryAfter: 1000 }), 'post')).toMatchObject({
      scope: 'global',
      global: true,
    });
    expect(toSurfaceError(rateLimit({ timeToReset: 3999.2 }), 'post').retryAfterMs).toBe(4000);
  });

  it('5xx without a body, a timeout or a refused connection are transient; a forgotten token is forbidden', () => {
    expect(toSurfaceError(new HTTPError(503, 'Service Unavailable', 'POST', 'u', {}), 'post')).toMatchObject({
      kind: 'transient',
      details: { status: 503 },
    });
    expect(toSurfaceError(new DOMException('This operation was aborted', 'AbortError'), 'post').kind).toBe(
      'transient',
    );
    expect(toSurfaceError(new TypeError('fetch failed'), 'post').kind).toBe('transient');
    expect(
      toSurfaceError(new Error('Expected token to be set for this request, but none was present'), 'post'),
    ).toMatchObject({
      kind: 'forbidden',
    });
  });
});
