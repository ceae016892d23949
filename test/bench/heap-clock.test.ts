/**
 * The runtime benchmark's simulated clock (bench/runtime/heap-clock.ts): it
 * must fire exactly what a timer list would, in the same order, or the bench
 * measures a different runtime.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HeapClock } from '../../bench/runtime/heap-clock.js';

describe('HeapClock', () => {
  it('fires due timers in deadline order, ties in the order they were set, each at its own deadline', () => {
    const clock = new HeapClock();
    const fired: string[] = [];
    const log = (name: string) => () => fired.push(`${name}@${clock.now()}`);
    clock.setTimeout(log('c'), 300);
    clock.setTimeout(log('a'), 100);
    clock.setTimeout(log('b1'), 200);
    clock.setTimeout(log('b2'), 200);
    clock.setTimeout(log('late'), 1000);
    clock.increment(250);
    expect(fired).toEqual(['a@100', 'b1@200', 'b2@200']);
    expect(clock.now()).toBe(250);
    expect(clock.pending).toBe(2);
    expect(clock.nextDeadline()).toBe(300);
  });

  it('fires a timer a callback sets when it falls due inside the same increment, and not one beyond', () => {
    const clock = new HeapClock();
    const fired: number[] = [];
    clock.setTimeout(() => {
      fired.push(clock.now());
      clock.setTimeout(() => fired.push(clock.now()), 100);
      clock.setTimeout(() => fired.push(clock.now()), 500);
    }, 100);
    clock.increment(300);
    expect(fired).toEqual([100, 200]);
    clock.increment(300);
    expect(fired).toEqual([100, 200, 600]);
  });

  it('never fires a cleared timer, also one cleared by a callback of the same increment', () => {
    const clock = new HeapClock();
    const fired: string[] = [];
    const keep = clock.setTimeout(() => fired.push('keep'), 50);
    const cleared = clock.setTimeout(() => fired.push('cleared'), 100);
    clock.setTimeout(() => clock.clearTimeout(cleared), 10);
    clock.clearTimeout(12345); // unknown id: nothing happens
    clock.increment(200);
    expect(fired).toEqual(['keep']);
    expect(clock.pending).toBe(0);
    expect(clock.nextDeadline()).toBeUndefined();
    clock.clearTimeout(keep); // already fired: nothing happens
    expect(clock.pending).toBe(0);
  });

  it('refuses a negative or non-finite increment, naming the value', () => {
    const clock = new HeapClock();
    expect(() => clock.increment(-1)).toThrow(/ms must be a finite number ≥ 0, got -1/);
    expect(() => clock.increment(Number.NaN)).toThrow(/got NaN/);
  });

  it('matches a sorted timer list over random sets, clears and increments', () => {
    type Op =
      | { kind: 'set'; delay: number }
      | { kind: 'clear'; pick: number }
      | { kind: 'advance'; ms: number };
    const op = fc.oneof(
      fc.record({ kind: fc.constant('set' as const), delay: fc.integer({ min: -5, max: 500 }) }),
      fc.record({ kind: fc.constant('clear' as const), pick: fc.nat() }),
      fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 400 }) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 200 }), (ops: Op[]) => {
        const clock = new HeapClock();
        const fired: number[] = [];
        const ids: number[] = [];
        // The reference: a plain list, the earliest deadline (then the earliest set) fires first.
        let now = 0;
        let list: { at: number; n: number }[] = [];
        const expected: number[] = [];
        for (const o of ops) {
          if (o.kind === 'set') {
            const n = ids.length;
            ids.push(clock.setTimeout(() => fired.push(n), o.delay));
            list.push({ at: now + Math.max(0, o.delay), n });
          } else if (o.kind === 'clear' && ids.length > 0) {
            const n = o.pick % ids.length;
            clock.clearTimeout(ids[n]);
            list = list.filter((t) => t.n !== n);
          } else if (o.kind === 'advance') {
            clock.increment(o.ms);
            now += o.ms;
            const due = list.filter((t) => t.at <= now).sort((a, b) => a.at - b.at || a.n - b.n);
            expected.push(...due.map((t) => t.n));
            list = list.filter((t) => t.at > now);
          }
        }
        expect(fired).toEqual(expected);
        expect(clock.pending).toBe(list.length);
      }),
    );
  });
});
