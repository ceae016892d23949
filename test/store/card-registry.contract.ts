/**
 * The card registry part of the TurnlogStore contract (src/store/store.ts):
 * a posted card is found by its space and message, the first claim wins
 * (atomically: later claims get the earlier one back), and the oldest cards
 * go first past the bound.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { MemoryStoreLimits } from '../../src/store/memory.js';
import type { CardClaim, CardRecord, TurnlogStore } from '../../src/store/store.js';

export type CardStoreFactory = (limits?: Partial<MemoryStoreLimits>) => TurnlogStore;

const SPACE = 'gchat:spaces/AAAA';

export const policyCard = (messageId: string, extra: Partial<CardRecord> = {}): CardRecord => ({
  space: SPACE,
  messageId,
  threadId: 'spaces/AAAA/threads/t1',
  turnId: 'T1',
  kind: 'policy',
  cardId: 'p1',
  card: {
    kind: 'policy',
    id: 'p1',
    title: 'Approval needed',
    body: 'rm -rf build',
    actions: [
      { id: 'approve', label: 'Approve', style: 'primary' },
      { id: 'reject', label: 'Reject', style: 'danger' },
    ],
  },
  postedAt: 1_000,
  ...extra,
});

const alice: CardClaim = { user: { id: 'users/1', name: 'Alice' }, action: 'approve', at: 2_000 };
const bob: CardClaim = { user: { id: 'users/2', name: 'Bob' }, action: 'reject', at: 2_001 };

export function describeCardRegistryContract(name: string, createStore: CardStoreFactory): void {
  describe(`TurnlogStore contract, card registry: ${name}`, () => {
    const opened: TurnlogStore[] = [];
    const open = (limits?: Partial<MemoryStoreLimits>) => {
      const store = createStore(limits);
      opened.push(store);
      return store;
    };
    afterEach(async () => {
      for (const store of opened.splice(0)) await store.close();
    });

    it('finds a registered card by its space and message; another space or message is unknown', async () => {
      const store = open();
      await store.registerCard(policyCard('m1'));
      expect(await store.card(SPACE, 'm1')).toEqual(policyCard('m1'));
      expect(await store.card(SPACE, 'm2')).toBeUndefined();
      // Slack message ids (ts) are unique per channel only.
      expect(await store.card('gchat:spaces/BBBB', 'm1')).toBeUndefined();
    });

    // Issue 22.5: when a turn ends, the cards nobody decided are found to lose their buttons.
    it('openCards: a turn’s cards nobody claimed, in the order posted; claimed ones and other turns’ are not', async () => {
      const store = open();
      await store.registerCard(policyCard('m1'));
      await store.registerCard(policyCard('m2', { cardId: 'p2' }));
      await store.registerCard(policyCard('m3', { turnId: 'T2' }));
      await store.claimCard(SPACE, 'm1', alice);
      expect(await store.openCards('T1')).toEqual([policyCard('m2', { cardId: 'p2' })]);
      expect(await store.openCards('T9')).toEqual([]);
    });

    it('keeps a question’s options and a log record without a card', async () => {
      const store = open();
      const question = policyCard('q', {
        kind: 'question',
        cardId: 'q1',
        options: [
          { label: 'Skip', selectedLabel: 'Skip', value: 'Skip' },
          { label: 'Fix', selectedLabel: '✅ Fixing', value: 'fix' },
        ],
      });
      const { card: _card, threadId: _thread, ...log } = policyCard('l', { kind: 'log', cardId: 'T1' });
      await store.registerCard(question);
      await store.registerCard(log);
      expect(await store.card(SPACE, 'q')).toEqual(question);
      expect(await store.card(SPACE, 'l')).toEqual(log);
    });

    it('the first claim wins; every later one gets the earlier claim back', async () => {
      const store = open();
      await store.registerCard(policyCard('m1'));
      expect(await store.claimCard(SPACE, 'm1', alice)).toEqual({ first: true, claim: alice });
      expect(await store.claimCard(SPACE, 'm1', bob)).toEqual({ first: false, claim: alice });
      expect(await store.claimCard(SPACE, 'm1', alice)).toEqual({ first: false, claim: alice });
      expect(await store.card(SPACE, 'm1')).toEqual({ ...policyCard('m1'), claim: alice });
    });

    it('claims of two cards are independent; a claim of an unknown card is undefined', async () => {
      const store = open();
      await store.registerCard(policyCard('m1'));
      await store.registerCard(policyCard('m2', { cardId: 'p2' }));
      expect(await store.claimCard(SPACE, 'm1', alice)).toEqual({ first: true, claim: alice });
      expect(await store.claimCard(SPACE, 'm2', bob)).toEqual({ first: true, claim: bob });
      expect(await store.claimCard(SPACE, 'nope', alice)).toBeUndefined();
    });

    it('registering a card again replaces its record and keeps its claim', async () => {
      const store = open();
      await store.registerCard(policyCard('m1'));
      await store.claimCard(SPACE, 'm1', alice);
      await store.registerCard(policyCard('m1', { postedAt: 5_000 }));
      expect(await store.card(SPACE, 'm1')).toEqual({
        ...policyCard('m1', { postedAt: 5_000 }),
        claim: alice,
      });
    });

    it('keeps at most limits.cards cards, the oldest registered going first', async () => {
      const store = open({ cards: 2 });
      for (const id of ['a', 'b', 'c']) await store.registerCard(policyCard(id));
      expect(await store.card(SPACE, 'a')).toBeUndefined();
      expect(await store.card(SPACE, 'b')).toBeDefined();
      expect(await store.card(SPACE, 'c')).toBeDefined();
    });
  });
}
