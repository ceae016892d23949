/**
 * The turn model's graph and its command sequences, and the replayer that runs one against a
 * live turn actor and checks the turn's promises (turn-model.ts).
 */

import { getAdjacencyMap } from '@xstate/graph';
import type { TurnLogState } from '../turnlog/log.js';
import { createTurnDriverFactory, type TurnDriver } from './turn-driver.js';
import { checkFinishedTurn, checkTurnStep } from './turn-invariants.js';
import {
  awaitsFunding,
  awaitsGrant,
  callInFlight,
  MODEL_ADOPTED_MESSAGE,
  type TurnCommand,
  type TurnModelConfig,
  type TurnModelSnapshot,
  timerEvent,
  turnModelCommands,
  turnModelEntry,
  turnModelLineBudget,
} from './turn-model-commands.js';
import {
  createTurnModelLogic,
  observeTurn,
  serializeTurnModelState,
  turnModelScope,
  turnModelSituation,
} from './turn-model-logic.js';

export interface TurnModelGraph {
  /** Abstract states (vertices) within the depth bound. */
  states: number;
  /** Edges: (state, command) pairs. */
  edges: number;
  /**
   * Paths needed to take every machine transition the graph takes and to
   * end in every situation it reaches (`turnModelSituation`): the first of `paths`.
   */
  covering: number;
  /**
   * Command sequences to replay, one per edge (the shortest path to the
   * edge's source, then the edge), none a prefix of another; first those
   * that take a machine transition no earlier one took or end in a
   * situation no earlier one ended in, then the rest spread over the graph,
   * up to `maxPaths`.
   */
  paths: TurnCommand[][];
}

/**
 * The model's graph and the paths through it. Snapshots are grouped by the
 * abstraction, so a sequence may reach its source by another concrete route
 * than the one the edge was found from; `replayTurnCommands` re-runs the
 * model along the sequence for its expectations.
 */
export function turnModelGraph(config: TurnModelConfig): TurnModelGraph {
  const logic = createTurnModelLogic(config);
  const initial = logic.getInitialSnapshot(turnModelScope(), undefined);
  // Each snapshot is serialized by the traversal and again here: once is enough.
  const keys = new WeakMap<TurnModelSnapshot, string>();
  const keyOf = (snapshot: TurnModelSnapshot): string => {
    let key = keys.get(snapshot);
    if (key === undefined) {
      key = serializeTurnModelState(snapshot);
      keys.set(snapshot, key);
    }
    return key;
  };
  const adjacency = getAdjacencyMap(logic, {
    events: (snapshot) => turnModelCommands(snapshot, config.maxDepth),
    serializeState: keyOf,
    serializeEvent: (command) => JSON.stringify(command) as never,
    fromState: initial,
  });
  interface Edge {
    commands: TurnCommand[];
    /** Machine transitions taken along the whole sequence. */
    taken: ReadonlySet<string>;
    /** The state this edge was the first to reach (it ends the shortest path there), if any. */
    discovers: string | null;
    /** The situation the sequence ends in. */
    endsIn: string;
  }
  // The map is built breadth-first, so the first edge found into a state ends a shortest path to it.
  const reach = new Map<string, Pick<Edge, 'commands' | 'taken'>>([
    [keyOf(initial), { commands: [], taken: new Set() }],
  ]);
  const edges: Edge[] = [];
  for (const [key, vertex] of Object.entries(adjacency)) {
    const head = reach.get(key);
    if (!head) continue;
    const transitions: Array<{ event: TurnCommand; state: TurnModelSnapshot }> = Object.values(
      vertex.transitions,
    );
    for (const { event, state } of transitions) {
      const target = keyOf(state);
      const discovers = reach.has(target) ? null : target;
      const edge = {
        commands: [...head.commands, event],
        taken: new Set([...head.taken, ...state.taken]),
        discovers,
        endsIn: turnModelSituation(state),
      };
      if (discovers) reach.set(target, edge);
      edges.push(edge);
    }
  }
  // A sequence is a prefix of another exactly when it ends the shortest path to a state that has edges.
  const withEdges = new Set(
    Object.entries(adjacency).flatMap(([key, vertex]) =>
      Object.keys(vertex.transitions).length > 0 ? [key] : [],
    ),
  );
  const hasEdges = (key: string): boolean => withEdges.has(key);
  const candidates = edges.filter((edge) => edge.discovers === null || !hasEdges(edge.discovers));
  const covered = new Set<string>();
  const endedIn = new Set<string>();
  const covering = candidates.filter(({ taken, endsIn }) => {
    const adds = !endedIn.has(endsIn) || [...taken].some((key) => !covered.has(key));
    for (const key of taken) covered.add(key);
    endedIn.add(endsIn);
    return adds;
  });
  const chosen = new Set(covering);
  const rest = spread(candidates.filter((candidate) => !chosen.has(candidate)));
  return {
    states: Object.keys(adjacency).length,
    edges: edges.length,
    covering: covering.length,
    paths: [...covering, ...rest]
      .slice(0, Math.max(covering.length, config.maxPaths))
      .map((edge) => edge.commands),
  };
}

/** A deterministic order that visits every part of a list early (bit-reversed indices). */
export function spread<T>(items: readonly T[]): T[] {
  let bits = 0;
  while (1 << bits < items.length) bits++;
  const order: T[] = [];
  for (let i = 0; i < 1 << bits; i++) {
    let reversed = 0;
    for (let b = 0; b < bits; b++) if (i & (1 << b)) reversed |= 1 << (bits - 1 - b);
    if (reversed < items.length) order.push(items[reversed]!);
  }
  return order;
}

/** A path in words, for failure reports: `start(thread) · log(short) · respond(ok) …`. */
export function describeTurnCommands(commands: readonly TurnCommand[]): string {
  return commands
    .map((command) => {
      switch (command.type) {
        case 'start':
          return `start(${command.threaded ? 'thread' : command.header ? 'header' : 'top-level'})`;
        case 'log':
          return `log(${command.size})`;
        case 'respond':
          return `respond(${command.result})`;
        default:
          return command.type;
      }
    })
    .join(' · ');
}

/** The commands that bring a model turn to its end: end it, then answer ok, grant, fund and wait. */
export function finishingCommand(snapshot: TurnModelSnapshot): TurnCommand | null {
  const machine = snapshot.machine;
  if (machine?.status !== 'active') return null;
  if (machine.context.outcome === null) return { type: 'end' };
  if (callInFlight(machine)) return { type: 'respond', result: 'ok' };
  if (awaitsGrant(machine)) return { type: 'grant' };
  if (awaitsFunding(machine)) return { type: 'fund' };
  if (timerEvent(machine)) return { type: 'wait' };
  return null;
}
export const MAX_FINISHING_COMMANDS = 60;

export interface TurnReplay {
  commands: TurnCommand[];
  /** The commands that finished the turn after the path. */
  finish: TurnCommand[];
  driver: TurnDriver;
  /** Steps where the live actor was not where the model said, and broken promises. */
  problems: string[];
}

/**
 * Applies a command to the live turn, as the model took it from `before`;
 * says why not when the live turn cannot take it.
 */
export async function applyToDriver(
  driver: TurnDriver,
  command: TurnCommand,
  before: TurnModelSnapshot,
  config: TurnModelConfig,
): Promise<string | null> {
  switch (command.type) {
    case 'start':
      return null;
    case 'log':
      await driver.log(turnModelEntry(before.entries + 1, command.size, turnModelLineBudget(config)));
      return null;
    case 'wait':
      return (await driver.step()) ? null : 'the model fired a timer the live turn did not set';
    case 'respond': {
      const op = driver.pendingCall();
      const expected = before.machine && callInFlight(before.machine);
      if (op === null) return 'the model answered a call the live turn did not make';
      if (expected && expected.op !== op)
        return `the model answered a ${expected.op}, the live turn made a ${op}`;
      await driver.respond(command.result);
      return null;
    }
    case 'grant':
      await driver.grant();
      return null;
    case 'refuse':
      await driver.refuse();
      return null;
    case 'fund':
      await driver.fund();
      return null;
    case 'end':
      await driver.end('ok');
      return null;
    case 'flush':
      await driver.flush();
      return null;
    case 'stop':
      await driver.pressStop();
      return null;
    case 'adopt': {
      // An explicit transition anywhere (issue 26): the turn answers the message from now on, whatever it was doing.
      await driver.adopt(MODEL_ADOPTED_MESSAGE);
      const adopted = driver.snapshot().context.adopted ?? [];
      return adopted.some((m) => m.messageId === MODEL_ADOPTED_MESSAGE)
        ? null
        : 'the turn did not record the message it adopted';
    }
    case 'delete':
      return driver.deleteCurrent() ? null : 'the model deleted a log message the live turn does not have';
    case 'restart':
      await driver.restart();
      return null;
  }
}

/** Entries a dropping strategy forgot from the open message (its sealed parts included). */
export function droppedIn(log: TurnLogState | null): number {
  if (!log) return 0;
  return log.sealed.reduce((sum, message) => sum + message.dropped, log.dropped);
}

/** The text of the last create or edit the platform accepted, if any. */
export function lastTextAccepted(driver: TurnDriver): string | null {
  const accepted = driver.surface.calls.filter(
    (call) => (call.op === 'create' || call.op === 'update') && call.status >= 200 && call.status < 300,
  );
  return accepted.at(-1)?.text ?? null;
}

/** How long the clock runs after the end, to catch any call a leftover timer would make. */
export const AFTER_THE_END_MS = 3_600_000;

/**
 * Replays command sequences for one config, each against a fresh live turn
 * actor and, side by side, against the model: after every step the live
 * turn must be where the model says. Then it finishes the turn, lets the
 * clock run an hour, and checks the turn's promises. One at a time: the
 * replays share one provided machine.
 */
export function createTurnReplayer(
  config: TurnModelConfig,
): (commands: readonly TurnCommand[]) => Promise<TurnReplay> {
  const logic = createTurnModelLogic(config);
  const scope = turnModelScope();
  const drive = createTurnDriverFactory(config);
  return async (commands) => {
    const [first, ...rest] = commands;
    if (first?.type !== 'start') {
      throw new Error(
        `replayTurnCommands: a path starts with a start command, got ${describeTurnCommands(commands)}`,
      );
    }
    let model = logic.transition(logic.getInitialSnapshot(scope, undefined), first, scope);
    const driver = await drive({ threaded: first.threaded, header: first.header === true });
    const problems: string[] = [];
    const check = (
      step: number,
      command: TurnCommand,
      refused: string | null,
      wasFlushing: boolean,
    ): void => {
      const at = `step ${step} (${describeTurnCommands([command])})`;
      if (refused) problems.push(`${at}: ${refused}`);
      const expected = model.machine ? observeTurn(model.machine) : '';
      const live = driver.snapshot();
      const actual = observeTurn(live);
      if (expected !== actual)
        problems.push(`${at}: the model expected ${expected}, the live turn is ${actual}`);
      const wentOn = wasFlushing && live.status === 'active' && !live.matches('flushing');
      const stepProblems = checkTurnStep({
        endSent: driver.endSent,
        ended: live.status === 'done',
        deadLetters: live.context.deadLetters,
        flushSettled: wentOn
          ? {
              pending: live.context.appended > live.context.shown,
              newest: driver.entries.at(-1),
              lastText: lastTextAccepted(driver),
              failures: live.context.failures,
            }
          : null,
      });
      for (const problem of stepProblems) problems.push(`${at}: ${problem}`);
    };
    const take = async (step: number, command: TurnCommand): Promise<void> => {
      const before = model;
      const wasFlushing = driver.snapshot().matches('flushing');
      model = logic.transition(model, command, scope);
      check(step, command, await applyToDriver(driver, command, before, config), wasFlushing);
    };
    check(0, first, null, false);
    for (const [i, command] of rest.entries()) await take(i + 1, command);
    const finish: TurnCommand[] = [];
    for (let command = finishingCommand(model); command; command = finishingCommand(model)) {
      if (finish.length >= MAX_FINISHING_COMMANDS) break;
      finish.push(command);
      await take(commands.length + finish.length - 1, command);
    }
    await driver.advance(AFTER_THE_END_MS);
    const snapshot = driver.snapshot();
    problems.push(
      ...checkFinishedTurn({
        entries: driver.entries,
        calls: driver.surface.calls,
        messages: driver.surface.messages(driver.space),
        logMessages: snapshot.context.logMessages,
        deadLetters: snapshot.context.deadLetters,
        ended: snapshot.status === 'done',
        callsAfterEnd: driver.callsAfterEnd(),
        budgetRequests: driver.budgetRequests,
        droppedAtEnd: droppedIn(snapshot.context.log),
        silentPosts: config.capabilities.silentPosts,
        strategy: config.settings.strategy,
        header: driver.header,
      }),
    );
    driver.stop();
    return { commands: [...commands], finish, driver, problems };
  };
}

/** Replays one command sequence (see `createTurnReplayer`). */
export const replayTurnCommands = (
  commands: readonly TurnCommand[],
  config: TurnModelConfig,
): Promise<TurnReplay> => createTurnReplayer(config)(commands);
