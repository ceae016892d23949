/**
 * End to end on Google Chat: the real runtime (createRuntime: ingest → space
 * → turn → budget) on the Google Chat surface, through googleapis, against
 * the Google Chat emulator over loopback HTTP. One SimulatedClock drives the
 * runtime's timers and the emulator's clock; time moves in 100 ms steps and
 * after each step the harness waits (vi.waitFor) until no Chat call is in
 * flight, so every test reads the emulator's recorded calls at a quiet point.
 *
 * The surface is counted, not changed: a wrapper tracks calls in flight.
 */
import { SimulatedClock } from 'xstate';
import type { TurnlogConfigInput } from '../../../src/config.js';
import type { EmulatorServer } from '../../../src/emulators/core/index.js';
import { type GchatEmulatorOptions, startGchatEmulator } from '../../../src/emulators/gchat/index.js';
import type { EmulatedMessage, FaultRule, RecordedCall } from '../../../src/emulators/types.js';
import { createGchatSurface } from '../../../src/platforms/gchat/surface.js';
import { createRuntime, type Runtime } from '../../../src/runtime.js';
import { emulatorInspection } from '../../surfaces/gchat/harness.js';
import { countCalls, createInFlight, stepClock, untilNoCallInFlight } from '../shared/calls-in-flight.js';

export const START_MS = Date.UTC(2025, 0, 1, 12, 0, 0);
export const SPACE_NAME = 'spaces/AAAA';
export const SPACE = `gchat:${SPACE_NAME}`;

export interface GchatE2E {
  runtime: Runtime;
  emulator: EmulatorServer;
  clock: SimulatedClock;
  /** Warnings and errors the runtime logged. */
  warnings: string[];
  /** Ingests one event into `space` (default SPACE); throws on a refused one. */
  send(event: Record<string, unknown>, space?: string): void;
  /** A person writes in the space (a new thread unless `threadId`), fed to the runtime as an `inbound` event with `ref`. */
  userMessage(
    ref: string,
    opts?: { threadId?: string; space?: string },
  ): Promise<{ messageId: string; threadId: string }>;
  /** Lets every call the runtime has started land. */
  quiet(): Promise<void>;
  /** Moves the clock `ms` forward in small steps, quiet after each. */
  advance(ms: number): Promise<void>;
  /** Calls the app made (a person's messages and deletions left out). */
  calls(): RecordedCall[];
  creates(): RecordedCall[];
  updates(): RecordedCall[];
  messages(space?: string): EmulatedMessage[];
  faults(rules: FaultRule[]): Promise<void>;
  /** A person deletes a message (`POST /_emulator/delete`). */
  personDeletes(messageId: string): Promise<void>;
  stop(): Promise<void>;
}

export async function startGchatE2E(
  opts: { config?: TurnlogConfigInput; emulator?: Omit<GchatEmulatorOptions, 'now'> } = {},
): Promise<GchatE2E> {
  const clock = new SimulatedClock();
  clock.set(START_MS);
  const emulator = await startGchatEmulator({ ...opts.emulator, now: () => clock.now() });
  const inFlight = createInFlight();
  const warnings: string[] = [];
  const runtime = createRuntime({
    config: opts.config ?? {},
    surfaces: { gchat: countCalls(createGchatSurface({ apiUrl: emulator.url }), inFlight) },
    clock,
    logger: { warn: (m) => warnings.push(m), error: (m) => warnings.push(`error: ${m}`) },
    inspect: () => {},
  });
  await runtime.ready;

  const inspection = emulatorInspection(emulator.url);

  const send = (event: Record<string, unknown>, space = SPACE) => {
    const result = runtime.ingest({ space, ...event });
    if (!result.ok) throw new Error(result.error);
  };

  const quiet = () => untilNoCallInFlight(inFlight, 'Google Chat');

  const calls = () =>
    emulator.state.calls().filter((c) => c.op !== 'inbound' && c.path !== '/_emulator/delete');

  return {
    runtime,
    emulator,
    clock,
    warnings,
    send,
    async userMessage(ref, o = {}) {
      const space = o.space ?? SPACE;
      const posted = (await inspection('inbound', {
        space: space.slice('gchat:'.length),
        text: `user message ${ref}`,
        ...(o.threadId === undefined ? {} : { threadId: o.threadId }),
      })) as { messageId: string; threadId: string };
      send({ type: 'inbound', messageId: posted.messageId, threadId: posted.threadId, ref }, space);
      return posted;
    },
    quiet,
    advance: (ms) => stepClock(clock, ms, quiet),
    calls,
    creates: () => calls().filter((c) => c.op === 'create'),
    updates: () => calls().filter((c) => c.op === 'update'),
    messages: (space = SPACE_NAME) => emulator.state.messages(space),
    faults: async (rules) => {
      await inspection('faults', { rules });
    },
    personDeletes: async (messageId) => {
      await inspection('delete', { messageId });
    },
    async stop() {
      await quiet();
      await runtime.stop();
      await emulator.close();
    },
  };
}

/** The successful ones. */
export const landed = (calls: RecordedCall[]): RecordedCall[] => calls.filter((c) => c.status < 300);
