// spec: docs/emulators.md "Default limits" and issue item 4 / item 6 "429 with the right Retry-After":
// Slack's defaults on by default (chat.update 50/min per app, chat.postMessage ~1/s per channel with a burst),
// answered as Slack answers (429, Retry-After in whole seconds, {ok:false, error:'ratelimited'}).
// Windows are driven by the injected clock: nothing sleeps.
import { WebAPIRateLimitedError } from '@slack/web-api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SLACK_DEFAULT_LIMITS } from '../../../src/emulators/slack/index.js';
import { rejectionOf, request, type SlackKit, slackClient, startKit, TOKEN } from './slack-test-kit.js';

const CHANNEL = 'C0LIMITS01';
const OTHER_CHANNEL = 'C0LIMITS02';

let kit: SlackKit;

beforeEach(async () => {
  kit = await startKit();
});

afterEach(async () => {
  await kit.emulator.close();
});

async function retryAfterOf(promise: Promise<unknown>): Promise<number> {
  const error = await rejectionOf(promise);
  expect(error).toBeInstanceOf(WebAPIRateLimitedError);
  return (error as WebAPIRateLimitedError).retryAfter;
}

describe('Slack emulator: default rate limits', () => {
  it('serves the docs/http-api.md defaults unless told otherwise', async () => {
    const res = await request(kit.emulator, '/_emulator/limits', { method: 'GET' });

    expect(res.body.rules).toEqual([...SLACK_DEFAULT_LIMITS]);
    expect(SLACK_DEFAULT_LIMITS).toContainEqual({ op: 'update', scope: 'app', limit: 50, windowS: 60 });
    expect(SLACK_DEFAULT_LIMITS).toContainEqual({ op: 'create', scope: 'space', limit: 5, windowS: 5 });
  });

  it('refuses the 51st chat.update within a minute per app with Retry-After until the oldest leaves the window', async () => {
    const posted = await kit.client.chat.postMessage({ channel: CHANNEL, text: 'log' });
    for (let edit = 1; edit <= 50; edit += 1) {
      await kit.client.chat.update({ channel: CHANNEL, ts: posted.ts!, text: `log ${edit}` });
      kit.clock.increment(100);
    }
    // Now t = 5.0 s; the first edit (t = 0) leaves the 60 s window at t = 60 s.
    const retryAfter = await retryAfterOf(
      kit.client.chat.update({ channel: CHANNEL, ts: posted.ts!, text: 'x' }),
    );
    const otherApp = slackClient(kit.emulator, 'xoxb-another-app');
    const theirs = await otherApp.chat.postMessage({ channel: OTHER_CHANNEL, text: 'theirs' });
    const otherAppEdit = await otherApp.chat.update({
      channel: OTHER_CHANNEL,
      ts: theirs.ts!,
      text: 'edited',
    });

    expect(retryAfter).toBe(55);
    expect(otherAppEdit.ok).toBe(true);
    kit.clock.increment(54_999);
    expect(await retryAfterOf(kit.client.chat.update({ channel: CHANNEL, ts: posted.ts!, text: 'x' }))).toBe(
      1,
    );
    kit.clock.increment(1);
    expect((await kit.client.chat.update({ channel: CHANNEL, ts: posted.ts!, text: 'x' })).ok).toBe(true);
    expect(kit.emulator.state.messages(CHANNEL)[0]?.edits).toBe(51);
  });

  it('lets a burst of 5 chat.postMessage through per channel, then answers 429 for that channel only', async () => {
    for (let post = 1; post <= 5; post += 1)
      await kit.client.chat.postMessage({ channel: CHANNEL, text: `${post}` });
    const retryAfter = await retryAfterOf(kit.client.chat.postMessage({ channel: CHANNEL, text: 'sixth' }));
    const elsewhere = await kit.client.chat.postMessage({ channel: OTHER_CHANNEL, text: 'fine' });

    expect(retryAfter).toBe(5);
    expect(elsewhere.ok).toBe(true);
    kit.clock.increment(5000);
    expect((await kit.client.chat.postMessage({ channel: CHANNEL, text: 'later' })).ok).toBe(true);
    expect(kit.emulator.state.messages(CHANNEL).map((message) => message.text)).toEqual([
      '1',
      '2',
      '3',
      '4',
      '5',
      'later',
    ]);
  });

  it('answers over a limit exactly as Slack: 429, Retry-After in whole seconds, {ok:false, error:"ratelimited"}', async () => {
    await request(kit.emulator, '/_emulator/limits', {
      body: { rules: [{ op: 'create', scope: 'space', limit: 1, windowS: 0.5 }] },
    });
    const auth = { authorization: `Bearer ${TOKEN}` };
    await request(kit.emulator, '/api/chat.postMessage', {
      body: { channel: CHANNEL, text: 'a' },
      headers: auth,
    });
    const refused = await request(kit.emulator, '/api/chat.postMessage', {
      body: { channel: CHANNEL, text: 'b' },
      headers: auth,
    });

    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.body).toEqual({ ok: false, error: 'ratelimited' });
    expect([...refused.headers.keys()].filter((name) => name.startsWith('x-ratelimit'))).toEqual([]);
    expect(kit.emulator.state.calls().at(-1)).toMatchObject({
      op: 'create',
      status: 429,
      notifies: false,
      details: { rejectedBy: 'rate-limit', retryAfterS: 0.5 },
    });
  });

  it('takes a tiny limit set through POST /_emulator/limits, surfacing as WebAPIRateLimitedError', async () => {
    await request(kit.emulator, '/_emulator/limits', {
      body: { rules: [{ op: 'update', scope: 'app', limit: 1, windowS: 2 }] },
    });
    const posted = await kit.client.chat.postMessage({ channel: CHANNEL, text: 'log' });
    await kit.client.chat.update({ channel: CHANNEL, ts: posted.ts!, text: 'one' });

    expect(
      await retryAfterOf(kit.client.chat.update({ channel: CHANNEL, ts: posted.ts!, text: 'two' })),
    ).toBe(2);
    kit.clock.increment(2000);
    expect((await kit.client.chat.update({ channel: CHANNEL, ts: posted.ts!, text: 'two' })).ok).toBe(true);
  });

  it('runs without limits when started with limits: []', async () => {
    const unlimited = await startKit({ limits: [] });
    try {
      for (let post = 1; post <= 20; post += 1) {
        await unlimited.client.chat.postMessage({ channel: CHANNEL, text: `${post}` });
      }
      expect(unlimited.emulator.state.messages(CHANNEL)).toHaveLength(20);
    } finally {
      await unlimited.emulator.close();
    }
  });
});
