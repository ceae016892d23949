/** A runtime with a click resolver of the test's own, and intake events for it (test/actions). */
import { SimulatedClock } from 'xstate';
import type { ClickIntake, ClickResolver, MessageIntake, NewAction } from '../../src/actions/types.js';
import { builtinPlatforms } from '../../src/platforms/all.js';
import { createRuntime, type Runtime } from '../../src/runtime.js';
import { createMemoryStore } from '../../src/store/memory.js';
import type { TurnlogStore } from '../../src/store/store.js';
import { createMemorySurface, type MemorySurface } from '../../src/testing/memory-surface.js';
import { SPACE } from '../runtime/runtime.helpers.js';

export interface ActionsHarness {
  runtime: Runtime;
  surface: MemorySurface;
  clock: SimulatedClock;
  store: TurnlogStore;
  /** The action each button (`messageId` + `action`) means; the first click wins, as a card's does. */
  buttons: Map<string, NewAction>;
  message(text: string, dedupeKey?: string): MessageIntake;
  click(messageId: string, action: string, dedupeKey: string): ClickIntake;
}

export async function startActionsRuntime(opts: { store?: TurnlogStore } = {}): Promise<ActionsHarness> {
  const clock = new SimulatedClock();
  const surface = createMemorySurface({ platform: 'gchat', now: () => clock.now() });
  const store = opts.store ?? createMemoryStore();
  const buttons = new Map<string, NewAction>();
  const decided = new Set<string>();
  const resolveClick: ClickResolver = async (click) => {
    const action = buttons.get(`${click.messageId} ${click.action}`);
    if (!action) return { status: 'unknown', text: 'not a button of this test' };
    if (decided.has(click.messageId)) return { status: 'already-decided', text: 'already decided' };
    decided.add(click.messageId);
    return { status: 'accepted', action: { ...action, user: click.user, at: click.at } as NewAction };
  };
  const runtime = createRuntime({
    platforms: builtinPlatforms,
    surfaces: { gchat: surface },
    store,
    clock,
    resolveClick,
    logger: { warn: () => {}, error: () => {} },
  });
  await runtime.ready;
  let n = 0;
  return {
    runtime,
    surface,
    clock,
    store,
    buttons,
    message(text, dedupeKey) {
      const posted = surface.inbound({ space: SPACE, text });
      return {
        kind: 'message',
        space: SPACE,
        messageId: posted.messageId,
        threadId: posted.threadId,
        text,
        dm: false,
        user: { id: 'users/1', name: 'Alice' },
        at: clock.now(),
        dedupeKey: dedupeKey ?? posted.messageId,
      };
    },
    click(messageId, action, dedupeKey) {
      return {
        kind: 'click',
        space: SPACE,
        messageId,
        action,
        user: { id: `users/${++n}`, name: 'Bob' },
        at: clock.now(),
        dedupeKey,
      };
    },
  };
}

export const decision = (turnId: string, requestId: string, value: 'approved' | 'rejected'): NewAction => ({
  type: 'decision',
  space: SPACE,
  at: 0,
  user: { id: 'users/0' },
  turnId,
  requestId,
  decision: value,
});
