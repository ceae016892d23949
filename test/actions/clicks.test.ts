/**
 * createClickResolver (src/actions/clicks.ts) over a real store: a click on a
 * registered card becomes the action it means, the first click wins, every
 * later one is told what was decided, and an unknown message or button is
 * refused with a reason.
 */
import { describe, expect, it } from 'vitest';
import { type CardOutcomeEvent, createClickResolver } from '../../src/actions/clicks.js';
import type { ActionUser, ClickIntake } from '../../src/actions/types.js';
import { createMemoryStore } from '../../src/store/memory.js';
import type { CardRecord } from '../../src/store/store.js';
import { policyCard } from '../store/card-registry.contract.js';

const SPACE = 'gchat:spaces/AAAA';
const ALICE = { id: 'users/1', name: 'Alice' };
const BOB = { id: 'users/2', name: 'Bob' };

const question: CardRecord = {
  space: SPACE,
  messageId: 'mq',
  threadId: 'spaces/AAAA/threads/t1',
  turnId: 'T1',
  kind: 'question',
  cardId: 'q-123',
  card: {
    kind: 'question',
    id: 'q-123',
    title: 'Failing Test',
    body: 'How?',
    actions: [
      { id: 'answer:0', label: 'Skip it' },
      { id: 'answer:1', label: 'Fix and retry' },
    ],
  },
  options: [
    { label: 'Skip it', selectedLabel: 'Skip it', value: 'Skip it' },
    { label: 'Fix and retry', selectedLabel: '✅ Fixing', value: 'fix' },
  ],
  postedAt: 1_000,
};

const log: CardRecord = {
  space: SPACE,
  messageId: 'ml',
  turnId: 'T1',
  kind: 'log',
  cardId: 'T1',
  postedAt: 1_000,
};

function setup(
  opts: { live?: boolean; deciders?: Parameters<typeof createClickResolver>[0]['deciders'] } = {},
) {
  const store = createMemoryStore();
  store.registerCard(policyCard('mp'));
  store.registerCard(question);
  store.registerCard(log);
  const outcomes: { space: string; event: CardOutcomeEvent }[] = [];
  const stops: { turnId: string; user: ActionUser }[] = [];
  let now = 5_000;
  const resolve = createClickResolver({
    store,
    now: () => now++,
    showOutcome: (space, event) => outcomes.push({ space, event }),
    isTurnLive: () => opts.live ?? true,
    requestStop: (turnId, user) => stops.push({ turnId, user }),
    ...(opts.deciders ? { deciders: opts.deciders } : {}),
  });
  return { store, outcomes, stops, resolve };
}

const click = (messageId: string, action: string, user: ActionUser = ALICE): ClickIntake => ({
  kind: 'click',
  space: SPACE,
  messageId,
  action,
  user,
  at: 4_000,
  dedupeKey: `${messageId}:${action}:${user.id}`,
});

describe('createClickResolver', () => {
  it('Approve on a policy card: a decision, the card edited to show who approved with no buttons', async () => {
    const { resolve, outcomes } = setup();
    expect(await resolve(click('mp', 'approve'))).toEqual({
      status: 'accepted',
      action: {
        type: 'decision',
        space: SPACE,
        at: 5_000,
        user: ALICE,
        turnId: 'T1',
        requestId: 'p1',
        decision: 'approved',
      },
      text: '✅ approved by Alice',
    });
    expect(outcomes).toEqual([
      {
        space: SPACE,
        event: {
          type: 'space.cardOutcome',
          messageId: 'mp',
          threadId: 'spaces/AAAA/threads/t1',
          card: { ...policyCard('mp').card, actions: [], outcome: '✅ approved by Alice' },
        },
      },
    ]);
  });

  it('Reject: a rejected decision', async () => {
    const { resolve, outcomes } = setup();
    const result = await resolve(click('mp', 'reject', BOB));
    expect(result).toMatchObject({ status: 'accepted', action: { decision: 'rejected', user: BOB } });
    expect(outcomes[0]?.event.card.outcome).toBe('❌ rejected by Bob');
  });

  it('the first click wins: a second person is told who decided what, and nothing else happens', async () => {
    const { resolve, outcomes } = setup();
    await resolve(click('mp', 'approve'));
    expect(await resolve(click('mp', 'reject', BOB))).toEqual({
      status: 'already-decided',
      text: 'Already approved by Alice.',
    });
    expect(outcomes).toHaveLength(1);
  });

  it('a double click by the same person: the second is told it was already decided', async () => {
    const { resolve } = setup();
    const [first, second] = await Promise.all([
      resolve(click('mp', 'approve')),
      resolve(click('mp', 'approve')),
    ]);
    expect([first?.status, second?.status].sort()).toEqual(['accepted', 'already-decided']);
  });

  it('a question option: an answer with its value and label; the card shows the selectedLabel and who chose', async () => {
    const { resolve, outcomes } = setup();
    expect(await resolve(click('mq', 'answer:1'))).toMatchObject({
      status: 'accepted',
      action: { type: 'answer', turnId: 'T1', questionId: 'q-123', value: 'fix', label: 'Fix and retry' },
    });
    expect(outcomes[0]?.event.card).toMatchObject({ actions: [], outcome: '✅ Fixing — chosen by Alice' });
    expect(await resolve(click('mq', 'answer:0', BOB))).toEqual({
      status: 'already-decided',
      text: 'Already answered: Alice chose "✅ Fixing".',
    });
  });

  it('an option given as a plain label answers with the label as value', async () => {
    const { resolve } = setup();
    expect(await resolve(click('mq', 'answer:0'))).toMatchObject({
      action: { type: 'answer', value: 'Skip it', label: 'Skip it' },
    });
  });

  it('Stop on a live log: a stop action and the turn is told who asked', async () => {
    const { resolve, stops, outcomes } = setup();
    expect(await resolve(click('ml', 'stop'))).toMatchObject({
      status: 'accepted',
      action: { type: 'stop', turnId: 'T1', user: ALICE },
    });
    expect(stops).toEqual([{ turnId: 'T1', user: ALICE }]);
    expect(outcomes).toEqual([]);
    expect(await resolve(click('ml', 'stop', BOB))).toEqual({
      status: 'already-decided',
      text: 'Alice already asked this turn to stop.',
    });
    expect(stops).toHaveLength(1);
  });

  // Issue 22.5: a press on any card of an ended turn is told so and makes no action.
  it('Stop, Approve or an option after the turn ended: told so, no action, nothing claimed', async () => {
    const { resolve, stops, store, outcomes } = setup({ live: false });
    for (const [messageId, action] of [
      ['ml', 'stop'],
      ['mp', 'approve'],
      ['mq', 'answer:1'],
    ] as const) {
      expect(await resolve(click(messageId, action))).toEqual({
        status: 'refused',
        text: 'This turn has ended (T1): this button no longer does anything.',
      });
      expect(store.card(SPACE, messageId)).not.toHaveProperty('claim');
    }
    expect(stops).toEqual([]);
    expect(outcomes).toEqual([]);
  });

  // Issue 22.5: the host's turn_ended is enough, also while the turn's actor is still flushing.
  it('a press after turn_ended while the turn still flushes is told it ended', async () => {
    const { resolve, store } = setup({
      deciders: { hasEnded: () => true, mayDecide: async () => ({ allowed: true }) },
    });
    expect(await resolve(click('mp', 'approve'))).toMatchObject({ status: 'refused' });
    expect(store.card(SPACE, 'mp')).not.toHaveProperty('claim');
  });

  // Issue 22.2: a press by someone who may not decide changes no card and claims nothing.
  it('a press by someone who may not decide: refused with the reason, nothing claimed or shown', async () => {
    const { resolve, store, outcomes, stops } = setup({
      deciders: {
        hasEnded: () => false,
        mayDecide: async (_turnId, _space, user) =>
          user.id === ALICE.id ? { allowed: true } : { allowed: false, text: 'not you' },
      },
    });
    expect(await resolve(click('mp', 'approve', BOB))).toEqual({ status: 'refused', text: 'not you' });
    expect(await resolve(click('ml', 'stop', BOB))).toEqual({ status: 'refused', text: 'not you' });
    expect(store.card(SPACE, 'mp')).not.toHaveProperty('claim');
    expect(outcomes).toEqual([]);
    expect(stops).toEqual([]);
    expect(await resolve(click('mp', 'approve', ALICE))).toMatchObject({ status: 'accepted' });
  });

  it('an unknown message or a button the card does not have: unknown, saying why', async () => {
    const { resolve } = setup();
    expect(await resolve(click('nope', 'approve'))).toEqual({
      status: 'unknown',
      text: `turnlog does not know message nope in ${SPACE}: it is not a card or log turnlog posted (or it is too old)`,
    });
    expect(await resolve(click('mp', 'answer:0'))).toEqual({
      status: 'unknown',
      text: 'this policy card has no button "answer:0" (it has: approve, reject)',
    });
    expect(await resolve(click('mq', 'answer:7'))).toEqual({
      status: 'unknown',
      text: 'this question card has no button "answer:7" (it has: answer:0, answer:1)',
    });
    expect(await resolve(click('ml', 'approve'))).toMatchObject({ status: 'unknown' });
  });

  it('a display name is shown without secrets; a missing one falls back to the id', async () => {
    const { resolve, outcomes } = setup();
    await resolve(click('mp', 'approve', { id: 'users/9' }));
    expect(outcomes[0]?.event.card.outcome).toBe('✅ approved by users/9');
  });
});
