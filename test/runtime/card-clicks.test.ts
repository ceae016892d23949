/**
 * Clicks through the runtime (Runtime.receive) on the memory surface: a card
 * posted by a space is registered, the first click edits it (through the
 * budget) to show who decided and loses its buttons, a later click is told,
 * a deleted card leaves a warning, and the claim survives a restart.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { ClickIntake } from '../../src/actions/types.js';
import { createSqliteStore } from '../../src/store/sqlite.js';
import type { FrameCard } from '../../src/surfaces/frame.js';
import { createMemorySurface } from '../../src/testing/memory-surface.js';
import { type Harness, SPACE, startRuntime } from './runtime.helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'turnlog-card-clicks-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let h: Harness | undefined;
afterEach(async () => {
  await h?.runtime.stop();
  h = undefined;
});

const ALICE = { id: 'users/1', name: 'Alice' };
const BOB = { id: 'users/2', name: 'Bob' };

const click = (messageId: string, action: string, user = ALICE, n = 1): ClickIntake => ({
  kind: 'click',
  space: SPACE,
  messageId,
  action,
  user,
  at: 0,
  dedupeKey: `k${n}`,
});

async function withCard(harness: Harness, event: Record<string, unknown>) {
  harness.userMessage('u1');
  harness.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1' });
  harness.send(event);
  await harness.advance(2000);
  const message = harness.surface
    .messages(SPACE)
    .find((m) => (m.buttons ?? []).length > 0 || cardOf(harness, m.id));
  if (!message) throw new Error('no card was posted');
  return message.id;
}

const cardOf = (harness: Harness, messageId: string): FrameCard | undefined => {
  const frame = harness.surface.frameOf(messageId);
  return frame?.kind === 'card' ? frame.card : undefined;
};

const POLICY = {
  type: 'policy_request',
  turnId: 'T1',
  requestId: 'p1',
  command: 'rm',
  args: ['-rf', 'build'],
};
const QUESTION = {
  type: 'question',
  turnId: 'T1',
  questionId: 'q1',
  question: 'How?',
  options: ['Skip it', { label: 'Fix', selectedLabel: '✅ Fixing', value: 'fix' }],
};

describe('clicks on cards through the runtime', () => {
  it('Approve: accepted, and the card is edited to show who approved, without buttons', async () => {
    h = await startRuntime();
    const id = await withCard(h, POLICY);
    expect(cardOf(h, id)?.actions.map((a) => a.id)).toEqual(['approve', 'reject']);
    expect(await h.runtime.receive(click(id, 'approve'))).toMatchObject({
      status: 'accepted',
      text: '✅ approved by Alice',
      action: { type: 'decision', requestId: 'p1', decision: 'approved', user: { name: 'Alice' } },
    });
    await h.advance(2000);
    expect(cardOf(h, id)).toMatchObject({ kind: 'policy', actions: [], outcome: '✅ approved by Alice' });
    expect(h.surface.messages(SPACE).find((m) => m.id === id)?.text).toContain('✅ approved by Alice');
  });

  it('a second click (another person, or the same one again) is told, and the card is edited once', async () => {
    h = await startRuntime();
    const id = await withCard(h, POLICY);
    await h.runtime.receive(click(id, 'approve'));
    expect(await h.runtime.receive(click(id, 'reject', BOB, 2))).toEqual({
      status: 'already-decided',
      text: 'Already approved by Alice.',
    });
    expect(await h.runtime.receive(click(id, 'approve', ALICE, 3))).toMatchObject({
      status: 'already-decided',
    });
    await h.advance(2000);
    const edits = h.surface.calls.filter((c) => c.method === 'PATCH' && c.path.endsWith(id));
    expect(edits).toHaveLength(1);
  });

  it('a question: the chosen option’s selectedLabel and who chose replace the buttons', async () => {
    h = await startRuntime();
    const id = await withCard(h, QUESTION);
    expect(cardOf(h, id)).toMatchObject({
      kind: 'question',
      id: 'q1',
      body: 'How?',
      actions: [
        { id: 'answer:0', label: 'Skip it' },
        { id: 'answer:1', label: 'Fix' },
      ],
    });
    expect(await h.runtime.receive(click(id, 'answer:1'))).toMatchObject({ status: 'accepted' });
    await h.advance(2000);
    expect(cardOf(h, id)).toMatchObject({ actions: [], outcome: '✅ Fixing — chosen by Alice' });
  });

  it('an unknown message is refused with a reason', async () => {
    h = await startRuntime();
    expect(await h.runtime.receive(click('spaces/AAAA/messages/nope', 'approve'))).toMatchObject({
      status: 'unknown',
      text: expect.stringContaining('does not know message spaces/AAAA/messages/nope'),
    });
  });

  it('a card deleted before the click: the decision still counts, the edit’s 404 leaves a warning only', async () => {
    h = await startRuntime();
    const id = await withCard(h, POLICY);
    h.surface.deleteMessage(id);
    expect(await h.runtime.receive(click(id, 'approve'))).toMatchObject({ status: 'accepted' });
    await h.advance(2000);
    expect(h.warnings).toContain(`policy card outcome not shown: message ${id} was deleted`);
    expect(await h.store.deadLetters()).toEqual([]);
  });

  it('the claim survives a restart: a click after it is told who decided', async () => {
    const path = join(dir, 'restart.db');
    const surface = createMemorySurface({ platform: 'gchat' });
    const first = await startRuntime({ store: createSqliteStore({ path }), surface });
    const id = await withCard(first, POLICY);
    await first.runtime.receive(click(id, 'reject'));
    await first.advance(2000);
    await first.runtime.stop();
    await first.store.close();
    h = await startRuntime({ store: createSqliteStore({ path }), surface });
    expect(await h.runtime.receive(click(id, 'approve', BOB, 2))).toEqual({
      status: 'already-decided',
      text: 'Already rejected by Alice.',
    });
  });
});
