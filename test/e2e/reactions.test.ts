/**
 * Issue 26 item 1 on all three platforms, through the official clients and
 * the emulators: the person's message gets 👀 while the turn runs and ✅ /
 * ❌ / ⏹️ after (the 👀 removed), as a person sees it in
 * `/_emulator/messages`; a root the app may not react to (403) is a warning,
 * not a failure (the log and the answer still land); `visibility.reactions:
 * false` leaves the message alone.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { EmulatedMessage, RecordedCall } from '../../src/emulators/types.js';
import { startDiscordE2E } from './discord/harness.js';
import { startGchatE2E } from './gchat/harness.js';
import { startSlackE2E } from './slack/harness.js';

interface Harness {
  surface: import('../../src/surfaces/surface.js').ChatSurface;
  send(event: Record<string, unknown>, space?: string): void;
  userMessage(ref: string): Promise<{ messageId: string; threadId: string }>;
  advance(ms: number): Promise<void>;
  calls(): RecordedCall[];
  faults(rules: unknown[]): Promise<unknown>;
  warnings: string[];
  rootOf(messageId: string): EmulatedMessage | undefined;
  stop(): Promise<void>;
}

type Start = (config?: Record<string, unknown>) => Promise<Harness>;

const PLATFORMS: Record<string, Start> = {
  gchat: async (config) => {
    const e = await startGchatE2E(config ? { config } : {});
    return Object.assign(e, {
      faults: (rules: unknown[]) => e.emulatorCall('faults', { rules }),
      rootOf: (id: string) => e.messages().find((m) => m.id === id),
    }) as unknown as Harness;
  },
  slack: async (config) => {
    const e = await startSlackE2E(config ? { config } : {});
    return Object.assign(e, {
      faults: (rules: unknown[]) => e.emulatorCall('faults', { rules }),
      rootOf: (id: string) => e.messages().find((m) => m.id === id),
    }) as unknown as Harness;
  },
  discord: async (config) => {
    const e = await startDiscordE2E(config ? { config } : {});
    return Object.assign(e, {
      rootOf: (id: string) => e.messages().find((m) => m.id === id),
    }) as unknown as Harness;
  },
};

let e: Harness | undefined;
afterEach(async () => {
  await e?.stop();
  e = undefined;
});

const emojiOn = (message: EmulatedMessage | undefined) => (message?.reactions ?? []).map((r) => r.emoji);
const reactionCalls = (calls: RecordedCall[]) => calls.filter((c) => c.op === 'reaction');

describe.each(Object.keys(PLATFORMS))('%s: reactions on the turn root', (platform) => {
  const start = PLATFORMS[platform]!;

  it.each([
    ['ok', '✅'],
    ['error', '❌'],
    ['stopped', '⏹️'],
  ])('👀 while the turn runs, then %s shows %s and the 👀 is gone', async (outcome, final) => {
    e = await start();
    const root = await e.userMessage('u1');
    e.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1' });
    await e.advance(500);
    expect(emojiOn(e.rootOf(root.messageId))).toEqual(['👀']);
    e.send({ type: 'tool_call', turnId: 'T1', callId: 'c1', tool: 'Read', input: { path: 'a.ts' } });
    await e.advance(2000);
    expect(emojiOn(e.rootOf(root.messageId))).toEqual(['👀']);
    e.send({ type: 'answer', turnId: 'T1', text: 'Done.' });
    e.send({ type: 'turn_ended', turnId: 'T1', outcome });
    await e.advance(5000);
    expect(emojiOn(e.rootOf(root.messageId))).toEqual([final]);
    // A reaction notifies no one.
    expect(reactionCalls(e.calls()).every((c) => c.notifies === false)).toBe(true);
    expect(reactionCalls(e.calls()).filter((c) => c.status < 300)).toHaveLength(3);
  });

  it('a root the app may not react to (403) is a warning: the log and the answer still land', async () => {
    e = await start();
    const root = await e.userMessage('u1');
    await e.faults([{ op: 'reaction', status: 403 }]);
    e.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1' });
    e.send({ type: 'tool_call', turnId: 'T1', callId: 'c1', tool: 'Read', input: { path: 'a.ts' } });
    e.send({ type: 'answer', turnId: 'T1', text: 'Done.' });
    e.send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' });
    await e.advance(5000);
    expect(emojiOn(e.rootOf(root.messageId))).toEqual([]);
    expect(e.warnings.some((w) => /could not add 👀/.test(w))).toBe(true);
    const writes = e.calls().filter((c) => (c.op === 'create' || c.op === 'update') && c.status < 300);
    expect(writes.some((c) => c.text?.includes('Done.'))).toBe(true);
  });

  it("the surface's reactions: adding one already there and removing one not there both succeed", async () => {
    e = await start({ visibility: { reactions: false } });
    const root = await e.userMessage('u1');
    const space = {
      gchat: 'gchat:spaces/AAAA',
      slack: 'slack:C0E2ESLACK',
      discord: 'discord:1800000000000000001',
    }[platform]!;
    const reactions = e.surface.reactions!;
    const req = { space, messageId: root.messageId, emoji: '👀' };
    await reactions.add(req);
    await reactions.add(req);
    expect(emojiOn(e.rootOf(root.messageId))).toEqual(['👀']);
    await reactions.remove(req);
    await reactions.remove(req);
    expect(emojiOn(e.rootOf(root.messageId))).toEqual([]);
  });

  it('visibility.reactions: false leaves the message alone', async () => {
    e = await start({ visibility: { reactions: false } });
    const root = await e.userMessage('u1');
    e.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1' });
    e.send({ type: 'turn_ended', turnId: 'T1', outcome: 'ok' });
    await e.advance(3000);
    expect(emojiOn(e.rootOf(root.messageId))).toEqual([]);
    expect(reactionCalls(e.calls())).toEqual([]);
  });
});
