/**
 * Model-based testing kit for the budget machine, on @xstate/graph.
 *
 * `createTestModel` refuses machines with delays, so the traversal runs over
 * `budgetModelLogic`: the REAL machine (provided with the real
 * implementations) plus a model clock, whose events are the budget's
 * commands — progress requests, terminal bookings, 429s, card closes — and
 * clock steps (`wait`), during which every timer due fires at its own time.
 * Snapshots are grouped by an abstraction (`serializeBudgetModelState`: the
 * machine's state, the bucket's level, waiting bookings, live cards), which
 * keeps the graph finite. `budgetModelPaths` then gives one path per edge of
 * that graph (the shortest path to its source, plus the edge), and
 * `replayBudgetCommands` runs one against a live actor on a `SimulatedClock`,
 * checking at every step that the actor is in the state the model predicted,
 * and at the end that the trace keeps the budget's promises.
 */
import { getAdjacencyMap, getShortestPaths, type TraversalOptions } from '@xstate/graph';
import {
  type ActorLogic,
  type AnyActorScope,
  createEmptyActor,
  type EventObject,
  type SnapshotFrom,
  type StateValue,
} from 'xstate';
import { type BudgetMachine, budgetMachine } from '../../machines/budget.machine.js';
import type { BudgetInEvent } from '../../machines/budget.protocol.js';
import { cloneBudgetState } from '../budget/bucket.js';
import type { BudgetInput } from '../budget/config.js';
import { createBudgetImplementations } from '../budget/implementations.js';
import { type BudgetDriver, checkBudgetTrace, createBudgetDriver, transitionKey } from './budget-driver.js';
import { detachedScope } from './detached-scope.js';

export type BudgetCommand =
  | { type: 'progress'; cardId: string; channel: string }
  | { type: 'book'; cardId: string; channel: string }
  | { type: 'queue'; cardId: string; channel: string; group: string }
  | { type: 'advisory'; cardId: string }
  | { type: 'rate-limited'; retryAfterMs: number }
  | { type: 'closed'; cardId: string }
  | { type: 'wait'; ms: number };

export interface BudgetModelSnapshot {
  status: 'active';
  output: undefined;
  error: undefined;
  machine: SnapshotFrom<BudgetMachine>;
  /** The model clock (ms since the start). */
  now: number;
}

/**
 * A small budget whose limits a few commands reach: capacity 6, reserve 3,
 * one token per 10 s — two progress tokens above the reserve, so a progress
 * frame can still find a token while a terminal frame waits on its channel.
 */
export const budgetModelInput: BudgetInput = {
  platform: 'model',
  ratePerMinute: 12,
  reserveFraction: 0.25,
  capacity: 6,
  channelSpacingMs: 1000,
  liveWindowMs: 60_000,
};

/**
 * The same budget with a channel spacing longer than a token's refill: a
 * booking waits for its channel longer than the line waits for the reserve,
 * so the serving timer must be set again when a card joins the line.
 */
export const budgetModelLongSpacingInput: BudgetInput = { ...budgetModelInput, channelSpacingMs: 20_000 };

/** Every command the traversal tries from every state. */
export const budgetModelCommands: readonly BudgetCommand[] = [
  { type: 'progress', cardId: 'card-1', channel: 'channel-x' },
  { type: 'progress', cardId: 'card-2', channel: 'channel-x' },
  { type: 'progress', cardId: 'card-3', channel: 'channel-y' },
  { type: 'book', cardId: 'card-1', channel: 'channel-x' },
  { type: 'book', cardId: 'card-3', channel: 'channel-y' },
  { type: 'queue', cardId: 'cards-x', channel: 'channel-x', group: 'turn-a' },
  { type: 'advisory', cardId: 'typing-1' },
  { type: 'rate-limited', retryAfterMs: 2500 },
  { type: 'closed', cardId: 'card-1' },
  { type: 'wait', ms: 600 },
  { type: 'wait', ms: 9000 },
];

/**
 * The commands for {@link budgetModelLongSpacingInput}: a card in a third
 * channel joins the line while the timer is set for a booking waiting on its
 * own channel, and the line moves first (issue 24 item 2). Fewer commands
 * than the full set keep the graph small.
 */
export const budgetModelLongSpacingCommands: readonly BudgetCommand[] = [
  { type: 'progress', cardId: 'card-1', channel: 'channel-x' },
  { type: 'progress', cardId: 'card-3', channel: 'channel-y' },
  { type: 'progress', cardId: 'card-4', channel: 'channel-z' },
  { type: 'book', cardId: 'card-1', channel: 'channel-x' },
  { type: 'closed', cardId: 'card-1' },
  { type: 'wait', ms: 600 },
  { type: 'wait', ms: 9000 },
];

/** The events the machine's named delays raise, read from its definition. */
const coolOffEnds: EventObject = {
  type: budgetMachine.root.states.rate!.states.coolingOff!.after[0]!.eventType,
};
const serveDue: EventObject = {
  type: budgetMachine.root.states.serving!.states.waiting!.after[0]!.eventType,
};

/** When each running timer of the machine fires, read from its context. */
function dueTimers(machine: SnapshotFrom<BudgetMachine>): Array<{ at: number; event: EventObject }> {
  const timers: Array<{ at: number; event: EventObject }> = [];
  const { context } = machine;
  if (machine.matches({ rate: 'coolingOff' }) && context.budget.coolOffUntil !== null) {
    timers.push({ at: context.budget.coolOffUntil, event: coolOffEnds });
  }
  if (machine.matches({ serving: 'waiting' }) && context.nextDueAt !== null) {
    timers.push({ at: context.nextDueAt, event: serveDue });
  }
  return timers.sort((a, b) => a.at - b.at);
}

/** The real budget machine under a model clock, as actor logic the graph functions can traverse. */
export function createBudgetModelLogic(
  input: BudgetInput = budgetModelInput,
): ActorLogic<BudgetModelSnapshot, BudgetCommand, undefined> {
  const clock = { now: 0 };
  const machine = budgetMachine.provide(createBudgetImplementations({ now: () => clock.now }));
  // Replies go nowhere during traversal; a replayed path gives each card a real recorder.
  const nobody = createEmptyActor();
  const step = (
    machineSnapshot: SnapshotFrom<BudgetMachine>,
    event: EventObject,
    at: number,
    scope: AnyActorScope,
  ) => {
    clock.now = at;
    // The actions update the bucket in place, and the traversal branches from one snapshot into many:
    // each step starts from its own copy.
    const { context } = machineSnapshot;
    const own = {
      ...machineSnapshot,
      context: {
        ...context,
        budget: cloneBudgetState(context.budget),
        lineReplyTo: { ...context.lineReplyTo },
        queuedReplyTo: { ...context.queuedReplyTo },
      },
    } as SnapshotFrom<BudgetMachine>;
    return machine.transition(own, event as never, scope as never);
  };
  const toMachineEvent = (command: Exclude<BudgetCommand, { type: 'wait' }>): BudgetInEvent => {
    switch (command.type) {
      case 'progress':
        return {
          type: 'budget.progress.request',
          cardId: command.cardId,
          channel: command.channel,
          replyTo: nobody,
        };
      case 'book':
        return {
          type: 'budget.terminal.book',
          cardId: command.cardId,
          channel: command.channel,
          replyTo: nobody,
        };
      case 'queue':
        return {
          type: 'budget.queued.book',
          cardId: command.cardId,
          channel: command.channel,
          group: command.group,
          replyTo: nobody,
        };
      case 'advisory':
        return { type: 'budget.advisory.request', purpose: 'typing', replyTo: nobody };
      case 'rate-limited':
        return { type: 'budget.rate-limited', retryAfterMs: command.retryAfterMs };
      case 'closed':
        return { type: 'budget.card.closed', cardId: command.cardId };
    }
  };
  return {
    config: machine,
    transition(snapshot, command, scope) {
      if (command.type !== 'wait') {
        return { ...snapshot, machine: step(snapshot.machine, toMachineEvent(command), snapshot.now, scope) };
      }
      const until = snapshot.now + command.ms;
      let current = snapshot.machine;
      for (let timer = dueTimers(current)[0]; timer && timer.at <= until; timer = dueTimers(current)[0]) {
        current = step(current, timer.event, timer.at, scope);
      }
      return { ...snapshot, machine: current, now: until };
    },
    getInitialSnapshot(scope) {
      clock.now = 0;
      return {
        status: 'active',
        output: undefined,
        error: undefined,
        machine: machine.getInitialSnapshot(scope as never, input),
        now: 0,
      };
    },
    getPersistedSnapshot: (snapshot) => snapshot,
  };
}

/** The abstraction the graph is built on: which budget situations count as different states. */
export function serializeBudgetModelState(snapshot: BudgetModelSnapshot): string {
  const { context, value } = snapshot.machine;
  const { tokens } = context.budget;
  const level = tokens < 0 ? 'in-debt' : tokens < context.config.reserve + 1 ? 'reserve-only' : 'progress-ok';
  return JSON.stringify({
    value,
    level,
    waitingBookings: Math.min(context.budget.bookings.length, 2),
    liveCards: context.budget.registry.liveCards,
    inLine: Math.min(context.budget.registry.waiting, 2),
  });
}

/**
 * One command sequence per edge of the model's graph: the shortest path to
 * the edge's source, then the edge. Snapshots are grouped by the abstraction,
 * so a sequence may reach its source by another concrete route than the one
 * the edge was found from; `replayBudgetCommands` therefore re-runs the model
 * along the sequence for its expectations.
 */
export function budgetModelPaths(
  input: BudgetInput = budgetModelInput,
  commands: readonly BudgetCommand[] = budgetModelCommands,
): BudgetCommand[][] {
  const logic = createBudgetModelLogic(input);
  const options: TraversalOptions<BudgetModelSnapshot, BudgetCommand, undefined> = {
    events: [...commands],
    serializeState: (snapshot) => serializeBudgetModelState(snapshot),
    serializeEvent: (command) => JSON.stringify(command) as never,
    fromState: logic.getInitialSnapshot(detachedScope('budget-model'), undefined),
  };
  const commandsTo = new Map<string, BudgetCommand[]>();
  for (const path of getShortestPaths(logic, options)) {
    // The first step is the initial snapshot (`xstate.init`), not a command.
    commandsTo.set(
      serializeBudgetModelState(path.state),
      path.steps.slice(1).map((step) => step.event),
    );
  }
  const sequences: BudgetCommand[][] = [];
  for (const [key, vertex] of Object.entries(getAdjacencyMap(logic, options))) {
    const head = commandsTo.get(key);
    if (!head) continue;
    const edges: Array<{ event: BudgetCommand }> = Object.values(vertex.transitions);
    for (const { event } of edges) sequences.push([...head, event]);
  }
  return sequences;
}

export interface BudgetReplay {
  driver: BudgetDriver;
  /** The live actor's state after each step. */
  statesVisited: StateValue[];
  /** Steps where the live actor was not in the state the model predicted. */
  mismatches: Array<{ step: number; command: BudgetCommand; expected: StateValue; actual: StateValue }>;
  /** Broken promises on the trace, after the clock ran until every timer fired. */
  violations: string[];
}

function applyCommand(driver: BudgetDriver, command: BudgetCommand): void {
  switch (command.type) {
    case 'progress':
      driver.progress(command.cardId, command.channel);
      break;
    case 'book':
      driver.book(command.cardId, command.channel);
      break;
    case 'queue':
      driver.queue(command.cardId, command.channel, command.group);
      break;
    case 'advisory':
      driver.advisory(command.cardId);
      break;
    case 'rate-limited':
      driver.rateLimited(command.retryAfterMs);
      break;
    case 'closed':
      driver.close(command.cardId);
      break;
    case 'wait':
      driver.advance(command.ms);
      break;
  }
}

/**
 * Runs commands against a live budget actor on a `SimulatedClock` and, side
 * by side, against the model; after every step the actor must be in the
 * state the model predicts.
 */
export function replayBudgetCommands(
  commands: readonly BudgetCommand[],
  input: BudgetInput = budgetModelInput,
): BudgetReplay {
  const logic = createBudgetModelLogic(input);
  const scope = detachedScope('budget-model');
  let expected = logic.getInitialSnapshot(scope, undefined);
  const driver = createBudgetDriver(input);
  const mismatches: BudgetReplay['mismatches'] = [];
  const statesVisited: StateValue[] = [];
  commands.forEach((command, step) => {
    expected = logic.transition(expected, command, scope);
    applyCommand(driver, command);
    const actual = driver.actor.getSnapshot().value;
    statesVisited.push(actual);
    if (JSON.stringify(actual) !== JSON.stringify(expected.machine.value)) {
      mismatches.push({ step, command, expected: expected.machine.value, actual });
    }
  });
  driver.settle();
  const violations = checkBudgetTrace(driver.trace, driver.config);
  driver.stop();
  return { driver, statesVisited, mismatches, violations };
}

/** Every transition the budget machine defines, named as `transitionKey` names a taken one. */
export function budgetMachineTransitionKeys(): string[] {
  const keys: string[] = [];
  const visit = (node: typeof budgetMachine.root): void => {
    for (const transitions of node.transitions.values())
      for (const t of transitions) keys.push(transitionKey(t));
    for (const t of node.always ?? []) keys.push(transitionKey(t));
    for (const child of Object.values(node.states)) visit(child);
  };
  visit(budgetMachine.root);
  return keys;
}
