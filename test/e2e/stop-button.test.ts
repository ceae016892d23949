/**
 * Stop on the live log on each platform, through its official client and
 * emulator: `GET /_emulator/messages` lists the log's Stop button
 * (`{action: 'stop', label: 'Stop'}`), a click makes the log say
 * `stopping… (asked by <name>)` and the button disappears.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ClickIntake } from '../../src/actions/types.js';
import type { EmulatedMessage } from '../../src/emulators/types.js';
import type { Runtime } from '../../src/runtime.js';
import { startDiscordE2E } from './discord/harness.js';
import { startGchatE2E } from './gchat/harness.js';
import { startSlackE2E } from './slack/harness.js';

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

const config = { visibility: { stopButton: true } };
const STOP = [{ action: 'stop', label: 'Stop' }];

interface Platform {
  runtime: Runtime;
  space: string;
  send(event: Record<string, unknown>): void;
  advance(ms: number): Promise<void>;
  /** The turn's log as a person sees it. */
  log(): EmulatedMessage | undefined;
}

async function scenario(p: Platform) {
  p.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1' });
  p.send({ type: 'tool_call', turnId: 'T1', callId: 'c1', tool: 'Bash', input: { command: 'make' } });
  await p.advance(1500);
  expect(p.log()?.buttons).toEqual(STOP);
  const messageId = p.log()?.id ?? '';
  const click: ClickIntake = {
    kind: 'click',
    space: p.space,
    messageId,
    action: 'stop',
    user: { id: 'u-alice', name: 'Alice' },
    at: 0,
    dedupeKey: 'k1',
  };
  expect(await p.runtime.receive(click)).toMatchObject({ status: 'accepted' });
  await p.advance(1500);
  expect(p.log()?.buttons ?? []).toEqual([]);
  // Discord escapes Markdown in literal text (`\(`): compare without the escapes.
  expect(JSON.stringify(p.log()).replace(/\\/g, '')).toContain('stopping… (asked by Alice)');
}

const logIn = (runtime: Runtime, messages: EmulatedMessage[]) =>
  messages.find((m) => m.id === runtime.turn('T1')?.logMessages[0]?.messageId);

describe('Stop on the live log', () => {
  it('Google Chat: a button card under the log text', async () => {
    const e = await startGchatE2E({ config });
    stops.push(() => e.stop());
    await e.userMessage('u1');
    await scenario({ ...e, space: 'gchat:spaces/AAAA', log: () => logIn(e.runtime, e.messages()) });
  });

  it('Slack: an actions block under the log', async () => {
    const e = await startSlackE2E({ config });
    stops.push(() => e.stop());
    await e.userMessage('u1');
    await scenario({ ...e, space: 'slack:C0E2ESLACK', log: () => logIn(e.runtime, e.messages()) });
  });

  it('Discord: an action row in the log', async () => {
    const e = await startDiscordE2E({ config });
    stops.push(() => e.stop());
    const root = await e.userMessage('u1');
    await scenario({
      ...e,
      space: 'discord:1800000000000000001',
      log: () => logIn(e.runtime, e.thread(root.messageId)),
    });
  });
});
