// spec: issue 13 item 5 — the ChannelAdapter API of the channel-adapter seed, tested as a Paraclaw-style host
// uses it: turnlog serve on the Slack emulator (signed events in, @slack/web-api out), the host's setup with
// its conversations and trigger, people's messages and answers through onInbound, and deliver's operations
// (post, edit, reaction, card, ask_question) landing in the person's thread — while the activity log of the
// same turn still comes from run events.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ChannelDeliveryError, createChannelAdapter } from '../../src/adapter/channel-adapter.js';
import type { ChannelAdapter, InboundMessage } from '../../src/adapter/types.js';
import { startServe } from '../../src/serve/index.js';
import { createServeLogger } from '../../src/serve/logger.js';
import { createMemoryStore } from '../../src/store/memory.js';
import { PLATFORM_SETUPS } from '../e2e/two-way/platforms.js';

const TOKEN = 'adapter-ingest-token-0123456789';
const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function startHost() {
  const setup = PLATFORM_SETUPS.find((s) => s.id === 'slack');
  if (!setup) throw new Error('no slack setup');
  const platform = await setup.start();
  cleanups.push(() => platform.close());
  const serve = await startServe({
    config: {
      ingest: { port: 0, token: TOKEN },
      platforms: platform.config,
      visibility: { threadLog: { editDebounceMs: 100 } },
    },
    store: createMemoryStore(),
    logger: createServeLogger('silent'),
  });
  cleanups.push(() => serve.close());
  await platform.connect(serve.url);
  const space = `slack:${platform.space}`;
  const inbound: { platformId: string; threadId: string | null; message: InboundMessage }[] = [];
  const metadata: { platformId: string; isGroup: boolean | undefined }[] = [];
  const adapter: ChannelAdapter = createChannelAdapter('slack', { runtime: serve.runtime });
  cleanups.push(() => adapter.teardown());
  await adapter.setup({
    conversations: [
      {
        platformId: space,
        agentGroupId: 'main',
        requiresTrigger: true,
        triggerPattern: '^@agent\\b',
        sessionMode: 'per-thread',
      },
    ],
    onInbound: (platformId, threadId, message) => inbound.push({ platformId, threadId, message }),
    onMetadata: (platformId, _name, isGroup) => metadata.push({ platformId, isGroup }),
  });
  const waitFor = <T>(read: () => T | undefined, what: string) =>
    vi.waitFor(
      () => {
        const value = read();
        if (value === undefined) throw new Error(`no ${what} yet`);
        return value;
      },
      { timeout: 20_000, interval: 50 },
    );
  return { platform, serve, space, adapter, inbound, metadata, waitFor };
}

describe('createChannelAdapter over turnlog serve (Slack)', () => {
  it('hands the host triggered messages and answers, and delivers posts, edits, reactions and questions', async () => {
    const { platform, serve, space, adapter, inbound, metadata, waitFor } = await startHost();
    expect(adapter.isConnected()).toBe(true);

    // Without the trigger a message is not the host's; with it, it is, with who said it.
    await platform.personPosts('just chatting');
    const asked = await platform.personPosts('@agent deploy the site');
    const message = await waitFor(
      () => inbound.find((m) => m.message.content.text.startsWith('@agent')),
      'message',
    );
    expect(message).toMatchObject({
      platformId: space,
      message: {
        kind: 'chat',
        content: { text: '@agent deploy the site', isFromMe: false, messageId: asked.messageId },
      },
    });
    expect(inbound.filter((m) => m.message.content.text === 'just chatting')).toEqual([]);
    expect(metadata).toEqual([{ platformId: space, isGroup: true }]);

    // The host's turn: the activity log still comes from run events, threaded on the person's message.
    const events = [
      { type: 'turn_started', turnId: 'H1', rootRef: message.message.id },
      { type: 'tool_call', turnId: 'H1', callId: 'c1', tool: 'Bash', input: { command: 'npm run deploy' } },
    ];
    const res = await fetch(`${serve.url}/v1/events`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/x-ndjson' },
      body: events.map((e) => JSON.stringify({ space, ...e })).join('\n'),
    });
    expect(res.status).toBe(202);

    // deliver: a post in the thread (a secret in it never reaches Slack), then its edit and a reaction.
    const thread = asked.threadId;
    await adapter.deliver(space, thread, {
      kind: 'chat',
      content: { id: 'host-1', text: 'Deploying with token ghp_0123456789abcdefghijABCDEFGHIJ012345' },
    });
    await adapter.deliver(space, thread, {
      kind: 'chat',
      content: { operation: 'edit', messageId: 'host-1', text: 'Deployed.' },
    });
    await adapter.deliver(space, thread, {
      kind: 'chat',
      content: { operation: 'reaction', messageId: 'host-1', emoji: 'white_check_mark' },
    });
    const messages = await platform.messages();
    const posted = messages.find((m) => m.text === 'Deployed.');
    expect(posted?.thread).toBe(thread);
    expect(posted?.edits).toBe(1);
    expect(JSON.stringify(messages)).not.toContain('ghp_0123456789');

    // ask_question: a card in the thread; the person's choice reaches the host with the option's value.
    await adapter.deliver(space, thread, {
      kind: 'chat',
      content: {
        operation: 'ask_question',
        questionId: 'q-1',
        title: 'Failing test',
        question: 'How should we handle the failing test?',
        options: ['Skip it', { label: 'Fix and retry', selectedLabel: '✅ Fixing', value: 'fix' }],
      },
    });
    // deliver resolves once the card landed.
    const question = (await platform.messages()).find(
      (m) => (m.buttons?.length ?? 0) > 0 && m.text.includes('failing test'),
    );
    expect(question?.thread).toBe(thread);
    expect((await platform.click(question?.id ?? '', 'answer:1', 'alice')).delivered).toBe(true);
    const answer = await waitFor(() => inbound.find((m) => m.message.content.questionId === 'q-1'), 'answer');
    // The turn's activity log lives in the same thread, from the run events.
    await vi.waitFor(
      async () => {
        const log = (await platform.messages()).find((m) => m.thread === thread && m.text.includes('Bash'));
        expect(log?.text).toContain('npm run deploy');
      },
      { timeout: 20_000, interval: 50 },
    );
    expect(answer.message.content).toMatchObject({
      text: 'Fix and retry',
      selectedOption: 'Fix and retry',
      value: 'fix',
    });
  });

  it('refuses what it cannot deliver, naming what is wrong', async () => {
    const { space, adapter } = await startHost();
    await expect(
      adapter.deliver('gchat:spaces/AAAA', null, { kind: 'chat', content: { text: 'x' } }),
    ).rejects.toThrow(/not a slack space/);
    await expect(adapter.deliver(space, null, { kind: 'chat', content: {} })).rejects.toThrow(
      ChannelDeliveryError,
    );
    await expect(
      adapter.deliver(space, null, { kind: 'chat', content: { operation: 'explode' } }),
    ).rejects.toThrow(/unknown operation "explode"/);
    await expect(
      adapter.deliver(space, null, { kind: 'chat', content: { action: 'reset_session', payload: {} } }),
    ).rejects.toThrow(/host's to handle/);
    await expect(
      adapter.deliver(space, null, {
        kind: 'chat',
        content: { operation: 'ask_question', questionId: 'q', question: 'Q?', options: [] },
      }),
    ).rejects.toThrow(/"options" must be a non-empty array/);
  });
});
