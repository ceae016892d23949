/**
 * The actions outbox part of the TurnlogStore contract (src/store/store.ts):
 * ids stable and unique, cursors ordered and never reused, reads after a
 * cursor, pruning by age (bounded), and the delivery cursor of a consumer.
 */
import { describe, expect, it } from 'vitest';
import type { NewAction } from '../../src/actions/types.js';
import type { MemoryStoreLimits } from '../../src/store/memory.js';
import type { TurnlogStore } from '../../src/store/store.js';

const SPACE = 'gchat:spaces/AAAA';

export const message = (id: string, extra: Partial<NewAction> = {}): NewAction & { id: string } =>
  ({
    id,
    type: 'message',
    space: SPACE,
    at: 1_000,
    user: { id: 'users/1', name: 'Alice' },
    messageId: `spaces/AAAA/messages/${id}`,
    text: `hello ${id}`,
    dm: false,
    ...extra,
  }) as NewAction & { id: string };

export function describeOutboxContract(open: (limits?: Partial<MemoryStoreLimits>) => TurnlogStore): void {
  describe('actions outbox', () => {
    it('appends under ordered cursors and returns each action with its fields as given', async () => {
      const store = open();
      const first = await store.appendAction(message('a1', { threadId: 'spaces/AAAA/threads/t' }), 10);
      const second = await store.appendAction(
        {
          id: 'a2',
          type: 'decision',
          space: 'slack:C0123',
          at: 2_000,
          user: { id: 'U1' },
          turnId: 'T1',
          requestId: 'r1',
          decision: 'approved',
        },
        11,
      );
      expect(first.duplicate).toBe(false);
      expect(first.action).toStrictEqual({
        ...message('a1', { threadId: 'spaces/AAAA/threads/t' }),
        cursor: first.action.cursor,
      });
      expect(Number(second.action.cursor)).toBeGreaterThan(Number(first.action.cursor));
      expect(await store.actionsAfter(0, 10)).toStrictEqual([first.action, second.action]);
      expect(await store.actionsAfter(Number(first.action.cursor), 10)).toStrictEqual([second.action]);
      expect(await store.actionsAfter(Number(second.action.cursor), 10)).toEqual([]);
    });

    it('an action whose id is kept already is not appended again (the kept one comes back, duplicate)', async () => {
      const store = open();
      const first = await store.appendAction(message('a1'), 10);
      const again = await store.appendAction(message('a1', { text: 'changed' }), 20);
      expect(again).toStrictEqual({ action: first.action, duplicate: true });
      expect(await store.actionsAfter(0, 10)).toHaveLength(1);
    });

    it('reads at most `limit` actions, oldest first, and pages on by cursor', async () => {
      const store = open();
      for (let i = 1; i <= 5; i++) await store.appendAction(message(`a${i}`), i);
      const page1 = await store.actionsAfter(0, 2);
      expect(page1.map((a) => a.id)).toEqual(['a1', 'a2']);
      const page2 = await store.actionsAfter(Number(page1.at(-1)?.cursor), 2);
      expect(page2.map((a) => a.id)).toEqual(['a3', 'a4']);
      const page3 = await store.actionsAfter(Number(page2.at(-1)?.cursor), 2);
      expect(page3.map((a) => a.id)).toEqual(['a5']);
    });

    it('prunes the actions recorded before a time, at most `max` per call, and never reuses a cursor', async () => {
      const store = open();
      for (let i = 1; i <= 5; i++) await store.appendAction(message(`a${i}`), i * 100);
      expect(await store.pruneActions(450, 2)).toBe(2);
      expect((await store.actionsAfter(0, 10)).map((a) => a.id)).toEqual(['a3', 'a4', 'a5']);
      expect(await store.pruneActions(450, 10)).toBe(2);
      expect((await store.actionsAfter(0, 10)).map((a) => a.id)).toEqual(['a5']);
      const last = (await store.actionsAfter(0, 10)).at(-1)?.cursor;
      expect(await store.pruneActions(10_000, 10)).toBe(1);
      expect(await store.actionsAfter(0, 10)).toEqual([]);
      const next = await store.appendAction(message('a6'), 20_000);
      expect(Number(next.action.cursor)).toBeGreaterThan(Number(last));
      // A pruned id may be recorded again (it is past the retention of redeliveries).
      expect((await store.appendAction(message('a1'), 20_001)).duplicate).toBe(false);
    });

    it('keeps a delivery cursor per consumer, replacing the saved one', async () => {
      const store = open();
      expect(await store.actionCursor('webhook')).toBeUndefined();
      await store.saveActionCursor('webhook', '3');
      await store.saveActionCursor('other', '1');
      await store.saveActionCursor('webhook', '7');
      expect(await store.actionCursor('webhook')).toBe('7');
      expect(await store.actionCursor('other')).toBe('1');
    });
  });
}
