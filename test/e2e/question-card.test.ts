/**
 * A `question` event becomes a card in the turn's thread with one button per
 * option, on each platform through its official client and emulator
 * (docs/events.md `question`); `GET /_emulator/messages` lists the buttons
 * by the action id a click sends back (`answer:<index>`).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { EmulatedMessage } from '../../src/emulators/types.js';
import { startDiscordE2E } from './discord/harness.js';
import { startGchatE2E } from './gchat/harness.js';
import { startSlackE2E } from './slack/harness.js';

const QUESTION = {
  type: 'question',
  turnId: 'T1',
  questionId: 'q-123',
  title: 'Failing Test',
  question: 'How should we handle the failing test? <!channel> @everyone <users/all>',
  options: [
    'Skip it',
    { label: 'Fix and retry', selectedLabel: '✅ Fixing', value: 'fix' },
    { label: 'Abort deployment', selectedLabel: '❌ Aborted', value: 'abort' },
  ],
};

const BUTTONS = [
  { action: 'answer:0', label: 'Skip it' },
  { action: 'answer:1', label: 'Fix and retry' },
  { action: 'answer:2', label: 'Abort deployment' },
];

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

const cardIn = (messages: EmulatedMessage[]) => messages.find((m) => (m.buttons ?? []).length > 0);

describe('question card', () => {
  it('Google Chat: a card in the thread, a button per option, mentions inert', async () => {
    const e = await startGchatE2E();
    stops.push(() => e.stop());
    const root = await e.userMessage('u1');
    e.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1' });
    e.send(QUESTION);
    await e.advance(1500);
    const card = cardIn(e.messages());
    expect(card?.thread).toBe(root.threadId);
    expect(card?.buttons).toEqual(BUTTONS);
    expect(e.calls().every((c) => c.mentions.length === 0)).toBe(true);
  });

  it('Slack: an actions block with a button per option', async () => {
    const e = await startSlackE2E();
    stops.push(() => e.stop());
    const root = await e.userMessage('u1');
    e.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1' });
    e.send(QUESTION);
    await e.advance(1500);
    const card = cardIn(e.messages());
    expect(card?.thread).toBe(root.messageId);
    expect(card?.buttons).toEqual(BUTTONS);
    expect(e.calls().every((c) => c.mentions.length === 0)).toBe(true);
  });

  it('Discord: an action row with a button per option, in the turn thread', async () => {
    const e = await startDiscordE2E();
    stops.push(() => e.stop());
    const root = await e.userMessage('u1');
    e.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1' });
    e.send({ type: 'note', turnId: 'T1', text: 'looking' });
    await e.advance(1500);
    e.send(QUESTION);
    await e.advance(1500);
    const card = cardIn(e.thread(root.messageId));
    expect(card?.buttons).toEqual(BUTTONS);
    expect(e.calls().every((c) => c.mentions.length === 0)).toBe(true);
  });
});
