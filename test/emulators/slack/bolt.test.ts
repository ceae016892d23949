// spec: issue "Loopback emulators" — the official @slack/bolt App posts through the emulator unmodified:
// `new App({token, clientOptions: {slackApiUrl}})` learns its bot ids from auth.test and `say()` lands in the thread.
import { App, type Receiver } from '@slack/bolt';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { personPosts, type SlackKit, silentLogger, startKit, TOKEN } from './slack-test-kit.js';

const CHANNEL = 'C0BOLT0001';

/** Events are handed to the app directly (`app.processEvent`): no HTTP listener, no signing secret. */
const directReceiver: Receiver = {
  init: () => {},
  start: async () => undefined,
  stop: async () => undefined,
};

let kit: SlackKit;

beforeEach(async () => {
  kit = await startKit();
});

afterEach(async () => {
  await kit.emulator.close();
});

describe('Slack emulator through @slack/bolt', () => {
  it('answers a person’s message with say() in its thread, as the token’s bot user', async () => {
    const app = new App({
      token: TOKEN,
      receiver: directReceiver,
      logger: silentLogger,
      deferInitialization: true,
      clientOptions: {
        slackApiUrl: `${kit.emulator.url}/api/`,
        rejectRateLimitedCalls: true,
        retryConfig: { retries: 0 },
      },
    });
    await app.init();
    let replyAuthor: string | undefined;
    app.message(async ({ message, say }) => {
      if (message.subtype !== undefined) return;
      const sent = await say({ text: `echo: ${message.text}`, thread_ts: message.ts });
      replyAuthor = sent.message?.user;
    });

    const asked = await personPosts(kit.emulator, { space: CHANNEL, text: 'ping' });
    await app.processEvent({
      body: {
        type: 'event_callback',
        team_id: 'T0EMULATED',
        event_id: 'Ev0000000001',
        event_time: 1_700_000_000,
        event: {
          type: 'message',
          channel: CHANNEL,
          channel_type: 'channel',
          user: 'U0PERSON01',
          text: 'ping',
          ts: asked.messageId,
          event_ts: asked.messageId,
        },
      },
      ack: async () => {},
    });

    const auth = await app.client.auth.test({ token: TOKEN });
    expect(kit.emulator.state.calls().map((call) => [call.path, call.status])).toEqual([
      ['/api/auth.test', 200],
      ['/_emulator/inbound', 200],
      ['/api/chat.postMessage', 200],
      ['/api/auth.test', 200],
    ]);
    expect(kit.emulator.state.messages(CHANNEL)).toEqual([
      expect.objectContaining({ id: asked.messageId, thread: null, text: 'ping' }),
      expect.objectContaining({ thread: asked.messageId, text: 'echo: ping' }),
    ]);
    expect(auth.user_id).toMatch(/^U[0-9A-F]{10}$/);
    expect(replyAuthor).toBe(auth.user_id);
  });
});
