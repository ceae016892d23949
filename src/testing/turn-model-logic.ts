/**
 * The real turn machine under the model's commands, as actor logic the graph functions can
 * traverse, and the abstractions its states are grouped by (turn-model.ts).
 */

import { type ActorLogic, type AnyActorScope, type EventObject, fromPromise } from 'xstate';
import { frameKey, type TurnEvent } from '../../machines/turn.machine.js';
import type { Platform } from '../emulators/types.js';
import { builtinPlatforms } from '../platforms/all.js';
import { condenseBudget, provideTurnMachine } from '../runtime/turn.implementations.js';
import { SurfaceError } from '../surfaces/surface.js';
import { renderTurnLog } from '../turnlog/log.js';
import { detachedScope } from './detached-scope.js';
import { createMemorySurface, MEMORY_SURFACE_CAPABILITIES } from './memory-surface.js';
import {
  type CallResult,
  FAULT_STATUS,
  MODEL_HEADER,
  MODEL_REFUSAL_RETRY_MS,
  MODEL_RETRY_AFTER_S,
  MODEL_SPACES,
  MODEL_STOPPER,
  type TurnSnapshot,
  turnTransitionKey,
} from './turn-driver.js';
import {
  callInFlight,
  MODEL_ADOPTED_MESSAGE,
  type TurnCommand,
  type TurnModelConfig,
  type TurnModelSnapshot,
  timerEvent,
  turnModelEntry,
  turnModelLineBudget,
} from './turn-model-commands.js';

/** The errors the memory surface throws for the injected statuses (made once: an Error's stack is costly). */
export const MODEL_ERRORS: Readonly<Record<Exclude<CallResult, 'ok'>, SurfaceError>> = {
  'not-found': new SurfaceError('not-found', 'model: HTTP 404', { status: FAULT_STATUS['not-found'] }),
  'rate-limited': new SurfaceError('rate-limited', 'model: HTTP 429', {
    status: FAULT_STATUS['rate-limited'],
    retryAfterMs: MODEL_RETRY_AFTER_S * 1000,
  }),
  transient: new SurfaceError('transient', 'model: HTTP 500', { status: FAULT_STATUS.transient }),
};

/** The answer of the call in flight, as the machine receives it. */
export function callAnswer(
  snapshot: TurnModelSnapshot,
  call: NonNullable<ReturnType<typeof callInFlight>>,
  result: CallResult,
): { event: EventObject; posted: boolean } {
  const deleted = call.op === 'update' && snapshot.deleted.includes(String(call.input.messageId));
  const kind = result === 'ok' ? (deleted ? 'not-found' : null) : result;
  if (kind !== null) {
    return {
      event: { type: `xstate.error.actor.${call.id}`, error: MODEL_ERRORS[kind] } as EventObject,
      posted: false,
    };
  }
  if (call.op === 'update') return { event: { type: `xstate.done.actor.${call.id}` }, posted: false };
  const thread = call.input.thread as { threadId?: string } | undefined;
  const output = {
    messageId: `model-m${snapshot.posts + 1}`,
    ...(thread?.threadId ? { threadId: thread.threadId } : {}),
  };
  return { event: { type: `xstate.done.actor.${call.id}`, output } as EventObject, posted: true };
}

/**
 * A scope for running the machine outside an actor: messages and timers go
 * nowhere; the transitions each microstep takes are handed to `onTransitions`.
 */
export function turnModelScope(onTransitions: (keys: string[]) => void = () => {}): AnyActorScope {
  return detachedScope('turn-model', (self) =>
    Object.create(self.system, {
      _sendInspectionEvent: {
        value: (inspection: { type: string; _transitions?: Parameters<typeof turnTransitionKey>[0][] }) => {
          if (inspection.type === '@xstate.microstep')
            onTransitions((inspection._transitions ?? []).map(turnTransitionKey));
        },
      },
    }),
  );
}

/** The real turn machine under the model's commands, as actor logic the graph functions can traverse. */
export function createTurnModelLogic(
  config: TurnModelConfig,
): ActorLogic<TurnModelSnapshot, TurnCommand, undefined> {
  // The model never calls the surface: its answers are the commands.
  // The model answers every send itself (`respond`): its frame senders are placeholders that never run,
  // cheaper to create on every send than the real child machine (the live replay runs that one).
  const unanswered = fromPromise<never, unknown>(() => new Promise<never>(() => {}));
  const machine = provideTurnMachine({
    surfaces: createMemorySurface({ platform: config.platform, capabilities: config.capabilities }),
    platforms: builtinPlatforms,
    budget: 'system',
  }).provide({ actors: { postMessage: unanswered as never, editMessage: unanswered as never } });
  const space = MODEL_SPACES[config.platform];
  let taken: string[] = [];
  // Its own scope, whatever the caller passes: it records the transitions taken.
  const scope = turnModelScope((keys) => taken.push(...keys));
  const step = (snapshot: TurnSnapshot, event: TurnEvent | EventObject): TurnSnapshot =>
    machine.transition(snapshot, event as TurnEvent, scope as never) as TurnSnapshot;

  const apply = (model: TurnModelSnapshot, command: TurnCommand): TurnModelSnapshot => {
    const next = { ...model, depth: model.depth + 1 };
    if (command.type === 'start') {
      if (command.threaded && command.header) {
        throw new Error(
          `model: a proactive turn (header) starts without a thread, got ${JSON.stringify(command)}`,
        );
      }
      const anchor = command.threaded ? { rootMessageId: 'root', threadId: 'root' } : null;
      const input = {
        turnId: 'T1',
        space,
        anchor,
        settings: config.settings,
        ...(command.header ? { header: MODEL_HEADER } : {}),
      };
      return { ...next, machine: machine.getInitialSnapshot(scope as never, input) as TurnSnapshot };
    }
    const current = model.machine;
    if (!current) throw new Error(`model: ${command.type} before start`);
    switch (command.type) {
      case 'log': {
        const entry = turnModelEntry(model.entries + 1, command.size, turnModelLineBudget(config));
        return { ...next, entries: model.entries + 1, machine: step(current, { type: 'turn.log', entry }) };
      }
      case 'wait': {
        const event = timerEvent(current);
        if (!event) throw new Error('model: wait with no timer set');
        return { ...next, machine: step(current, { type: event }) };
      }
      case 'respond': {
        const call = callInFlight(current);
        if (!call) throw new Error('model: respond with no call in flight');
        const answer = callAnswer(model, call, command.result);
        return {
          ...next,
          posts: model.posts + (answer.posted ? 1 : 0),
          machine: step(current, answer.event),
        };
      }
      case 'grant':
        return { ...next, machine: step(current, { type: 'budget.granted' }) };
      case 'refuse': {
        const refused = { type: 'budget.refused', retryInMs: MODEL_REFUSAL_RETRY_MS, reason: 'fair-share' };
        return { ...next, machine: step(current, refused) };
      }
      case 'fund':
        return { ...next, machine: step(current, { type: 'budget.funded' }) };
      case 'end':
        return { ...next, machine: step(current, { type: 'turn.end', outcome: 'ok' }) };
      case 'flush':
        return { ...next, machine: step(current, { type: 'turn.flush' }) };
      case 'stop':
        return { ...next, machine: step(current, { type: 'turn.stopRequested', user: MODEL_STOPPER }) };
      case 'adopt':
        return {
          ...next,
          machine: step(current, { type: 'turn.adopt', messages: [{ messageId: MODEL_ADOPTED_MESSAGE }] }),
        };
      case 'delete': {
        const id = current.context.current?.messageId;
        return id ? { ...next, deleted: [...model.deleted, id] } : next;
      }
      case 'restart': {
        // Through JSON, as a store keeps it.
        const persisted = JSON.parse(JSON.stringify(machine.getPersistedSnapshot(current)));
        const restored = machine.restoreSnapshot(persisted, scope as never) as TurnSnapshot;
        return { ...next, machine: step(restored, { type: 'turn.recover' }) };
      }
    }
  };

  return {
    config: machine,
    transition(model, command) {
      taken = [];
      const next = apply(model, command);
      return { ...next, taken };
    },
    getInitialSnapshot: () => ({
      status: 'active',
      output: undefined,
      error: undefined,
      machine: null,
      depth: 0,
      entries: 0,
      posts: 0,
      deleted: [],
      taken: [],
    }),
    getPersistedSnapshot: (snapshot) => snapshot,
  };
}

/** What the model and the live actor must agree on after every step (no platform ids). */
export function observeTurn(snapshot: TurnSnapshot): string {
  const c = snapshot.context;
  return JSON.stringify({
    value: snapshot.value,
    status: snapshot.status,
    appended: c.appended,
    shown: c.shown,
    entryCount: c.entryCount,
    logMessages: c.logMessages.map((m) => m.final),
    current: c.current !== null,
    threaded: c.anchor !== null,
    header: c.header !== null,
    outcome: c.outcome,
    failures: c.failures,
    frame: c.frame?.kind ?? null,
    deadLetters: c.deadLetters.map((letter) => letter.entries.length),
  });
}

/** The live log message: none, there, or deleted by a person. */
export function currentMessage(snapshot: TurnModelSnapshot): 'live' | 'deleted' | null {
  const current = snapshot.machine?.context.current ?? null;
  if (current === null) return null;
  return snapshot.deleted.includes(current.messageId) ? 'deleted' : 'live';
}

/**
 * The abstraction the graph is built on: which turn situations count as
 * different states (the machine's state and what its guards read, capped).
 */
export function serializeTurnModelState(snapshot: TurnModelSnapshot): string {
  const machine = snapshot.machine;
  if (!machine) return 'not started';
  // Nothing can happen after the end: one state, however it came.
  if (machine.status === 'done') return 'ended';
  const c = machine.context;
  return JSON.stringify({
    value: machine.value,
    threaded: c.anchor !== null,
    pending: Math.min(c.appended - c.shown, 3),
    fresh: c.frame ? c.appended > c.frame.appended : null,
    frame: c.frame?.kind ?? null,
    unchanged: c.frame !== null && frameKey(c.frame) === c.lastSentText,
    // What a frame rendered now would be: a dropping strategy rolls over without sealing anything.
    renders: c.log
      ? renderTurnLog(c.log, {
          // The machine's budget: the headline's room is kept free below the platform's limit.
          maxChars: condenseBudget(
            c.settings.maxChars,
            MEMORY_SURFACE_CAPABILITIES[c.space.split(':')[0] as Platform].maxChars,
            c.title,
          ),
          strategy: c.settings.strategy,
        }).kind
      : null,
    sealed: Math.min(c.log?.sealed.length ?? 0, 2),
    window: Math.min(c.log?.window.length ?? 0, 3),
    dropped: (c.log?.dropped ?? 0) > 0,
    messages: Math.min(c.logMessages.length, 2),
    current: currentMessage(snapshot),
    endReceived: c.outcome !== null,
    failures: c.failures,
  });
}

/**
 * A coarser view than the graph's abstraction: what the turn waits on and
 * owes. A path that ends in each situation the graph reaches is replayed, so
 * a turn left waiting with nothing to wake it (an end already received,
 * nothing pending, no timer nor call) is finished from there at least once.
 */
export function turnModelSituation(snapshot: TurnModelSnapshot): string {
  const machine = snapshot.machine;
  if (!machine) return 'not started';
  if (machine.status === 'done') return 'ended';
  const c = machine.context;
  return JSON.stringify({
    value: machine.value,
    endReceived: c.outcome !== null,
    pending: c.appended > c.shown,
    threaded: c.anchor !== null,
    current: currentMessage(snapshot),
  });
}
