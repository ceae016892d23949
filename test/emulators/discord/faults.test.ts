// spec: docs/emulators.md "POST /_emulator/faults … injects failures (status 404/429/500/403…)" — surfacing
// through the official client as its normal error types (DiscordAPIError, HTTPError, RateLimitError)
// with Discord's codes.
import { DiscordAPIError, HTTPError, RateLimitError } from '@discordjs/rest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Harness, recordedCalls, startHarness } from './harness.js';

const CHANNEL = '1700000000000000001';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await h.close();
});

const inject = (...rules: object[]) => h.raw('POST', '/_emulator/faults', { rules });

async function rejectionOf(call: Promise<unknown>): Promise<unknown> {
  return call.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (e: unknown) => e,
  );
}

describe('discord emulator: injected faults through @discordjs/core', () => {
  it('a 404 on an edit is 10008 Unknown Message (a DiscordAPIError), once; the next edit succeeds', async () => {
    const { api } = h.client();
    const posted = await api.channels.createMessage(CHANNEL, { content: 'log' });
    await inject({ op: 'update', status: 404, times: 1 });
    const error = await rejectionOf(api.channels.editMessage(CHANNEL, posted.id, { content: 'x' }));
    expect(error).toBeInstanceOf(DiscordAPIError);
    expect(error).toMatchObject({ status: 404, code: 10008, message: 'Unknown Message' });
    await expect(api.channels.editMessage(CHANNEL, posted.id, { content: 'y' })).resolves.toMatchObject({
      content: 'y',
    });
    const [, faulted, ok] = await recordedCalls(h);
    expect(faulted).toMatchObject({ op: 'update', status: 404, details: { rejectedBy: 'fault' } });
    expect(ok).toMatchObject({ op: 'update', status: 200 });
  });

  it('a 404 on a channel route is 10003 Unknown Channel', async () => {
    await inject({ method: 'GET', path: `/channels/${CHANNEL}`, status: 404 });
    const error = await rejectionOf(h.client().api.channels.get(CHANNEL));
    expect(error).toMatchObject({ status: 404, code: 10003, message: 'Unknown Channel' });
  });

  it('a 500 is an HTTPError (the client has retries: 0, so it does not retry)', async () => {
    await inject({ op: 'create', status: 500, times: 1 });
    const error = await rejectionOf(h.client().api.channels.createMessage(CHANNEL, { content: 'x' }));
    expect(error).toBeInstanceOf(HTTPError);
    expect(error).toMatchObject({ status: 500 });
    expect(await recordedCalls(h)).toHaveLength(1);
  });

  it('a 429 carries the rule’s retryAfterS as Retry-After: a RateLimitError with that wait', async () => {
    await inject({ op: 'create', status: 429, retryAfterS: 7, times: 1 });
    const error = await rejectionOf(h.client().api.channels.createMessage(CHANNEL, { content: 'x' }));
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error).toMatchObject({ retryAfter: 7000, global: false, scope: 'user' });
  });

  it('a 403 is 50013 Missing Permissions', async () => {
    await inject({ op: 'reaction', status: 403 });
    const { api } = h.client();
    const posted = await api.channels.createMessage(CHANNEL, { content: 'x' });
    const error = await rejectionOf(api.channels.addMessageReaction(CHANNEL, posted.id, '👍'));
    expect(error).toMatchObject({ status: 403, code: 50013, message: 'Missing Permissions' });
  });

  it('a 401 is Discord’s 401: Unauthorized with code 0', async () => {
    await inject({ path: '/users/', status: 401 });
    const error = await rejectionOf(h.client().api.users.getCurrent());
    expect(error).toMatchObject({ status: 401, code: 0, message: '401: Unauthorized' });
  });
});
