// Issue 22 ("Also fix, smaller"): "A proactive turn's approval card goes top-level and notifies the channel,
// although the header's thread and its log exist. Post it in that thread." A turn with a title and no root posts
// its `🕒 <title>` header top-level and threads its log under it; its policy card now goes in that thread too.
import { afterEach, describe, expect, it } from 'vitest';
import type { EmulatorServer } from '../../src/emulators/core/index.js';
import type { RecordedCall } from '../../src/emulators/types.js';
import { startGchatE2E } from './gchat/harness.js';
import type { E2EBasics } from './shared/platform-e2e.js';
import { startSlackE2E } from './slack/harness.js';

type Harness = E2EBasics<EmulatorServer> & { advance(ms: number): Promise<void> };

const PLATFORMS: { id: string; start: () => Promise<Harness> }[] = [
  { id: 'gchat', start: () => startGchatE2E() },
  { id: 'slack', start: () => startSlackE2E() },
];

let e: Harness | undefined;
afterEach(async () => {
  await e?.stop();
  e = undefined;
});

const landed = (c: RecordedCall) => c.status < 300 && c.details?.error === undefined;

describe.each(PLATFORMS)('$id E2E: a proactive turn’s approval card goes in its thread', ({ start }) => {
  it('the header starts the thread; the log and the policy card are posted in it', async () => {
    e = await start();
    e.send({ type: 'turn_started', turnId: 'J1', title: 'Nightly cleanup' });
    e.send({ type: 'tool_call', turnId: 'J1', callId: 'c1', tool: 'Bash', input: { command: 'ls' } });
    await e.advance(3000);
    e.send({ type: 'policy_request', turnId: 'J1', requestId: 'p1', command: 'rm', args: ['-rf', '/tmp/x'] });
    await e.advance(3000);
    const creates = e.creates().filter(landed);
    const header = creates.find((c) => (c.text ?? '').includes('Nightly cleanup') && c.thread === null);
    expect(header).toBeDefined();
    // Google Chat records a card's cardsV2 in details; Slack its text.
    const card = creates.find((c) => c.details?.cards === 1 || (c.text ?? '').includes('rm -rf /tmp/x'));
    expect(card).toBeDefined();
    expect(card?.thread).not.toBeNull();
    expect(card?.thread).toBe(creates.find((c) => c !== header && c !== card)?.thread);
  });
});
