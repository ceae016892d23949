import { describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { createMessageStore } from '../../../src/emulators/core/index.js';

const bot = { kind: 'app' as const, id: 'bot' };

describe('createMessageStore', () => {
  it('keeps messages per space with edits, deletions and the clock’s timestamps', () => {
    const clock = new SimulatedClock();
    clock.set(1000);
    const store = createMessageStore(() => clock.now());
    store.create({ id: 'a', space: 'S1', text: 'one', author: bot });
    store.create({ id: 'b', space: 'S1', thread: 'a', text: 'two', author: bot });
    store.create({ id: 'c', space: 'S2', text: 'elsewhere', author: bot });
    clock.set(2500);
    store.edit('a', 'one!', { flags: 4096 });
    store.markDeleted('b');

    expect(store.view('S1')).toEqual([
      {
        id: 'a',
        thread: null,
        text: 'one!',
        createdAt: 1000,
        updatedAt: 2500,
        edits: 1,
        deleted: false,
        reactions: [],
      },
      {
        id: 'b',
        thread: 'a',
        text: 'two',
        createdAt: 1000,
        updatedAt: null,
        edits: 0,
        deleted: true,
        reactions: [],
      },
    ]);
    expect(store.get('a')?.data).toEqual({ flags: 4096 });
    expect(() => store.edit('b', 'late')).toThrow('message "b" is deleted');
    expect(() => store.edit('zz', 'x')).toThrow('unknown message "zz"');
  });

  it('finds a create by its idempotency key within a space and refuses duplicate ids or keys', () => {
    const store = createMessageStore(() => 0);
    store.create({ id: 'a', space: 'S1', text: 'x', author: bot, idempotencyKey: 'turn-1-0' });
    expect(store.findByIdempotencyKey('S1', 'turn-1-0')?.id).toBe('a');
    expect(store.findByIdempotencyKey('S2', 'turn-1-0')).toBeUndefined();
    expect(() => store.create({ id: 'a', space: 'S1', text: 'y', author: bot })).toThrow('already exists');
    expect(() =>
      store.create({ id: 'b', space: 'S1', text: 'y', author: bot, idempotencyKey: 'turn-1-0' }),
    ).toThrow('already used in S1');
  });

  it('tracks threads by id and by root message; ordinals never repeat, even after clear', () => {
    const store = createMessageStore(() => 0);
    store.openThread({ id: 'T1', space: 'C1', rootMessageId: 'm1', data: { archived: false } });
    expect(store.getThread('T1')).toEqual({
      id: 'T1',
      space: 'C1',
      rootMessageId: 'm1',
      data: { archived: false },
    });
    expect(store.threadOfRoot('m1')?.id).toBe('T1');
    expect(() => store.openThread({ id: 'T1', space: 'C1' })).toThrow('already exists');
    const first = store.nextOrdinal();
    store.clear();
    expect(store.getThread('T1')).toBeUndefined();
    expect(store.nextOrdinal()).toBe(first + 1);
  });
});
