/**
 * The pending XState timers of an actor system on a simulated clock. The
 * system stamps timers with the wall clock, so the simulated time each one
 * was set at is noted the first time it is seen: call `noteTimers()` after
 * every step; `nextTimerAt()` is then the simulated time the earliest fires.
 */
import type { AnyActorRef } from 'xstate';

export function watchTimers(actor: AnyActorRef, clock: { now(): number }) {
  const timerSetAt = new WeakMap<object, number>();
  const scheduledTimers = () => Object.values(actor.system.getSnapshot()._scheduledEvents);
  return {
    noteTimers(): void {
      for (const timer of scheduledTimers()) if (!timerSetAt.has(timer)) timerSetAt.set(timer, clock.now());
    },
    nextTimerAt(): number | null {
      const timers = scheduledTimers();
      if (timers.length === 0) return null;
      return Math.min(...timers.map((timer) => (timerSetAt.get(timer) ?? clock.now()) + timer.delay));
    },
  };
}
