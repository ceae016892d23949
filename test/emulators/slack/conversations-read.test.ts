// Issue 22.6: the Slack emulator has conversations.replies and conversations.history as Slack has them
// (https://docs.slack.dev/reference/methods/conversations.replies, …/conversations.history), with message
// metadata (`event_type`, `event_payload`) returned only with `include_all_metadata`, so an uncertain post can be
// found again by the client id in its metadata. Through the official WebClient.
import type { WebAPIPlatformError } from '@slack/web-api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { rejectionOf, type SlackKit, startKit } from './slack-test-kit.js';

const CHANNEL = 'C0TURNLOG1';
const metadata = (clientId: string) => ({
  event_type: 'turnlog_message',
  event_payload: { client_id: clientId },
});

let kit: SlackKit;
beforeEach(async () => {
  kit = await startKit();
});
afterEach(async () => {
  await kit.emulator.close();
});

describe('Slack emulator: conversations.replies and conversations.history', () => {
  it('replies: the parent and its replies oldest first, metadata only with include_all_metadata', async () => {
    const root = await kit.client.chat.postMessage({ channel: CHANNEL, text: 'root' });
    const reply = await kit.client.chat.postMessage({
      channel: CHANNEL,
      text: 'log',
      thread_ts: root.ts!,
      metadata: metadata('T1:1'),
    });
    const plain = await kit.client.conversations.replies({ channel: CHANNEL, ts: root.ts! });
    expect(plain.messages?.map((m) => m.text)).toEqual(['root', 'log']);
    expect(plain.messages?.[1]).not.toHaveProperty('metadata');
    // `ts` may name a reply: the whole thread comes back.
    const full = await kit.client.conversations.replies({
      channel: CHANNEL,
      ts: reply.ts!,
      include_all_metadata: true,
    });
    expect(full.messages?.[1]).toMatchObject({
      ts: reply.ts,
      thread_ts: root.ts,
      metadata: metadata('T1:1'),
    });
  });

  it('history: top-level messages newest first, paged with limit and cursor; deleted ones left out', async () => {
    const posted = [];
    for (const text of ['a', 'b', 'c']) {
      posted.push(await kit.client.chat.postMessage({ channel: CHANNEL, text, metadata: metadata(text) }));
    }
    await kit.client.chat.postMessage({ channel: CHANNEL, text: 'in thread', thread_ts: posted[0]!.ts! });
    await kit.client.chat.delete({ channel: CHANNEL, ts: posted[1]!.ts! });
    const first = await kit.client.conversations.history({
      channel: CHANNEL,
      limit: 1,
      include_all_metadata: true,
    });
    expect(first.messages).toMatchObject([{ text: 'c', metadata: metadata('c') }]);
    expect(first.has_more).toBe(true);
    const rest = await kit.client.conversations.history({
      channel: CHANNEL,
      cursor: first.response_metadata!.next_cursor!,
    });
    expect(rest.messages?.map((m) => m.text)).toEqual(['a']);
    expect(rest.has_more).toBe(false);
  });

  it('refuses what Slack refuses: an unknown thread, malformed metadata', async () => {
    const code = async (promise: Promise<unknown>) =>
      ((await rejectionOf(promise)) as WebAPIPlatformError).data.error;
    expect(await code(kit.client.conversations.replies({ channel: CHANNEL, ts: '1700000099.000000' }))).toBe(
      'thread_not_found',
    );
    expect(
      await code(
        kit.client.chat.postMessage({
          channel: CHANNEL,
          text: 'x',
          metadata: { event_type: 'x' } as unknown as ReturnType<typeof metadata>,
        }),
      ),
    ).toBe('invalid_metadata_format');
  });
});
