/**
 * The clock every timer and timestamp in the runtime reads. XState's
 * `SimulatedClock` satisfies it, so tests drive time instead of sleeping.
 */
export interface Clock {
  now(): number;
  setTimeout(fn: (...args: unknown[]) => void, timeout: number): unknown;
  clearTimeout(id: unknown): void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (id) => clearTimeout(id as ReturnType<typeof setTimeout>),
};
