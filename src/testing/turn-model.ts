import { turnMachine } from '../../machines/turn.machine.js';
import { turnTransitionKey } from './turn-driver.js';
import {
  collectNodes,
  resolveTurnModelConfig,
  type TurnCommand,
  type TurnModelConfig,
  type TurnModelOptions,
} from './turn-model-commands.js';
import { createTurnReplayer, describeTurnCommands, turnModelGraph } from './turn-model-paths.js';

export * from './turn-model-commands.js';
export * from './turn-model-logic.js';
export * from './turn-model-paths.js';

/** Every transition the turn machine defines, named as `turnTransitionKey` names a taken one. */
export function turnMachineTransitionKeys(): string[] {
  const keys: string[] = [];
  for (const node of collectNodes(turnMachine.root)) {
    for (const transitions of node.transitions.values())
      for (const t of transitions) keys.push(turnTransitionKey(t));
    for (const t of node.always ?? []) keys.push(turnTransitionKey(t));
  }
  return keys;
}

/**
 * Transitions of the turn machine that no sequence of events can take with
 * the current condenser: defensive guards, kept in the machine. A run
 * reports them as missing; this says why they are.
 */
export const turnTransitionsNotReachable: Readonly<Record<string, string>> = {
  'turn.debouncing.preparing (always) [frameUnchanged] → turn.opened.live':
    'every entry changes the rendered text (its own line, or the count in the dropped marker), so a frame prepared for new entries (or for those a failed flush left pending) never equals the text last sent',
};

/** The transitions only a rollover takes: a strategy that never rolls over (`drop-earliest`) cannot cover them. */
export function turnRolloverTransitionKeys(): string[] {
  return turnMachineTransitionKeys().filter(
    (key) => key.startsWith('turn.rolling-over') || key.includes('[frameIsRollover]'),
  );
}

/**
 * The live log's clock (`turn.opened.ticking`: a typing indicator every few
 * seconds, the rollover before the platform's edit window closes) is not
 * modelled: the memory surface has no typing indicator and the kit's turns
 * drop the edit window (they last seconds of simulated time, the window an
 * hour), so no path enters it. Its transitions are tested on a simulated
 * clock against the Discord emulator and the memory surface
 * (test/machines/turn-ticking.test.ts).
 */
export function turnTickingTransitionKeys(): string[] {
  return turnMachineTransitionKeys().filter(
    (key) => key.startsWith('turn.opened.ticking') || key.includes('→ turn.opened.ticking'),
  );
}

/** The states of the live log's clock (see `turnTickingTransitionKeys`). */
export function turnTickingStateIds(): string[] {
  return turnMachineStateIds().filter((id) => id.startsWith('turn.opened.ticking'));
}

/**
 * The transitions only a platform that keeps a live status under the thread
 * (Slack's assistant status), or that acks a turn at start (Slack's 👀 card),
 * takes: the model runs on surfaces without either. test/e2e/slack/status.test.ts
 * and test/e2e/slack/core.test.ts cover them.
 */
export function turnStatusRefreshTransitionKeys(): string[] {
  return turnMachineTransitionKeys().filter(
    (key) =>
      key.includes('refreshingStatus') || key.includes('[showsLiveStatus]') || key.includes('[acksAtStart]'),
  );
}

/** Every state node of the turn machine (ids like `turn.debouncing.waiting`). */
export function turnMachineStateIds(): string[] {
  return collectNodes(turnMachine.root).map((node) => node.id);
}

export interface TurnModelCoverage {
  states: { covered: number; total: number; missing: string[] };
  transitions: { covered: number; total: number; missing: string[] };
}

export interface TurnModelFailure {
  /** The path in words (`describeTurnCommands`), the finishing commands after `⟶`. */
  path: string;
  /** The path itself: `replayTurnCommands(failure.commands, result.config)` replays it. */
  commands: TurnCommand[];
  problems: string[];
}

export interface TurnModelResult {
  config: TurnModelConfig;
  /** The size of the model's graph within the depth bound. */
  graph: { states: number; edges: number };
  /** Paths replayed. */
  paths: number;
  coverage: TurnModelCoverage;
  /** How many replayed turns went through the situations the promises are about. */
  exercised: TurnModelExercised;
  failures: TurnModelFailure[];
}

export interface TurnModelExercised {
  /** Turns that opened more than one log message (rollovers, deleted or abandoned messages). */
  severalLogMessages: number;
  /** Turns whose log went top-level. */
  degraded: number;
  /** Turns that dead-lettered entries. */
  deadLetters: number;
  /** Turns restarted from their persisted snapshot. */
  restarted: number;
  /** Turns whose log message a person deleted. */
  deletedByAPerson: number;
  /** Turns where a shutdown flush sent (or tried to send) the pending frame and the turn went on. */
  flushed: number;
  /** Proactive turns whose header was posted (their log threaded under it). */
  headed: number;
}

const flushWentOn = (key: string): boolean =>
  key.startsWith('turn.flushing.settled (always)') && !key.endsWith('→ turn.ended');
const headerPosted = (key: string): boolean => key.startsWith('turn.heading xstate.done.actor.postHeader');

/**
 * Generates the model's paths for your settings and platform, replays each
 * against a live turn actor, and reports coverage of the machine's states and
 * transitions and every path where a promise was broken.
 */
export async function runTurnModel(opts: TurnModelOptions = {}): Promise<TurnModelResult> {
  const config = resolveTurnModelConfig(opts);
  const graph = turnModelGraph(config);
  const replay = createTurnReplayer(config);
  const transitionsTaken = new Set<string>();
  const statesVisited = new Set<string>();
  const failures: TurnModelFailure[] = [];
  const exercised: TurnModelExercised = {
    severalLogMessages: 0,
    degraded: 0,
    deadLetters: 0,
    restarted: 0,
    deletedByAPerson: 0,
    flushed: 0,
    headed: 0,
  };
  for (const commands of graph.paths) {
    const replayed = await replay(commands);
    const { context } = replayed.driver.snapshot();
    if (context.logMessages.length > 1) exercised.severalLogMessages++;
    if (context.anchor === null) exercised.degraded++;
    if (context.deadLetters.length > 0) exercised.deadLetters++;
    if (commands.some((command) => command.type === 'restart')) exercised.restarted++;
    if (commands.some((command) => command.type === 'delete')) exercised.deletedByAPerson++;
    const taken = [...replayed.driver.transitionsTaken];
    if (taken.some(flushWentOn)) exercised.flushed++;
    if (taken.some(headerPosted)) exercised.headed++;
    for (const key of replayed.driver.transitionsTaken) transitionsTaken.add(key);
    for (const id of replayed.driver.statesVisited) statesVisited.add(id);
    if (replayed.problems.length > 0) {
      failures.push({
        path: `${describeTurnCommands(replayed.commands)} ⟶ ${describeTurnCommands(replayed.finish)}`,
        commands: replayed.commands,
        problems: replayed.problems,
      });
    }
  }
  const coverageOf = (defined: string[], taken: ReadonlySet<string>) => {
    const missing = defined.filter((key) => !taken.has(key));
    return { covered: defined.length - missing.length, total: defined.length, missing };
  };
  return {
    config,
    graph: { states: graph.states, edges: graph.edges },
    paths: graph.paths.length,
    coverage: {
      states: coverageOf(turnMachineStateIds(), statesVisited),
      transitions: coverageOf(turnMachineTransitionKeys(), transitionsTaken),
    },
    exercised,
    failures,
  };
}
