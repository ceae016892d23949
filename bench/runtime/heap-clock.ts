/**
 * A simulated clock for many pending timers. XState's `SimulatedClock`
 * sorts every pending timeout on each flush and starts the flush over when a
 * callback sets or clears a timeout, so with T timers pending a flush costs
 * O(T² log T) — at 10,000 live turns the clock, not the runtime, would be
 * measured. This one keeps the timers in a binary min-heap: O(log T) per set,
 * clear and fire.
 *
 * Time moves to each timer's deadline as it fires (in deadline order, ties in
 * the order they were set), then to the end of the increment; a timer a
 * callback sets that falls due inside the increment fires in it too.
 */
import type { Clock } from '../../src/clock.js';

interface Timer {
  at: number;
  /** Set order: breaks deadline ties, and the id `clearTimeout` takes. */
  id: number;
  fn: () => void;
  /** Position in the heap array, for O(log T) removal. */
  index: number;
}

export class HeapClock implements Clock {
  private nowMs = 0;
  private nextId = 0;
  private readonly heap: Timer[] = [];
  private readonly byId = new Map<number, Timer>();

  now(): number {
    return this.nowMs;
  }

  /** Timers set and neither fired nor cleared. */
  get pending(): number {
    return this.heap.length;
  }

  /** When the earliest pending timer falls due; undefined when none is pending. */
  nextDeadline(): number | undefined {
    return this.heap[0]?.at;
  }

  setTimeout(fn: (...args: unknown[]) => void, timeout: number): number {
    const timer: Timer = {
      at: this.nowMs + Math.max(0, timeout),
      id: this.nextId++,
      fn,
      index: this.heap.length,
    };
    this.heap.push(timer);
    this.byId.set(timer.id, timer);
    this.siftUp(timer.index);
    return timer.id;
  }

  clearTimeout(id: unknown): void {
    const timer = this.byId.get(id as number);
    if (timer) this.remove(timer);
  }

  /** Moves time forward by `ms`, firing every timer due by then. */
  increment(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) {
      throw new RangeError(`HeapClock.increment: ms must be a finite number ≥ 0, got ${ms}`);
    }
    const until = this.nowMs + ms;
    for (let next = this.heap[0]; next !== undefined && next.at <= until; next = this.heap[0]) {
      this.remove(next);
      this.nowMs = Math.max(this.nowMs, next.at);
      next.fn();
    }
    this.nowMs = until;
  }

  private remove(timer: Timer): void {
    this.byId.delete(timer.id);
    const last = this.heap.pop()!;
    if (last === timer) return;
    this.heap[timer.index] = last;
    last.index = timer.index;
    this.siftUp(last.index);
    this.siftDown(last.index);
  }

  private before(a: Timer, b: Timer): boolean {
    return a.at < b.at || (a.at === b.at && a.id < b.id);
  }

  private swap(i: number, j: number): void {
    const a = this.heap[i]!;
    const b = this.heap[j]!;
    this.heap[i] = b;
    this.heap[j] = a;
    a.index = j;
    b.index = i;
  }

  private siftUp(index: number): void {
    let i = index;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.before(this.heap[i]!, this.heap[parent]!)) return;
      this.swap(i, parent);
      i = parent;
    }
  }

  private siftDown(index: number): void {
    let i = index;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let first = i;
      if (left < this.heap.length && this.before(this.heap[left]!, this.heap[first]!)) first = left;
      if (right < this.heap.length && this.before(this.heap[right]!, this.heap[first]!)) first = right;
      if (first === i) return;
      this.swap(i, first);
      i = first;
    }
  }
}
