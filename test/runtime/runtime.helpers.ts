/** A runtime on the memory surface with a simulated clock, for actor-level end-to-end tests. */
import { SimulatedClock } from 'xstate';
import type { TurnlogConfigInput } from '../../src/config.js';
import type { Platform } from '../../src/emulators/types.js';
import { builtinPlatforms } from '../../src/platforms/all.js';
import { createRuntime, type Runtime, type RuntimeOptions } from '../../src/runtime.js';
import { createMemoryStore } from '../../src/store/memory.js';
import type { TurnlogStore } from '../../src/store/store.js';
import { createMemorySurface, type MemorySurface } from '../../src/testing/memory-surface.js';

export const SPACE = 'gchat:spaces/AAAA';
const STEP_MS = 100;

export async function settle(): Promise<void> {
  for (let i = 0; i < 8; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

export interface Harness {
  runtime: Runtime;
  surface: MemorySurface;
  clock: SimulatedClock;
  store: TurnlogStore;
  warnings: string[];
  send(event: Record<string, unknown>): void;
  advance(ms: number): Promise<void>;
  /** A person's message in the space, recorded as an inbound anchor with `ref`. */
  userMessage(ref: string, opts?: { threadId?: string }): { messageId: string; threadId: string };
}

export async function startRuntime(
  opts: {
    config?: TurnlogConfigInput;
    platform?: Platform;
    space?: string;
    surface?: MemorySurface;
    store?: TurnlogStore;
    clock?: SimulatedClock;
    inspect?: RuntimeOptions['inspect'];
  } = {},
): Promise<Harness> {
  const clock = opts.clock ?? new SimulatedClock();
  const platform = opts.platform ?? 'gchat';
  const space = opts.space ?? SPACE;
  const surface = opts.surface ?? createMemorySurface({ platform, now: () => clock.now() });
  const store = opts.store ?? createMemoryStore();
  const warnings: string[] = [];
  const runtime = createRuntime({
    platforms: builtinPlatforms,
    config: opts.config ?? {},
    surfaces: { [platform]: surface },
    store,
    clock,
    logger: { warn: (m) => warnings.push(m), error: (m) => warnings.push(`error: ${m}`) },
    ...(opts.inspect ? { inspect: opts.inspect } : {}),
  });
  await runtime.ready;
  const send = (event: Record<string, unknown>) => {
    const result = runtime.ingest({ space, ...event });
    if (!result.ok) throw new Error(result.error);
  };
  return {
    runtime,
    surface,
    clock,
    store,
    warnings,
    send,
    // Time moves in small steps with the surface's promises settling in between, as they would in real time.
    async advance(ms) {
      for (let left = ms; left > 0; left -= STEP_MS) {
        clock.increment(Math.min(STEP_MS, left));
        await settle();
      }
    },
    userMessage(ref, o = {}) {
      const posted = surface.inbound({
        space,
        text: `user message ${ref}`,
        ...(o.threadId ? { threadId: o.threadId } : {}),
      });
      send({ type: 'inbound', messageId: posted.messageId, threadId: posted.threadId, ref });
      return posted;
    },
  };
}

/**
 * The first process of a restart test: turn T1 in reply to `u1`, its log posted with one entry and a
 * second entry waiting in the debounce window when the runtime stops. Resolves with the user message.
 */
export async function firstProcessWithPendingEntry(
  opts: Parameters<typeof startRuntime>[0],
): Promise<{ messageId: string; threadId: string }> {
  const first = await startRuntime(opts);
  const root = first.userMessage('u1');
  first.send({ type: 'turn_started', turnId: 'T1', rootRef: 'u1' });
  first.send({ type: 'tool_call', turnId: 'T1', callId: 'c1', tool: 'Read', input: { path: 'one.ts' } });
  await first.advance(100);
  first.send({ type: 'tool_call', turnId: 'T1', callId: 'c2', tool: 'Read', input: { path: 'two.ts' } });
  await first.advance(100);
  await first.runtime.stop();
  return root;
}

/** A note for a turn no one started ('T1 ' with its trailing space): a stray, shown in the space's stray log. */
export const stray = (h: Harness, text: string) => h.send({ type: 'note', turnId: 'T1 ', text });
/** Top-level messages the surface created (the stray log's, among others). */
export const topLevelCreates = (surface: MemorySurface) =>
  surface.calls.filter((c) => c.op === 'create' && c.status < 300 && c.thread === null);
/** Every message of the space, joined: what a person sees there. */
export const spaceText = (surface: MemorySurface) =>
  surface
    .messages(SPACE)
    .map((m) => m.text)
    .join('\n');
/** How many times `needle` occurs in `text`. */
export const count = (text: string, needle: string) => text.split(needle).length - 1;
