/** Shared fixtures for driving a turn actor against the memory surface with a simulated clock. */
import { createActor, SimulatedClock } from 'xstate';
import type { TurnInput, TurnSettings } from '../../machines/turn.machine.js';
import { builtinPlatforms } from '../../src/platforms/all.js';
import { provideTurnMachine } from '../../src/runtime/turn.implementations.js';
import { createMemorySurface, type MemorySurfaceOptions } from '../../src/testing/memory-surface.js';
import type { TurnLogEntry } from '../../src/turnlog/types.js';

export const SPACE = 'gchat:spaces/AAAA';

export const defaultSettings: TurnSettings = {
  editDebounceMs: 1000,
  maxChars: 3500,
  strategy: 'rollover',
  editRetryMs: 500,
  terminalAttempts: 10,
};

let counter = 0;
export function entry(summary: string, extra: Partial<TurnLogEntry> = {}): TurnLogEntry {
  counter += 1;
  return {
    timestamp: '12:00:00',
    kind: 'tool',
    summary,
    rawLength: summary.length,
    messageRole: 'tool_call',
    seq: counter,
    ...extra,
  };
}

/** Lets resolved promises (surface calls) run their continuations; no time passes. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

export function startTurn(
  opts: { settings?: Partial<TurnSettings>; surface?: MemorySurfaceOptions; input?: Partial<TurnInput> } = {},
) {
  const clock = new SimulatedClock();
  const surface = createMemorySurface({ platform: 'gchat', now: () => clock.now(), ...opts.surface });
  const root = surface.inbound({ space: SPACE, text: 'please fix the build' });
  const machine = provideTurnMachine({
    platforms: builtinPlatforms,
    surfaces: surface,
    budget: 'unlimited',
    now: () => clock.now(),
  });
  const actor = createActor(machine, {
    clock,
    input: {
      turnId: 'T1',
      space: SPACE,
      anchor: { rootMessageId: root.messageId, threadId: root.threadId },
      settings: { ...defaultSettings, ...opts.settings },
      ...opts.input,
    },
  });
  actor.start();
  const writes = () => surface.calls.filter((c) => c.op === 'create' || c.op === 'update');
  const advance = async (ms: number) => {
    clock.increment(ms);
    await settle();
  };
  const state = () => actor.getSnapshot().value;
  return { clock, surface, actor, root, writes, advance, state };
}
