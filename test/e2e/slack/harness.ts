/**
 * End to end on Slack: the real runtime (createRuntime: ingest → space →
 * turn → budget) on the Slack surface, through @slack/web-api's WebClient,
 * against the Slack emulator over loopback HTTP. One SimulatedClock drives
 * the runtime's timers, the surface's clock and the emulator's clock (its
 * rate-limit windows); time moves in 100 ms steps and after each step the
 * harness waits (vi.waitFor) until no Slack call is in flight, so every test
 * reads the emulator's recorded calls at a quiet point.
 *
 * The surface is counted, not changed: a wrapper tracks calls in flight.
 */
import { SimulatedClock } from 'xstate';
import type { TurnlogConfigInput } from '../../../src/config.js';
import type { EmulatorServer } from '../../../src/emulators/core/index.js';
import { type SlackEmulatorOptions, startSlackEmulator } from '../../../src/emulators/slack/index.js';
import type { EmulatedMessage, FaultRule, RecordedCall } from '../../../src/emulators/types.js';
import { createSlackSurface, type SlackSurface } from '../../../src/platforms/slack/surface.js';
import { createRuntime, type Runtime } from '../../../src/runtime.js';
import { createMemoryStore } from '../../../src/store/memory.js';
import type { TurnlogStore } from '../../../src/store/store.js';
import { countCalls, createInFlight, stepClock, untilNoCallInFlight } from '../shared/calls-in-flight.js';

export const START_MS = Date.UTC(2026, 0, 1, 12, 0, 0);
export const CHANNEL = 'C0E2ESLACK';
export const SPACE = `slack:${CHANNEL}`;
export const BOT_TOKEN = 'xoxb-e2e-bot-token';

export interface SlackE2E {
  runtime: Runtime;
  emulator: EmulatorServer;
  clock: SimulatedClock;
  store: TurnlogStore;
  surface: SlackSurface;
  /** Warnings and errors the runtime logged. */
  warnings: string[];
  /** Ingests one event into `space` (default SPACE); throws on a refused one. */
  send(event: Record<string, unknown>, space?: string): void;
  /** A person writes in a channel (a new thread unless `threadId`), fed to the runtime as an `inbound` event with `ref`. */
  userMessage(
    ref: string,
    opts?: { threadId?: string; space?: string; text?: string },
  ): Promise<{ messageId: string; threadId: string }>;
  /** Lets every call the runtime has started land. */
  quiet(): Promise<void>;
  /** Moves the clock `ms` forward in small steps, quiet after each. */
  advance(ms: number): Promise<void>;
  /** Calls the app made (a person's messages and deletions left out). */
  calls(): RecordedCall[];
  creates(): RecordedCall[];
  updates(): RecordedCall[];
  messages(channel?: string): EmulatedMessage[];
  faults(rules: FaultRule[]): Promise<void>;
  /** A person deletes a message (`POST /_emulator/delete`). */
  personDeletes(messageId: string): Promise<void>;
  /** Stops the runtime only (a restart keeps the emulator and the store). */
  stopRuntime(): Promise<void>;
  /** A new runtime on the same store, surface and emulator (a restart). */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

export async function inspectEmulator(url: string, endpoint: string, body: unknown): Promise<unknown> {
  const res = await fetch(`${url}/_emulator/${endpoint}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const answer = (await res.json()) as unknown;
  if (!res.ok) throw new Error(`/_emulator/${endpoint} answered ${res.status}: ${JSON.stringify(answer)}`);
  return answer;
}

export async function startSlackE2E(
  opts: {
    config?: TurnlogConfigInput;
    emulator?: Omit<SlackEmulatorOptions, 'now'>;
    store?: TurnlogStore;
  } = {},
): Promise<SlackE2E> {
  const clock = new SimulatedClock();
  clock.set(START_MS);
  const emulator = await startSlackEmulator({ ...opts.emulator, now: () => clock.now() });
  const store = opts.store ?? createMemoryStore();
  const inFlight = createInFlight();
  const warnings: string[] = [];
  const surface = createSlackSurface({ token: BOT_TOKEN, apiUrl: emulator.url, now: () => clock.now() });
  const start = async (): Promise<Runtime> => {
    const runtime = createRuntime({
      config: opts.config ?? {},
      surfaces: { slack: countCalls(surface, inFlight) },
      store,
      clock,
      logger: { warn: (m) => warnings.push(m), error: (m) => warnings.push(`error: ${m}`) },
      inspect: () => {},
    });
    await runtime.ready;
    return runtime;
  };
  let runtime = await start();

  const send = (event: Record<string, unknown>, space = SPACE) => {
    const result = runtime.ingest({ space, ...event });
    if (!result.ok) throw new Error(result.error);
  };

  const quiet = () => untilNoCallInFlight(inFlight, 'Slack');

  const calls = () =>
    emulator.state
      .calls()
      .filter((c) => c.op !== 'inbound' && c.path !== '/_emulator/delete' && c.path !== '/api/auth.test');

  let stopped = false;
  return {
    get runtime() {
      return runtime;
    },
    emulator,
    clock,
    store,
    surface,
    warnings,
    send,
    async userMessage(ref, o = {}) {
      const space = o.space ?? SPACE;
      const posted = (await inspectEmulator(emulator.url, 'inbound', {
        space: space.slice('slack:'.length),
        text: o.text ?? `user message ${ref}`,
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
    messages: (channel = CHANNEL) => emulator.state.messages(channel),
    faults: async (rules) => {
      await inspectEmulator(emulator.url, 'faults', { rules });
    },
    personDeletes: async (messageId) => {
      await inspectEmulator(emulator.url, 'delete', { messageId });
    },
    async stopRuntime() {
      await quiet();
      await runtime.stop();
      stopped = true;
    },
    async restart() {
      runtime = await start();
      stopped = false;
    },
    async stop() {
      if (!stopped) {
        await quiet();
        await runtime.stop();
      }
      await emulator.close();
    },
  };
}

/** The successful ones (Slack refuses with HTTP 200 and `{ok: false, error}`: the emulator records the error). */
export const landed = (calls: RecordedCall[]): RecordedCall[] =>
  calls.filter((c) => c.status < 300 && c.details?.error === undefined);
