/**
 * Google Chat end to end (googleapis against the emulator): a click on a
 * policy or question card edits the card, through the API, to show who
 * decided and no buttons; a second click changes nothing.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ClickIntake } from '../../../src/actions/types.js';
import { type GchatE2E, SPACE, startGchatE2E } from './harness.js';

let e: GchatE2E;
afterEach(async () => {
  await e.stop();
});

const click = (messageId: string, action: string, name = 'Alice', n = 1): ClickIntake => ({
  kind: 'click',
  space: SPACE,
  messageId,
  action,
  user: { id: `users/${name}`, name },
  at: 0,
  dedupeKey: `k${n}`,
});

async function cardPosted(event: Record<string, unknown>) {
  e = await startGchatE2E();
  await e.userMessage('u1');
  e.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1' });
  e.send(event);
  await e.advance(1500);
  const card = e.messages().find((m) => (m.buttons ?? []).length > 0);
  if (!card) throw new Error('no card');
  return card.id;
}

describe('gchat E2E: clicks on cards', () => {
  it('Approve: the card shows "✅ approved by Alice" and has no buttons left', async () => {
    const id = await cardPosted({ type: 'policy_request', turnId: 'T1', requestId: 'p1', command: 'deploy' });
    expect(await e.runtime.receive(click(id, 'approve'))).toMatchObject({ status: 'accepted' });
    await e.advance(1500);
    const card = e.messages().find((m) => m.id === id);
    expect(card?.buttons ?? []).toEqual([]);
    expect(card?.card?.text).toContain('✅ approved by Alice');
    expect(await e.runtime.receive(click(id, 'reject', 'Bob', 2))).toEqual({
      status: 'already-decided',
      text: 'Already approved by Alice.',
    });
    await e.advance(1500);
    expect(e.updates().filter((u) => u.messageId === id)).toHaveLength(1);
  });

  it('a question: the card shows the chosen option’s selectedLabel and who chose it', async () => {
    const id = await cardPosted({
      type: 'question',
      turnId: 'T1',
      questionId: 'q1',
      question: 'Which way?',
      options: ['Left', { label: 'Right', selectedLabel: '➡️ Going right' }],
    });
    await e.runtime.receive(click(id, 'answer:1', 'Carol'));
    await e.advance(1500);
    const card = e.messages().find((m) => m.id === id);
    expect(card?.buttons ?? []).toEqual([]);
    expect(card?.card?.text).toContain('➡️ Going right — chosen by Carol');
  });
});
