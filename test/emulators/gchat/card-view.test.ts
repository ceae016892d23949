/**
 * A card is not an empty message: `GET /_emulator/messages` shows a
 * cardsV2 message's title, text, buttons as `[{action, label}]` and its
 * fallback text — here turnlog's own approval card, posted and edited
 * through googleapis.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { messageAsText } from '../../../src/emulators/core/index.js';
import { renderGchatCard } from '../../../src/platforms/gchat/render.js';
import type { FrameCard } from '../../../src/surfaces/frame.js';
import { type GchatHarness, startHarness } from './gchat-harness.js';

const SPACE = 'spaces/AAAA';
const card: FrameCard = {
  kind: 'policy',
  id: 'p1',
  title: 'Run a migration?',
  body: 'psql -c CREATE INDEX i',
  actions: [
    { id: 'approve', label: 'Approve', style: 'primary' },
    { id: 'reject', label: 'Reject', style: 'danger' },
  ],
};

let h: GchatHarness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await h.close();
});

describe('gchat emulator: what a person sees of a card', () => {
  it('shows the title, the text, the buttons and the fallback text of a cardsV2 message', async () => {
    const { data } = await h.chat.spaces.messages.create({
      parent: SPACE,
      requestBody: { cardsV2: renderGchatCard(card), fallbackText: 'Approval requested: psql' },
    });
    const [message] = h.emulator.state.messages(SPACE);
    expect(message).toMatchObject({
      id: data.name,
      text: '',
      card: { title: 'Run a migration?', text: expect.stringContaining('CREATE INDEX i') },
      buttons: [
        { action: 'approve', label: 'Approve' },
        { action: 'reject', label: 'Reject' },
      ],
      fallbackText: 'Approval requested: psql',
    });
    expect(message?.card?.text.split('\n')).toContain('Approval requested');
    expect(message?.card?.text).toContain('Request: p1');
    const text = messageAsText(message!);
    expect(text).toContain('Run a migration?');
    expect(text).toContain('[Approve] [Reject]');
  });

  it('the inspection API serves the same view; an edit of the cards shows the new ones', async () => {
    const { data } = await h.chat.spaces.messages.create({
      parent: SPACE,
      requestBody: { cardsV2: renderGchatCard(card) },
    });
    await h.chat.spaces.messages.patch({
      name: data.name!,
      updateMask: 'cardsV2',
      requestBody: { cardsV2: renderGchatCard({ ...card, title: 'Decided' }) },
    });
    const response = await fetch(`${h.emulator.url}/_emulator/messages?space=${SPACE}`);
    const { messages } = (await response.json()) as { messages: Record<string, unknown>[] };
    expect(messages[0]).toMatchObject({ edits: 1, card: { title: 'Decided' } });
    expect(messages[0]?.buttons).toHaveLength(2);
  });

  it('a text-only message has no card, buttons or fallback fields', async () => {
    await h.chat.spaces.messages.create({ parent: SPACE, requestBody: { text: 'hello' } });
    expect(Object.keys(h.emulator.state.messages(SPACE)[0]!)).toEqual([
      'id',
      'thread',
      'text',
      'createdAt',
      'updatedAt',
      'edits',
      'deleted',
      'reactions',
    ]);
  });
});
