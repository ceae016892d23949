// spec: issue "Loopback emulators…" item 4 — rate limits on by default with the docs/emulators.md defaults
// (Discord ≈ 5 messages or edits per 5 s per channel, 50 requests/s global), configurable, answered as
// Discord answers; item 6 — "429 with the right Retry-After", observed through the official client.
// Time is the emulator's injected clock: nothing sleeps.
import { RateLimitError } from '@discordjs/rest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DISCORD_DEFAULT_LIMITS } from '../../../src/emulators/discord/index.js';
import { type Harness, recordedCalls, startHarness } from './harness.js';

const CHANNEL = '1600000000000000001';
const OTHER_CHANNEL = '1600000000000000002';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await h.close();
});

async function rateLimitErrorOf(call: Promise<unknown>): Promise<RateLimitError> {
  const error = await call.then(
    () => {
      throw new Error('expected a rate limit');
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RateLimitError);
  return error as RateLimitError;
}

const post = (h: Harness, channel: string, content = 'log') =>
  h.client().api.channels.createMessage(channel, { content, allowed_mentions: { parse: [] } });

describe('discord emulator: default limits', () => {
  it('serves the docs/http-api.md defaults: 5 creates and 5 edits per 5 s per channel, 50 requests/s global', async () => {
    expect((await h.raw('GET', '/_emulator/limits')).body.rules).toEqual(DISCORD_DEFAULT_LIMITS);
    expect(DISCORD_DEFAULT_LIMITS).toEqual([
      { op: 'create', scope: 'space', limit: 5, windowS: 5 },
      { op: 'update', scope: 'space', limit: 5, windowS: 5 },
      { op: '*', scope: 'global', limit: 50, windowS: 1 },
    ]);
  });

  it('the 6th message in 5 s gets 429 with Retry-After; the client sees the bucket empty from the headers', async () => {
    const { api } = h.client();
    for (let i = 0; i < 5; i += 1) await api.channels.createMessage(CHANNEL, { content: `m${i}` });

    // The same client read `X-RateLimit-Remaining: 0` / `Reset-After: 5` and refuses locally.
    const local = await rateLimitErrorOf(api.channels.createMessage(CHANNEL, { content: 'm5' }));
    expect(local.limit).toBe(5);
    expect(local.timeToReset).toBeGreaterThan(4000);
    expect(await recordedCalls(h)).toHaveLength(5);

    // Another process of the same bot has no such state: the emulator answers 429.
    const remote = await rateLimitErrorOf(post(h, CHANNEL));
    expect(remote).toMatchObject({ retryAfter: 5000, global: false, scope: 'user', limit: 5 });
    const refused = (await recordedCalls(h)).at(-1);
    expect(refused).toMatchObject({
      op: 'create',
      status: 429,
      notifies: false,
      messageId: null,
      details: { rejectedBy: 'rate-limit', retryAfterS: 5 },
    });

    // Retry-After counts down with the emulator's clock, in whole seconds rounded up.
    h.clock.increment(2000);
    expect((await rateLimitErrorOf(post(h, CHANNEL))).retryAfter).toBe(3000);
    h.clock.increment(2500);
    expect((await rateLimitErrorOf(post(h, CHANNEL))).retryAfter).toBe(1000);
    h.clock.increment(500);
    await expect(post(h, CHANNEL)).resolves.toMatchObject({ content: 'log' });
  });

  it('counts per channel: a full channel does not limit another', async () => {
    for (let i = 0; i < 5; i += 1) await post(h, CHANNEL);
    await expect(post(h, OTHER_CHANNEL)).resolves.toMatchObject({ channel_id: OTHER_CHANNEL });
    await rateLimitErrorOf(post(h, CHANNEL));
  });

  it('edits have their own bucket of 5 per 5 s per channel', async () => {
    const { api } = h.client();
    const message = await api.channels.createMessage(CHANNEL, { content: 'v0' });
    for (let i = 1; i <= 5; i += 1) await api.channels.editMessage(CHANNEL, message.id, { content: `v${i}` });
    const error = await rateLimitErrorOf(
      h.client().api.channels.editMessage(CHANNEL, message.id, { content: 'v6' }),
    );
    expect(error).toMatchObject({ retryAfter: 5000, scope: 'user' });
    // Creating is still allowed: 1 of 5 used.
    await expect(post(h, CHANNEL)).resolves.toMatchObject({});
  });

  it('a thread is a channel of its own: its messages do not use the parent channel’s bucket', async () => {
    const { api } = h.client();
    const starter = await api.channels.createMessage(CHANNEL, { content: 'turn' });
    const thread = await api.channels.createThread(CHANNEL, { name: 't' }, starter.id);
    for (let i = 0; i < 5; i += 1) await post(h, thread.id);
    await rateLimitErrorOf(post(h, thread.id));
    // The parent has used 1 of its 5.
    await expect(post(h, CHANNEL)).resolves.toMatchObject({ channel_id: CHANNEL });
  });

  it('over the global limit: 429 with X-RateLimit-Global, and the client reports it global', async () => {
    await h.raw('POST', '/_emulator/limits', { rules: [{ op: '*', scope: 'global', limit: 2, windowS: 1 }] });
    const { api } = h.client();
    await api.channels.get(CHANNEL);
    await api.channels.get(OTHER_CHANNEL);
    const error = await rateLimitErrorOf(h.client().api.channels.createMessage(CHANNEL, { content: 'x' }));
    expect(error).toMatchObject({ global: true, retryAfter: 1000 });
    expect((await recordedCalls(h)).at(-1)).toMatchObject({
      status: 429,
      details: { rejectedBy: 'rate-limit' },
    });
  });

  it('a tiny limit set through POST /_emulator/limits answers with its own window', async () => {
    await h.raw('POST', '/_emulator/limits', {
      rules: [{ op: 'create', scope: 'space', limit: 1, windowS: 0.25 }],
    });
    await post(h, CHANNEL);
    const error = await rateLimitErrorOf(post(h, CHANNEL));
    // Retry-After is whole seconds (1); the body's retry_after keeps the precision (checked in the contract test).
    expect(error).toMatchObject({ retryAfter: 1000, limit: 1 });
    h.clock.increment(250);
    await expect(post(h, CHANNEL)).resolves.toMatchObject({});
  });

  it('limits: [] turns every limit off', async () => {
    const unlimited = await startHarness({ limits: [] });
    try {
      for (let i = 0; i < 12; i += 1) await post(unlimited, CHANNEL);
      expect((await recordedCalls(unlimited)).every((call) => call.status === 200)).toBe(true);
      expect((await unlimited.raw('GET', '/_emulator/limits')).body.rules).toEqual([]);
    } finally {
      await unlimited.close();
    }
  });
});
