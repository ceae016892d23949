/**
 * Contract: the Slack emulator's answers and errors against Slack's published reference.
 *
 * Sources (the field names and error codes below are copied from them):
 * - Web API basics, https://docs.slack.dev/apis/web-api — "The response contains a JSON object, which will always
 *   contain a top-level boolean property `ok` … For failure results, the `error` property will contain a short
 *   machine-readable error code"; arguments as GET query, form POST or (write methods) JSON.
 * - https://docs.slack.dev/changelog/2017-10-keeping-up-with-the-jsons — "To make use of sending JSON on write
 *   operations, you must provide your token value using an Authorization HTTP header."
 * - https://docs.slack.dev/changelog/2020-11-no-more-tokens-in-querystrings-for-newly-created-apps — tokens go in the
 *   Authorization header or a URL-encoded POST body, not the query string.
 * - Rate limits, https://docs.slack.dev/apis/web-api/rate-limits — over a limit: HTTP 429 with a `Retry-After` header
 *   (seconds); the methods' error list names the body error `ratelimited`.
 * - Method pages https://docs.slack.dev/reference/methods/<method> for auth.test, conversations.info,
 *   chat.postMessage, chat.update, chat.delete, reactions.add: the example responses' fields and the "Errors" tables.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EmulatorServer } from '../../../src/emulators/core/index.js';
import { startSlackEmulator } from '../../../src/emulators/slack/index.js';
import { emulatorCall } from '../inspection.js';
import { TOKEN } from './slack-test-kit.js';

/** The codes each method's "Errors" table documents (the subset the emulator can produce). */
const DOCUMENTED_ERRORS: Record<string, readonly string[]> = {
  'auth.test': ['not_authed', 'invalid_auth'],
  'conversations.info': ['channel_not_found', 'not_authed', 'invalid_auth', 'invalid_arguments'],
  'chat.postMessage': [
    'channel_not_found',
    'msg_too_long',
    'no_text',
    'invalid_blocks',
    'invalid_blocks_format',
    'restricted_action_non_threadable_channel',
    'not_authed',
    'invalid_auth',
    'invalid_arguments',
    'ratelimited',
  ],
  'chat.update': ['message_not_found', 'cant_update_message', 'channel_not_found', 'msg_too_long', 'no_text'],
  'chat.delete': ['message_not_found', 'channel_not_found', 'cant_delete_message', 'not_authed'],
  'reactions.add': [
    'already_reacted',
    'bad_timestamp',
    'channel_not_found',
    'invalid_name',
    'message_not_found',
    'no_item_specified',
  ],
};

const CHANNEL = 'C0CONTRACT';
const DM = 'D0CONTRACT';

let emulator: EmulatorServer;

beforeEach(async () => {
  emulator = await startSlackEmulator({ limits: [], strict: true });
});

afterEach(async () => {
  await emulator.close();
});

type Encoding = 'form' | 'json';

/** Calls a method the way a client would: form-encoded (nested values JSON-encoded, as web-api does) or JSON. */
async function callMethod(
  method: string,
  args: Record<string, unknown>,
  opts: { encoding?: Encoding; token?: string | null; tokenIn?: 'header' | 'body' | 'query' } = {},
) {
  const encoding = opts.encoding ?? 'form';
  const token = opts.token === undefined ? TOKEN : opts.token;
  const tokenIn = opts.tokenIn ?? 'header';
  const fields: Record<string, unknown> = { ...args, ...(token && tokenIn === 'body' ? { token } : {}) };
  const headers: Record<string, string> =
    token && tokenIn === 'header' ? { authorization: `Bearer ${token}` } : {};
  let body: string;
  if (encoding === 'json') {
    headers['content-type'] = 'application/json; charset=utf-8';
    body = JSON.stringify(fields);
  } else {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(
      Object.entries(fields).map(([key, value]): [string, string] => [
        key,
        typeof value === 'string' ? value : JSON.stringify(value),
      ]),
    ).toString();
  }
  const query = token && tokenIn === 'query' ? `?token=${encodeURIComponent(token)}` : '';
  const res = await fetch(`${emulator.url}/api/${method}${query}`, { method: 'POST', headers, body });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
}

/** Asserts a documented method error: HTTP 200, `{ok: false, error}` with a code from the method's Errors table. */
async function expectDocumentedError(
  method: string,
  res: Awaited<ReturnType<typeof callMethod>>,
  code: string,
) {
  expect(DOCUMENTED_ERRORS[method]).toContain(code);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(res.body).toMatchObject({ ok: false, error: code });
}

async function postFirst(encoding: Encoding = 'form') {
  const res = await callMethod('chat.postMessage', { channel: CHANNEL, text: 'first' }, { encoding });
  return res.body.ts as string;
}

describe('Slack contract: success shapes (method pages, "Example responses")', () => {
  for (const encoding of ['form', 'json'] as const) {
    it(`chat.postMessage (${encoding}): {ok: true, channel, ts, message: {type, text, ts, bot_id, user}}`, async () => {
      const res = await callMethod(
        'chat.postMessage',
        { channel: CHANNEL, text: 'hello', blocks: [{ type: 'divider' }] },
        { encoding },
      );

      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        ok: true,
        channel: CHANNEL,
        ts: expect.stringMatching(/^\d+\.\d{6}$/),
        message: expect.objectContaining({
          type: 'message',
          text: 'hello',
          ts: res.body.ts,
          bot_id: expect.stringMatching(/^B/),
          user: expect.stringMatching(/^U/),
          blocks: [{ type: 'divider' }],
        }),
      });
    });
  }

  it('chat.update: {ok: true, channel, ts, text, message}', async () => {
    const ts = await postFirst();
    const res = await callMethod('chat.update', { channel: CHANNEL, ts, text: 'Updated text' });

    expect(res.body).toEqual({
      ok: true,
      channel: CHANNEL,
      ts,
      text: 'Updated text',
      message: expect.objectContaining({ text: 'Updated text', user: expect.stringMatching(/^U/) }),
    });
  });

  it('chat.delete: {ok: true, channel, ts}; reactions.add: {ok: true}', async () => {
    const ts = await postFirst();
    const reacted = await callMethod('reactions.add', { channel: CHANNEL, timestamp: ts, name: 'thumbsup' });
    const deleted = await callMethod('chat.delete', { channel: CHANNEL, ts });

    expect(reacted.body).toEqual({ ok: true });
    expect(deleted.body).toEqual({ ok: true, channel: CHANNEL, ts });
  });

  it('auth.test: {ok: true, url, team, user, team_id, user_id} plus bot_id for a bot token', async () => {
    const res = await callMethod('auth.test', {});

    expect(res.body).toMatchObject({
      ok: true,
      url: expect.stringMatching(/^https:\/\/.+\/$/),
      team: expect.any(String),
      user: expect.any(String),
      team_id: expect.stringMatching(/^T/),
      user_id: expect.stringMatching(/^U/),
      bot_id: expect.stringMatching(/^B/),
    });
  });

  it('conversations.info: channel {id, name, is_channel, is_group, is_im, …}; an IM has is_im and user', async () => {
    const channel = await callMethod('conversations.info', { channel: CHANNEL });
    const im = await callMethod('conversations.info', { channel: DM });

    expect(channel.body).toMatchObject({
      ok: true,
      channel: { id: CHANNEL, name: expect.any(String), is_channel: true, is_group: false, is_im: false },
    });
    expect(im.body).toMatchObject({
      ok: true,
      channel: { id: DM, is_im: true, user: expect.stringMatching(/^U/) },
    });
  });
});

describe('Slack contract: documented errors, HTTP 200 {ok: false, error}', () => {
  it('chat.postMessage: channel_not_found, no_text, msg_too_long, invalid_blocks_format, invalid_blocks', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ channel: 'not-a-channel', text: 'x' }, 'channel_not_found'],
      [{ channel: CHANNEL }, 'no_text'],
      [{ channel: CHANNEL, text: 'x'.repeat(40_001) }, 'msg_too_long'],
      [{ channel: CHANNEL, text: 'x', blocks: '[{not json' }, 'invalid_blocks_format'],
      [{ channel: CHANNEL, text: 'x', blocks: [{ type: 'no_such_block' }] }, 'invalid_blocks'],
    ];
    for (const [args, code] of cases) {
      await expectDocumentedError('chat.postMessage', await callMethod('chat.postMessage', args), code);
    }
  });

  it('chat.postMessage: a missing required field is invalid_arguments naming it in response_metadata.messages', async () => {
    const res = await callMethod('chat.postMessage', { text: 'x' }, { encoding: 'json' });

    await expectDocumentedError('chat.postMessage', res, 'invalid_arguments');
    expect(res.body.response_metadata).toEqual({ messages: ['[ERROR] missing required field: channel'] });
  });

  it('chat.postMessage: invalid_blocks lists each problem with a json-pointer', async () => {
    const res = await callMethod('chat.postMessage', {
      channel: CHANNEL,
      text: 'x',
      blocks: [{ type: 'section', text: { type: 'mrkdwn', text: 'y'.repeat(3001) } }],
    });

    await expectDocumentedError('chat.postMessage', res, 'invalid_blocks');
    expect(res.body.errors).toEqual([expect.stringMatching(/\[json-pointer:\/blocks\/0\/text\/text\]$/)]);
  });

  it('chat.postMessage in strict mode: thread_ts in an IM is restricted_action_non_threadable_channel', async () => {
    const root = await callMethod('chat.postMessage', { channel: DM, text: 'hi' });
    const res = await callMethod('chat.postMessage', { channel: DM, text: 'reply', thread_ts: root.body.ts });

    await expectDocumentedError('chat.postMessage', res, 'restricted_action_non_threadable_channel');
  });

  it('chat.update: message_not_found (unknown, deleted), cant_update_message (a person’s), no_text', async () => {
    const ts = await postFirst();
    const person = await emulatorCall<{ messageId: string }>(emulator.url, 'inbound', {
      space: CHANNEL,
      text: 'mine',
    });

    await expectDocumentedError(
      'chat.update',
      await callMethod('chat.update', { channel: CHANNEL, ts: '1600000000.000000', text: 'x' }),
      'message_not_found',
    );
    await expectDocumentedError(
      'chat.update',
      await callMethod('chat.update', { channel: CHANNEL, ts: person.messageId, text: 'x' }),
      'cant_update_message',
    );
    await expectDocumentedError(
      'chat.update',
      await callMethod('chat.update', { channel: CHANNEL, ts }),
      'no_text',
    );
    await callMethod('chat.delete', { channel: CHANNEL, ts });
    await expectDocumentedError(
      'chat.update',
      await callMethod('chat.update', { channel: CHANNEL, ts, text: 'x' }),
      'message_not_found',
    );
  });

  it('chat.delete: cant_delete_message for another app’s message, message_not_found twice', async () => {
    const ts = await postFirst();
    await expectDocumentedError(
      'chat.delete',
      await callMethod('chat.delete', { channel: CHANNEL, ts }, { token: 'xoxb-other-app' }),
      'cant_delete_message',
    );
    await callMethod('chat.delete', { channel: CHANNEL, ts });
    await expectDocumentedError(
      'chat.delete',
      await callMethod('chat.delete', { channel: CHANNEL, ts }),
      'message_not_found',
    );
  });

  it('reactions.add: already_reacted, invalid_name, bad_timestamp, no_item_specified, message_not_found', async () => {
    const ts = await postFirst();
    await callMethod('reactions.add', { channel: CHANNEL, timestamp: ts, name: 'eyes' });
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ channel: CHANNEL, timestamp: ts, name: 'eyes' }, 'already_reacted'],
      [{ channel: CHANNEL, timestamp: ts, name: ':eyes:' }, 'invalid_name'],
      [{ channel: CHANNEL, timestamp: 'yesterday', name: 'eyes' }, 'bad_timestamp'],
      [{ name: 'eyes' }, 'no_item_specified'],
      [{ channel: CHANNEL, timestamp: '1600000000.000000', name: 'eyes' }, 'message_not_found'],
    ];
    for (const [args, code] of cases) {
      await expectDocumentedError('reactions.add', await callMethod('reactions.add', args), code);
    }
  });

  it('conversations.info: channel_not_found for an id that is not a conversation', async () => {
    await expectDocumentedError(
      'conversations.info',
      await callMethod('conversations.info', { channel: 'U0NOTACHAN' }),
      'channel_not_found',
    );
  });
});

describe('Slack contract: authentication (Web API basics, JSON and query-string changelogs)', () => {
  it('takes the token from the Authorization header or a form body field', async () => {
    expect((await callMethod('auth.test', {}, { tokenIn: 'header' })).body.ok).toBe(true);
    expect((await callMethod('auth.test', {}, { tokenIn: 'body' })).body.ok).toBe(true);
  });

  it('answers not_authed without a token, for a token inside a JSON body, and for a token in the query string', async () => {
    for (const res of [
      await callMethod('auth.test', {}, { token: null }),
      await callMethod('auth.test', {}, { tokenIn: 'body', encoding: 'json' }),
      await callMethod('auth.test', {}, { tokenIn: 'query' }),
    ]) {
      await expectDocumentedError('auth.test', res, 'not_authed');
    }
  });
});

describe('Slack contract: rate limits (https://docs.slack.dev/apis/web-api/rate-limits)', () => {
  it('answers HTTP 429, Retry-After in whole seconds, body {ok: false, error: "ratelimited"}', async () => {
    emulator.state.limits([{ op: 'create', scope: 'space', limit: 1, windowS: 30 }]);
    await postFirst();
    const res = await callMethod('chat.postMessage', { channel: CHANNEL, text: 'again' });

    expect(DOCUMENTED_ERRORS['chat.postMessage']).toContain('ratelimited');
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('30');
    expect(res.body).toEqual({ ok: false, error: 'ratelimited' });
  });

  it('answers an unknown method with unknown_method', async () => {
    const res = await callMethod('chat.noSuchMethod', { channel: CHANNEL });
    expect(res.body).toEqual({ ok: false, error: 'unknown_method' });
  });
});
