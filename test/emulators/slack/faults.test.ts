// spec: issue "Loopback emulators" — fault injection through POST /_emulator/faults surfaces as the official
// client's normal error type: a 4xx fault becomes Slack's HTTP 200 {ok:false, error} (WebAPIPlatformError) with
// the code that method reports; 429 keeps Retry-After (WebAPIRateLimitedError); 5xx stays HTTP (WebAPIHTTPError).
import { WebAPIHTTPError, WebAPIPlatformError, WebAPIRateLimitedError } from '@slack/web-api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FaultRule } from '../../../src/emulators/types.js';
import { rejectionOf, request, type SlackKit, startKit } from './slack-test-kit.js';

const CHANNEL = 'C0FAULTS01';

let kit: SlackKit;

beforeEach(async () => {
  kit = await startKit();
});

afterEach(async () => {
  await kit.emulator.close();
});

async function injectFaults(rules: FaultRule[]): Promise<void> {
  const res = await request(kit.emulator, '/_emulator/faults', { body: { rules } });
  expect(res.status).toBe(200);
}

async function platformErrorOf(promise: Promise<unknown>): Promise<string> {
  const error = await rejectionOf(promise);
  expect(error).toBeInstanceOf(WebAPIPlatformError);
  return (error as WebAPIPlatformError).data.error;
}

describe('Slack emulator: injected faults through WebClient', () => {
  it('answers a 404 fault on chat.update with message_not_found, once, then edits again', async () => {
    const posted = await kit.client.chat.postMessage({ channel: CHANNEL, text: 'log' });
    await injectFaults([{ op: 'update', status: 404, times: 1 }]);

    const code = await platformErrorOf(
      kit.client.chat.update({ channel: CHANNEL, ts: posted.ts!, text: 'x' }),
    );
    const next = await kit.client.chat.update({ channel: CHANNEL, ts: posted.ts!, text: 'y' });

    expect(code).toBe('message_not_found');
    expect(next.ok).toBe(true);
    expect(kit.emulator.state.messages(CHANNEL)[0]).toMatchObject({ text: 'y', edits: 1 });
    expect(
      kit.emulator.state.calls().map((call) => [call.op, call.status, call.details?.rejectedBy]),
    ).toEqual([
      ['create', 200, undefined],
      ['update', 200, 'fault'],
      ['update', 200, undefined],
    ]);
  });

  it('answers a 404 fault on chat.postMessage with channel_not_found, without posting', async () => {
    await injectFaults([{ op: 'create', status: 404 }]);

    expect(await platformErrorOf(kit.client.chat.postMessage({ channel: CHANNEL, text: 'x' }))).toBe(
      'channel_not_found',
    );
    expect(kit.emulator.state.messages(CHANNEL)).toEqual([]);
  });

  it('maps 401 to invalid_auth and 403 to access_denied', async () => {
    await injectFaults([
      { path: 'auth.test', status: 401 },
      { path: 'chat.postMessage', status: 403 },
    ]);

    expect(await platformErrorOf(kit.client.auth.test())).toBe('invalid_auth');
    expect(await platformErrorOf(kit.client.chat.postMessage({ channel: CHANNEL, text: 'x' }))).toBe(
      'access_denied',
    );
  });

  it('answers a 429 fault with its Retry-After: WebAPIRateLimitedError.retryAfter', async () => {
    await injectFaults([{ op: 'create', status: 429, retryAfterS: 7 }]);

    const error = await rejectionOf(kit.client.chat.postMessage({ channel: CHANNEL, text: 'x' }));

    expect(error).toBeInstanceOf(WebAPIRateLimitedError);
    expect((error as WebAPIRateLimitedError).retryAfter).toBe(7);
  });

  it('answers 500 and 503 faults with that HTTP status: WebAPIHTTPError (not retried with retries: 0)', async () => {
    await injectFaults([
      { op: 'create', status: 500, times: 1 },
      { op: 'create', status: 503, times: 1 },
    ]);

    const first = await rejectionOf(kit.client.chat.postMessage({ channel: CHANNEL, text: 'x' }));
    const second = await rejectionOf(kit.client.chat.postMessage({ channel: CHANNEL, text: 'x' }));

    expect(first).toBeInstanceOf(WebAPIHTTPError);
    expect((first as WebAPIHTTPError).statusCode).toBe(500);
    expect((second as WebAPIHTTPError).statusCode).toBe(503);
    expect(kit.emulator.state.calls().filter((call) => call.op === 'create')).toHaveLength(2);
  });
});
