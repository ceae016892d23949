/**
 * Contract: the Discord emulator's answers against Discord's published reference, discord-api-docs
 * (https://github.com/discord/discord-api-docs, rendered at https://discord.com/developers/docs):
 *
 * - https://discord.com/developers/docs/topics/rate-limits "Header Format": `X-RateLimit-Limit`, `-Remaining`, `-Reset` (epoch seconds),
 *   `-Reset-After` (seconds, may have decimals), `-Bucket` ("non-inclusive of top-level resources in the
 *   path"); `X-RateLimit-Global` and `X-RateLimit-Scope` (`user` | `global` | `shared`) "returned only on
 *   HTTP 429 responses"; "Exceeding A Rate Limit": 429 with `Retry-After` and the JSON body
 *   `{message, retry_after (float), global (boolean)}`; the global example carries no bucket headers.
 * - https://discord.com/developers/docs/topics/opcodes-and-status-codes "HTTP Response Codes" (200, 201, 204, 400, 403, 404, 405, 429) and
 *   "JSON Error Codes": 0 general error, 10003 Unknown channel, 10008 Unknown message, 10014 Unknown emoji,
 *   50005 Cannot edit a message authored by another user, 50006 Cannot send an empty message, 50024 Cannot
 *   execute action on this channel type, 50035 Invalid form body, 50083 operation on an archived thread,
 *   50109 invalid JSON, 160004 A thread has already been created for this message; example body
 *   `{"message": …, "code": …}`.
 * - https://discord.com/developers/docs/reference "Error Messages": 50035 bodies `{code: 50035, message: 'Invalid Form Body', errors}`
 *   where each bad key holds `_errors: [{code, message}]` and array items are keyed by index.
 * - https://discord.com/developers/docs/reference "Snowflakes": ids are strings; `(snowflake >> 22) + 1420070400000` is the creation time.
 * - https://discord.com/developers/docs/resources/message "Create Message" (content up to 2000 characters; `nonce` up to 25 characters
 *   with `enforce_nonce`), "Edit Message", "Delete Message" and "Create Reaction" ("Returns a 204 empty
 *   response on success"); https://discord.com/developers/docs/resources/channel "Start Thread from Message" ("The id of the created
 *   thread will be the same as the id of the source message").
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Harness, personSays, START_MS, startHarness } from './harness.js';

const CHANNEL = '1800000000000000001';
const OTHER_CHANNEL = '1800000000000000002';
const DM = '1800000000000000003';
const V10 = '/api/v10';

let h: Harness;
beforeEach(async () => {
  h = await startHarness({ channels: [{ id: DM, type: 1 }] });
});
afterEach(async () => {
  await h.close();
});

const post = (channel: string, body: unknown) => h.raw('POST', `${V10}/channels/${channel}/messages`, body);

/** Every documented JSON error is exactly `{code, message}` (plus `errors` for 50035). */
function expectDiscordError(
  res: { status: number; body: unknown },
  status: number,
  code: number,
  message: string,
) {
  expect(res.status).toBe(status);
  expect(res.body).toEqual({ code, message });
}

describe('contract: rate-limit headers (https://discord.com/developers/docs/topics/rate-limits)', () => {
  it('every answer carries the five X-RateLimit headers; the bucket excludes the channel', async () => {
    const first = await post(CHANNEL, { content: 'a' });
    expect(first.status).toBe(200);
    expect({
      limit: first.headers.get('X-RateLimit-Limit'),
      remaining: first.headers.get('X-RateLimit-Remaining'),
      reset: first.headers.get('X-RateLimit-Reset'),
      resetAfter: first.headers.get('X-RateLimit-Reset-After'),
    }).toEqual({ limit: '5', remaining: '4', reset: String(START_MS / 1000 + 5), resetAfter: '5' });
    const bucket = first.headers.get('X-RateLimit-Bucket');
    expect(bucket).toMatch(/^[0-9a-f]{8,}$/);
    // Only on 429s:
    expect(first.headers.has('X-RateLimit-Scope')).toBe(false);
    expect(first.headers.has('X-RateLimit-Global')).toBe(false);

    // Same route in another channel: same bucket id (the channel is the separate major parameter).
    expect((await post(OTHER_CHANNEL, { content: 'b' })).headers.get('X-RateLimit-Bucket')).toBe(bucket);
    // Reset-After "can have decimals".
    h.clock.increment(1250);
    const later = await post(CHANNEL, { content: 'c' });
    expect(later.headers.get('X-RateLimit-Remaining')).toBe('3');
    expect(later.headers.get('X-RateLimit-Reset-After')).toBe('3.75');
    // Errors carry them too.
    const refused = await post(CHANNEL, { content: '' });
    expect(refused.status).toBe(400);
    expect(refused.headers.get('X-RateLimit-Remaining')).toBe('2');
  });

  it('over a per-route limit: 429, Retry-After in whole seconds, scope user, body {message, retry_after, global}', async () => {
    await post(CHANNEL, { content: '1' });
    h.clock.increment(1500);
    for (let i = 2; i <= 5; i += 1) await post(CHANNEL, { content: String(i) });
    h.clock.increment(750);
    const res = await post(CHANNEL, { content: '6' });

    expect(res.status).toBe(429);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    // The first message leaves the 5 s window 2.75 s from now.
    expect(res.body).toEqual({ message: 'You are being rate limited.', retry_after: 2.75, global: false });
    expect(res.headers.get('Retry-After')).toBe('3');
    expect(res.headers.get('X-RateLimit-Scope')).toBe('user');
    expect(res.headers.has('X-RateLimit-Global')).toBe(false);
    // "Normal route rate-limiting headers will also be sent in this response."
    expect(res.headers.get('X-RateLimit-Limit')).toBe('5');
    expect(res.headers.get('X-RateLimit-Remaining')).toBe('0');
    expect(res.headers.get('X-RateLimit-Reset-After')).toBe('2.75');
  });

  it('over the global limit: X-RateLimit-Global: true, scope global, global: true and no bucket headers', async () => {
    await h.raw('POST', '/_emulator/limits', { rules: [{ op: '*', scope: 'global', limit: 1, windowS: 1 }] });
    await h.raw('GET', `${V10}/channels/${CHANNEL}`);
    const res = await h.raw('GET', `${V10}/channels/${CHANNEL}`);
    expect(res.status).toBe(429);
    expect(res.body).toEqual({ message: 'You are being rate limited.', retry_after: 1, global: true });
    expect(res.headers.get('Retry-After')).toBe('1');
    expect(res.headers.get('X-RateLimit-Global')).toBe('true');
    expect(res.headers.get('X-RateLimit-Scope')).toBe('global');
    expect(res.headers.has('X-RateLimit-Bucket')).toBe(false);
  });
});

describe('contract: JSON errors (https://discord.com/developers/docs/topics/opcodes-and-status-codes, https://discord.com/developers/docs/reference "Error Messages")', () => {
  it('10008 Unknown Message (404) for a deleted message; 10003 Unknown Channel (404) in strict mode', async () => {
    const posted = await post(CHANNEL, { content: 'x' });
    const path = `${V10}/channels/${CHANNEL}/messages/${posted.body.id}`;
    expect((await h.raw('DELETE', path)).status).toBe(204);
    expectDiscordError(await h.raw('PATCH', path, { content: 'y' }), 404, 10008, 'Unknown Message');

    const strict = await startHarness({ strict: true });
    try {
      expectDiscordError(
        await strict.raw('POST', `${V10}/channels/${CHANNEL}/messages`, { content: 'x' }),
        404,
        10003,
        'Unknown Channel',
      );
      const anonymous = await fetch(`${strict.emulator.url}${V10}/channels/${CHANNEL}`);
      expect(anonymous.status).toBe(401);
      expect(await anonymous.json()).toEqual({ code: 0, message: '401: Unauthorized' });
    } finally {
      await strict.close();
    }
  });

  it('50005 (403) for an edit of a person message; 50006 (400) for an empty one', async () => {
    const inbound = await personSays(h, { space: CHANNEL, text: 'mine' });
    expectDiscordError(
      await h.raw('PATCH', `${V10}/channels/${CHANNEL}/messages/${inbound.messageId}`, { content: 'x' }),
      403,
      50005,
      'Cannot edit a message authored by another user',
    );
    expectDiscordError(await post(CHANNEL, {}), 400, 50006, 'Cannot send an empty message');
  });

  it('50035 Invalid Form Body names each bad field with _errors, array items keyed by index', async () => {
    const res = await post(CHANNEL, {
      content: 'x'.repeat(2001),
      nonce: 'n'.repeat(26),
      allowed_mentions: { parse: ['everyone', 'channels'] },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      code: 50035,
      message: 'Invalid Form Body',
      errors: {
        content: { _errors: [{ code: 'BASE_TYPE_MAX_LENGTH', message: 'Must be 2000 or fewer in length.' }] },
        nonce: { _errors: [{ code: 'BASE_TYPE_MAX_LENGTH', message: 'Must be 25 or fewer in length.' }] },
        allowed_mentions: {
          parse: {
            '1': {
              _errors: [{ code: 'ENUM_TYPE_COERCE', message: 'Value "channels" is not a valid enum value.' }],
            },
          },
        },
      },
    });
    // A path id that is not a snowflake is a form error too.
    const badId = await h.raw('GET', `${V10}/channels/general`);
    expect(badId.body).toEqual({
      code: 50035,
      message: 'Invalid Form Body',
      errors: {
        channel_id: {
          _errors: [{ code: 'NUMBER_TYPE_COERCE', message: 'Value "general" is not snowflake.' }],
        },
      },
    });
    // Start Thread without a name: "This field is required".
    const starter = await post(CHANNEL, { content: 'x' });
    const noName = await h.raw('POST', `${V10}/channels/${CHANNEL}/messages/${starter.body.id}/threads`, {});
    expect(noName.body.errors).toEqual({
      name: { _errors: [{ code: 'BASE_TYPE_REQUIRED', message: 'This field is required' }] },
    });
  });

  it('threads: 201 with the message id, 160004 for a second, 50024 in a DM, 50083 when archived', async () => {
    const starter = await personSays(h, { space: CHANNEL, text: 'hi' });
    const threadPath = `${V10}/channels/${CHANNEL}/messages/${starter.messageId}/threads`;
    const created = await h.raw('POST', threadPath, { name: 'turn' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ id: starter.messageId, type: 11, parent_id: CHANNEL });
    expectDiscordError(
      await h.raw('POST', threadPath, { name: 'again' }),
      400,
      160004,
      'A thread has already been created for this message',
    );

    const dmMessage = await personSays(h, { space: DM, text: 'hi' });
    expectDiscordError(
      await h.raw('POST', `${V10}/channels/${DM}/messages/${dmMessage.messageId}/threads`, { name: 't' }),
      400,
      50024,
      'Cannot execute action on this channel type',
    );

    const log = await post(starter.messageId, { content: 'log' });
    h.emulator.archiveThread(starter.messageId);
    expectDiscordError(
      await h.raw('PATCH', `${V10}/channels/${starter.messageId}/messages/${log.body.id}`, { content: 'x' }),
      400,
      50083,
      'Thread is archived',
    );
  });

  it('general errors use code 0: unknown route 404, wrong method 405; invalid JSON is 50109', async () => {
    expectDiscordError(await h.raw('GET', `${V10}/guilds/1`), 404, 0, '404: Not Found');
    expectDiscordError(
      await h.raw('PUT', `${V10}/channels/${CHANNEL}/messages`),
      405,
      0,
      '405: Method Not Allowed',
    );
    const res = await fetch(`${h.emulator.url}${V10}/channels/${CHANNEL}/messages`, {
      method: 'POST',
      headers: { authorization: 'Bot x', 'content-type': 'application/json' },
      body: '{"content": ',
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ code: 50109, message: 'The request body contains invalid JSON.' });
  });

  it('an unknown emoji is 10014 (400)', async () => {
    const posted = await post(CHANNEL, { content: 'x' });
    expectDiscordError(
      await h.raw('PUT', `${V10}/channels/${CHANNEL}/messages/${posted.body.id}/reactions/notanemoji/@me`),
      400,
      10014,
      'Unknown Emoji',
    );
  });
});

describe('contract: objects and success statuses (https://discord.com/developers/docs/reference, https://discord.com/developers/docs/resources/message)', () => {
  it('ids are snowflake strings whose top bits are the creation time since the Discord epoch', async () => {
    h.clock.increment(42_000);
    const res = await post(CHANNEL, { content: 'x' });
    expect(typeof res.body.id).toBe('string');
    expect(Number(BigInt(res.body.id) >> 22n) + 1_420_070_400_000).toBe(START_MS + 42_000);
    expect(res.body.timestamp).toBe(new Date(START_MS + 42_000).toISOString().replace('Z', '000+00:00'));
  });

  it('Delete Message and Create Reaction return 204 with no body', async () => {
    const posted = await post(CHANNEL, { content: 'x' });
    const reaction = await h.raw(
      'PUT',
      `${V10}/channels/${CHANNEL}/messages/${posted.body.id}/reactions/%F0%9F%91%8D/@me`,
    );
    expect(reaction).toMatchObject({ status: 204, body: undefined });
    const deleted = await h.raw('DELETE', `${V10}/channels/${CHANNEL}/messages/${posted.body.id}`);
    expect(deleted).toMatchObject({ status: 204, body: undefined });
  });

  it('Create Message accepts a nonce of up to 25 characters (or an integer) and echoes it', async () => {
    const text = await post(CHANNEL, { content: 'x', nonce: 'n'.repeat(25) });
    expect(text.body.nonce).toBe('n'.repeat(25));
    const integer = await post(CHANNEL, { content: 'x', nonce: 1234567 });
    expect(integer.body.nonce).toBe('1234567');
  });

  it('Create Message keeps only the flags that can be set (SUPPRESS_EMBEDS, SUPPRESS_NOTIFICATIONS…)', async () => {
    const res = await post(CHANNEL, { content: 'x', flags: (1 << 12) | (1 << 6) });
    // EPHEMERAL (1 << 6) cannot be set on a channel message.
    expect(res.body.flags).toBe(1 << 12);
  });
});
