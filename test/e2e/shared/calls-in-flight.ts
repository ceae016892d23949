/**
 * What every platform's end-to-end harness (test/e2e/<platform>/harness.ts)
 * shares: a surface whose calls are counted while in flight, a wait until
 * none is (vi.waitFor, generously bounded: never a sleep), and a simulated
 * clock moved in small steps with that wait after each, so a test sees every
 * call a step caused land before it looks.
 */
import { vi } from 'vitest';
import type { SimulatedClock } from 'xstate';
import type { ChatSurface } from '../../../src/surfaces/surface.js';

/** Calls in flight through a {@link countCalls} surface, and what the failed ones said. */
export interface InFlight {
  count: number;
  errors: string[];
  /** The calls in flight: which method, its request, and whether its caller has given up (aborted) on it. */
  calls: Set<{ method: string; req: unknown; abandoned: boolean }>;
}

export const createInFlight = (): InFlight => ({ count: 0, errors: [], calls: new Set() });

/** The surface methods that call the platform (those a surface has are counted). */
const CALLS = ['post', 'edit', 'react', 'typing', 'setStatus'] as const;
/** A surface with its own status method (Slack's, behind its declared `assistantStatus`). */
type Counted = ChatSurface & { setStatus?: (...args: unknown[]) => Promise<unknown> };

/** Lets resolved promises (surface calls, HTTP answers already read) run their continuations; no time passes. */
export const settle = async (): Promise<void> => {
  for (let i = 0; i < 8; i++) await new Promise<void>((resolve) => setImmediate(resolve));
};

/**
 * The surface with its calls counted while in flight; everything else (its
 * capabilities, a Discord surface's pacing) passes through unchanged.
 */
export function countCalls<S extends ChatSurface>(surface: S, inFlight: InFlight): S {
  const track = <T>(method: string, args: unknown[], call: Promise<T>): Promise<T> => {
    inFlight.count++;
    const entry = { method, req: args[0], abandoned: false };
    inFlight.calls.add(entry);
    // Marked the moment the caller aborts, before the call's own rejection arrives.
    const signal = (args[1] as { signal?: AbortSignal } | undefined)?.signal;
    signal?.addEventListener('abort', () => {
      entry.abandoned = true;
    });
    return call.then(
      (value) => {
        inFlight.count--;
        inFlight.calls.delete(entry);
        return value;
      },
      (error: unknown) => {
        inFlight.count--;
        inFlight.calls.delete(entry);
        inFlight.errors.push(error instanceof Error ? error.message : String(error));
        throw error;
      },
    );
  };
  const counted = Object.create(surface) as S;
  for (const name of CALLS) {
    const method = (surface as Counted)[name] as ((...args: unknown[]) => Promise<unknown>) | undefined;
    if (typeof method !== 'function') continue;
    Object.defineProperty(counted, name, {
      value: (...args: unknown[]) => track(name, args, method.apply(surface, args)),
      enumerable: true,
    });
  }
  return counted;
}

/** Waits until no call is in flight, twice in a row after settling (a call that lands may start the next one). */
export async function untilNoCallInFlight(inFlight: InFlight, platform: string): Promise<void> {
  for (;;) {
    await settle();
    if (inFlight.count === 0) {
      await settle();
      if (inFlight.count === 0) return;
    }
    await vi.waitFor(
      () => {
        if (inFlight.count > 0) throw new Error(`${inFlight.count} ${platform} calls still in flight`);
      },
      { timeout: 10_000, interval: 1 },
    );
  }
}

/** The default step of {@link stepClock} (ms): finer than any debounce or retry the tests rely on. */
export const STEP_MS = 100;

/**
 * Moves `clock` `ms` forward in steps of `stepMs`, calling `afterStep` (wait
 * for the step's calls) after each; `onStep` runs right after each increment
 * (a fake `Date` following the clock).
 */
export async function stepClock(
  clock: SimulatedClock,
  ms: number,
  afterStep: () => Promise<void>,
  opts: { stepMs?: number; onStep?: () => void } = {},
): Promise<void> {
  const stepMs = opts.stepMs ?? STEP_MS;
  for (let left = ms; left > 0; left -= stepMs) {
    clock.increment(Math.min(stepMs, left));
    opts.onStep?.();
    await afterStep();
  }
}
