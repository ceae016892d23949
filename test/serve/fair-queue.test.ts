/**
 * The ingest's fair queue (src/serve/fair-queue.ts): requests run one at a
 * time in arrival order, whatever connection they came on, with the event
 * loop let through between any two (so a new connection is accepted and
 * read there). Order and progress only; no durations.
 */
import { describe, expect, it } from 'vitest';
import { createFairQueue } from '../../src/serve/fair-queue.js';

describe('createFairQueue', () => {
  it('runs tasks in arrival order, each after a yield to the event loop', async () => {
    const yields: (() => void)[] = [];
    const queue = createFairQueue((next) => yields.push(next));
    const ran: string[] = [];
    const done = ['a1', 'a2', 'b1', 'a3'].map((name) => queue.run(() => ran.push(name)));
    expect(ran).toEqual([]);
    expect(queue.waiting).toBe(4);
    // One task per yield: nothing runs until the loop comes back, then exactly one.
    for (let n = 1; n <= 4; n++) {
      expect(yields).toHaveLength(1);
      yields.shift()?.();
      expect(ran).toHaveLength(n);
    }
    expect(yields).toHaveLength(0);
    expect(ran).toEqual(['a1', 'a2', 'b1', 'a3']);
    await Promise.all(done);
  });

  it('lets I/O that arrives during a task through before the next task', async () => {
    const queue = createFairQueue();
    const order: string[] = [];
    const first = queue.run(() => {
      order.push('busy connection, request 1');
      // What the loop has for it meanwhile (a new connection's first request) is handled before request 2.
      setImmediate(() => order.push('new connection read'));
    });
    const second = queue.run(() => order.push('busy connection, request 2'));
    await Promise.all([first, second]);
    expect(order).toEqual([
      'busy connection, request 1',
      'new connection read',
      'busy connection, request 2',
    ]);
  });

  it('a request queued by a late connection runs before those queued after it', async () => {
    const queue = createFairQueue();
    const order: string[] = [];
    const busy = (n: number) => queue.run(() => order.push(`established ${n}`));
    const all = [busy(1), busy(2), queue.run(() => order.push('late joiner')), busy(3)];
    await Promise.all(all);
    expect(order).toEqual(['established 1', 'established 2', 'late joiner', 'established 3']);
  });

  it('a task that throws rejects its own promise; the queue goes on', async () => {
    const queue = createFairQueue();
    const failing = queue.run(() => {
      throw new Error('bad body');
    });
    const next = queue.run(() => 'next');
    await expect(failing).rejects.toThrow('bad body');
    await expect(next).resolves.toBe('next');
  });
});
