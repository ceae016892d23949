/**
 * What every platform's end-to-end harness (test/e2e/<platform>/harness.ts)
 * shares: the real runtime (createRuntime: ingest → space → turn → budget) on
 * one platform's surface, through its official client, against its emulator
 * over loopback HTTP. One SimulatedClock, set at the platform's start time,
 * drives the runtime's timers and the emulator's clock; time moves in small
 * steps and after each the harness waits (vi.waitFor, bounded) until no call
 * is in flight, so a test reads the emulator's recorded calls at a quiet point.
 *
 * A platform harness gives its emulator starter, its surface factory and its
 * space, and adds only what is its own (a thread view, a fake Date).
 */
import { SimulatedClock } from 'xstate';
import type { TurnlogConfigInput } from '../../../src/config.js';
import type { EmulatorServer } from '../../../src/emulators/core/index.js';
import type { EmulatedMessage, FaultRule, RecordedCall } from '../../../src/emulators/types.js';
import { builtinPlatforms } from '../../../src/platforms/all.js';
import { createRuntime, type Runtime } from '../../../src/runtime.js';
import { createMemoryStore } from '../../../src/store/memory.js';
import type { TurnlogStore } from '../../../src/store/store.js';
import type { ChatSurface } from '../../../src/surfaces/surface.js';
import { emulatorCall } from '../../emulators/inspection.js';
import {
  countCalls,
  createInFlight,
  type InFlight,
  STEP_MS,
  stepClock,
  untilNoCallInFlight,
} from './calls-in-flight.js';

/** A new simulated clock at `startMs`. */
export function clockAt(startMs: number): SimulatedClock {
  const clock = new SimulatedClock();
  clock.set(startMs);
  return clock;
}

/** One platform, as {@link startPlatformE2E} runs it. */
export interface PlatformE2EOptions<E extends EmulatorServer, S extends ChatSurface> {
  /** The surface's key in createRuntime's `surfaces`, and the prefix of its spaces (`gchat:…`). */
  platform: 'gchat' | 'slack' | 'discord';
  /** The platform's name in a failure ("Google Chat"). */
  name: string;
  /** The space events go to by default (`gchat:spaces/AAAA`). */
  space: string;
  /** Where a new clock starts (ignored with `clock`). */
  startMs: number;
  /** A clock already running (a restarted runtime's); default a new one at `startMs`. */
  clock?: SimulatedClock;
  /** Starts the emulator on the clock (not called with `emulator`). */
  startEmulator(now: () => number): Promise<E>;
  /** An emulator already running (a restarted runtime's): not closed by `stop`. */
  emulator?: E;
  /** The platform's surface against the emulator, on the clock. */
  createSurface(emulator: E, clock: SimulatedClock): S;
  config?: TurnlogConfigInput;
  /** Default: a new memory store, kept across {@link PlatformE2E.restart}. */
  store?: TurnlogStore;
  /** Paths of the app's calls that {@link PlatformE2E.calls} leaves out besides deletions (a start-up check). */
  ignoredPaths?: string[];
  /** Runs right after each step of the clock (a fake `Date` following it). */
  onStep?: () => void;
  /** Runs last in `stop` (undoes what the platform harness set up). */
  onStop?: () => void;
}

export interface PlatformE2E<E extends EmulatorServer, S extends ChatSurface> {
  /** The runtime running now (a new one after {@link restart}). */
  runtime: Runtime;
  emulator: E;
  clock: SimulatedClock;
  store: TurnlogStore;
  /** The surface as the platform made it. */
  surface: S;
  /** The surface the runtime calls: the same, with its calls counted while in flight. */
  counted: S;
  /** Warnings and errors the runtime logged. */
  warnings: string[];
  /** What the surface's failed calls said. */
  errors: string[];
  /** The surface calls in flight now (whether their caller gave up on them included). */
  inFlight: InFlight['calls'];
  /** Ingests one event into `space` (default the platform's); throws on a refused one. */
  send(event: Record<string, unknown>, space?: string): void;
  /** POSTs to the emulator's inspection API (`/_emulator/<endpoint>`), failing on any answer but 200. */
  emulatorCall<T = Record<string, unknown>>(endpoint: string, body: unknown): Promise<T>;
  /** A person writes in a space (a new thread unless `threadId`), fed to the runtime as an `inbound` event with `ref`. */
  userMessage(
    ref: string,
    opts?: { threadId?: string; space?: string; text?: string },
  ): Promise<{ messageId: string; threadId: string }>;
  /** Lets every call the runtime has started land. */
  quiet(): Promise<void>;
  /** Moves the clock `ms` forward in steps of `stepMs` (default 100), quiet after each. */
  advance(ms: number, stepMs?: number): Promise<void>;
  /** Calls the app made (a person's messages and deletions left out). */
  calls(): RecordedCall[];
  creates(): RecordedCall[];
  updates(): RecordedCall[];
  /** The messages the emulator keeps for a platform space id (default the platform's). */
  messages(id?: string): EmulatedMessage[];
  faults(rules: FaultRule[]): Promise<void>;
  /** A person deletes a message (`POST /_emulator/delete`). */
  personDeletes(messageId: string): Promise<void>;
  /** Stops the runtime only, once (a restart keeps the emulator and the store). */
  stopRuntime(): Promise<void>;
  /** A new runtime on the same store, surface and emulator (a restart). */
  restart(): Promise<void>;
  /** Stops the runtime (unless stopped) and the emulator (unless reused). */
  stop(): Promise<void>;
}

/** What every platform's harness has, each with the same signature. */
export type E2EBasics<E extends EmulatorServer> = Pick<
  PlatformE2E<E, ChatSurface>,
  | 'runtime'
  | 'emulator'
  | 'clock'
  | 'warnings'
  | 'send'
  | 'quiet'
  | 'calls'
  | 'creates'
  | 'updates'
  | 'faults'
  | 'personDeletes'
  | 'stop'
  | 'inFlight'
  | 'emulatorCall'
>;

export async function startPlatformE2E<E extends EmulatorServer, S extends ChatSurface>(
  opts: PlatformE2EOptions<E, S>,
): Promise<PlatformE2E<E, S>> {
  const clock = opts.clock ?? clockAt(opts.startMs);
  const emulator = opts.emulator ?? (await opts.startEmulator(() => clock.now()));
  const store = opts.store ?? createMemoryStore();
  const inFlight = createInFlight();
  const warnings: string[] = [];
  const surface = opts.createSurface(emulator, clock);
  const counted = countCalls(surface, inFlight);
  const prefix = `${opts.platform}:`;
  const ignoredPaths = new Set(['/_emulator/delete', ...(opts.ignoredPaths ?? [])]);

  const start = async (): Promise<Runtime> => {
    const started = createRuntime({
      platforms: builtinPlatforms,
      config: opts.config ?? {},
      surfaces: { [opts.platform]: counted },
      store,
      clock,
      logger: { warn: (m) => warnings.push(m), error: (m) => warnings.push(`error: ${m}`) },
      inspect: () => {},
    });
    await started.ready;
    return started;
  };
  let runtime = await start();
  let runtimeStopped = false;

  const send = (event: Record<string, unknown>, space = opts.space) => {
    const result = runtime.ingest({ space, ...event });
    if (!result.ok) throw new Error(result.error);
  };
  const call = <T = Record<string, unknown>>(endpoint: string, body: unknown) =>
    emulatorCall<T>(emulator.url, endpoint, body);
  const quiet = () => untilNoCallInFlight(inFlight, opts.name);
  const calls = () => emulator.state.calls().filter((c) => c.op !== 'inbound' && !ignoredPaths.has(c.path));
  const stopRuntime = async () => {
    if (runtimeStopped) return;
    runtimeStopped = true;
    await quiet();
    await runtime.stop();
  };

  return {
    get runtime() {
      return runtime;
    },
    emulator,
    clock,
    store,
    surface,
    counted,
    warnings,
    errors: inFlight.errors,
    inFlight: inFlight.calls,
    send,
    emulatorCall: call,
    async userMessage(ref, o = {}) {
      const space = o.space ?? opts.space;
      const posted = await call<{ messageId: string; threadId: string }>('inbound', {
        space: space.slice(prefix.length),
        text: o.text ?? `user message ${ref}`,
        ...(o.threadId === undefined ? {} : { threadId: o.threadId }),
      });
      send({ type: 'inbound', messageId: posted.messageId, threadId: posted.threadId, ref }, space);
      return posted;
    },
    quiet,
    advance: (ms, stepMs = STEP_MS) =>
      stepClock(clock, ms, quiet, { stepMs, ...(opts.onStep ? { onStep: opts.onStep } : {}) }),
    calls,
    creates: () => calls().filter((c) => c.op === 'create'),
    updates: () => calls().filter((c) => c.op === 'update'),
    messages: (id = opts.space.slice(prefix.length)) => emulator.state.messages(id),
    faults: async (rules) => {
      await call('faults', { rules });
    },
    personDeletes: async (messageId) => {
      await call('delete', { messageId });
    },
    stopRuntime,
    async restart() {
      runtime = await start();
      runtimeStopped = false;
    },
    async stop() {
      await stopRuntime();
      if (!opts.emulator) await emulator.close();
      opts.onStop?.();
    },
  };
}
