// spec: issue 11 item 6 — the Slack emulator speaks assistant.threads.setStatus: the status shows under a
// thread until the app replies, it is cleared with "", or two minutes pass; argument errors as Slack words them;
// a workspace without the feature answers its error every time; the method has its own per-app bucket.
import { WebAPIPlatformError, WebAPIRateLimitedError } from '@slack/web-api';
import { afterEach, describe, expect, it } from 'vitest';
import { personPosts, rejectionOf, type SlackKit, startKit } from './slack-test-kit.js';

const CHANNEL = 'C0STATUS01';

let kit: SlackKit | undefined;

afterEach(async () => {
  await kit?.emulator.close();
  kit = undefined;
});

async function errorCodeOf(promise: Promise<unknown>): Promise<string> {
  const error = await rejectionOf(promise);
  expect(error).toBeInstanceOf(WebAPIPlatformError);
  return (error as WebAPIPlatformError).data.error;
}

const statusCalls = (k: SlackKit) =>
  k.emulator.state.calls().filter((call) => call.path === '/api/assistant.threads.setStatus');

describe('Slack emulator: assistant.threads.setStatus', () => {
  it('shows a status under a thread, notifying no one; the record tells whether the last one still showed', async () => {
    kit = await startKit();
    const asked = await personPosts(kit.emulator, { space: CHANNEL, text: 'fix the build' });
    const set = (status: string) =>
      kit!.client.assistant.threads.setStatus({ channel_id: CHANNEL, thread_ts: asked.threadId, status });

    await set('is running Bash');
    kit.clock.increment(90_000);
    await set('is running Bash');
    kit.clock.increment(130_000);
    await set('is running Bash');
    await set('');

    expect(
      statusCalls(kit).map((call) => [call.status, call.thread, call.notifies, call.details?.previous]),
    ).toEqual([
      [200, asked.threadId, false, null],
      // Refreshed within two minutes: still showing.
      [200, asked.threadId, false, 'is running Bash'],
      // 130 s after the last refresh: Slack had dropped it.
      [200, asked.threadId, false, null],
      [200, asked.threadId, false, 'is running Bash'],
    ]);
    expect(statusCalls(kit).at(-1)?.details).toMatchObject({ status: '', cleared: true });
  });

  it('clears the status when the app replies in the thread', async () => {
    kit = await startKit();
    const asked = await personPosts(kit.emulator, { space: CHANNEL, text: 'hi' });
    await kit.client.assistant.threads.setStatus({
      channel_id: CHANNEL,
      thread_ts: asked.threadId,
      status: 'is thinking',
    });
    await kit.client.chat.postMessage({ channel: CHANNEL, thread_ts: asked.threadId, text: 'answer' });
    await kit.client.assistant.threads.setStatus({
      channel_id: CHANNEL,
      thread_ts: asked.threadId,
      status: 'is thinking',
    });
    expect(statusCalls(kit).map((call) => call.details?.previous)).toEqual([null, null]);
  });

  it('answers bad arguments as Slack words them', async () => {
    kit = await startKit();
    const asked = await personPosts(kit.emulator, { space: CHANNEL, text: 'hi' });
    const { client } = kit;
    expect(
      await errorCodeOf(
        client.apiCall('assistant.threads.setStatus', { thread_ts: asked.threadId, status: 'x' }),
      ),
    ).toBe('invalid_arguments');
    expect(
      await errorCodeOf(
        client.assistant.threads.setStatus({ channel_id: 'nope', thread_ts: asked.threadId, status: 'x' }),
      ),
    ).toBe('channel_not_found');
    expect(
      await errorCodeOf(
        client.assistant.threads.setStatus({ channel_id: CHANNEL, thread_ts: 'soon', status: 'x' }),
      ),
    ).toBe('invalid_thread_ts');
    expect(
      await errorCodeOf(
        client.assistant.threads.setStatus({ channel_id: CHANNEL, thread_ts: '1.000001', status: 'x' }),
      ),
    ).toBe('thread_not_found');
    expect(
      await errorCodeOf(
        client.assistant.threads.setStatus({
          channel_id: CHANNEL,
          thread_ts: asked.threadId,
          status: 'x',
          loading_messages: Array.from({ length: 11 }, (_, i) => `step ${i}`),
        }),
      ),
    ).toBe('invalid_arguments');
  });

  it.each(['missing_scope', 'not_allowed', 'method_deprecated', 'feature_not_enabled'] as const)(
    'in a workspace without the feature answers %s to every call',
    async (code) => {
      kit = await startKit({ assistantStatus: code });
      const asked = await personPosts(kit.emulator, { space: CHANNEL, text: 'hi' });
      for (let attempt = 0; attempt < 2; attempt += 1) {
        expect(
          await errorCodeOf(
            kit.client.assistant.threads.setStatus({
              channel_id: CHANNEL,
              thread_ts: asked.threadId,
              status: 'x',
            }),
          ),
        ).toBe(code);
      }
    },
  );

  it('counts its own per-app bucket (Tier 3, 50 a minute), apart from the other methods', async () => {
    kit = await startKit();
    const asked = await personPosts(kit.emulator, { space: CHANNEL, text: 'hi' });
    for (let call = 0; call < 50; call += 1) {
      await kit.client.assistant.threads.setStatus({
        channel_id: CHANNEL,
        thread_ts: asked.threadId,
        status: `step ${call}`,
      });
    }
    const refused = await rejectionOf(
      kit.client.assistant.threads.setStatus({
        channel_id: CHANNEL,
        thread_ts: asked.threadId,
        status: 'one more',
      }),
    );
    expect(refused).toBeInstanceOf(WebAPIRateLimitedError);
    expect((refused as WebAPIRateLimitedError).retryAfter).toBeGreaterThan(0);
    await expect(kit.client.conversations.info({ channel: CHANNEL })).resolves.toMatchObject({ ok: true });
    await expect(kit.client.auth.test()).resolves.toMatchObject({ ok: true });
  });
});
