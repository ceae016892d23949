/**
 * Model-based testing kit for the turn machine, on @xstate/graph.
 *
 * `createTestModel` refuses machines with `invoke` and `after`, so, as for
 * the budget (budget-model.ts), the traversal runs over `createTurnModelLogic`:
 * the REAL turn machine (provided with the real implementations, budget
 * `system`) whose events are the world's commands — an entry arrives, the
 * clock steps to the turn's next timer (`xstate.after.*`), the call in flight
 * succeeds or fails with 404/429/500 (`xstate.done.actor.*` /
 * `xstate.error.actor.*`), the budget grants, refuses or funds, the turn
 * ends, a shutdown flushes it (`turn.flush`), a person deletes the log
 * message, the process restarts (the persisted snapshot through JSON, then
 * `turn.recover`). A turn starts threaded, top-level, or proactive (with a
 * header, which it posts first and threads its log under). Snapshots are
 * grouped by an abstraction (`serializeTurnModelState`) and the traversal is
 * bounded by a depth, which keeps the graph finite. `turnModelGraph` gives
 * one command sequence per edge of it (the shortest path to the edge's
 * source, then the edge), first those that take a machine transition no
 * earlier one took or end in a situation (`turnModelSituation`) no earlier
 * one ended in, then a spread of the rest, up to `maxPaths`.
 * `createTurnReplayer` runs a sequence against a LIVE turn actor
 * (turn-driver.ts), checks after every step that it is where the model says
 * and what a flush promises, finishes the turn (end, then every call
 * answered ok and every budget request granted or funded) and checks the
 * turn's promises (turn-invariants.ts).
 * `runTurnModel` does it all for a user's settings and platform.
 */
import { getAdjacencyMap } from '@xstate/graph';
import type { ActorLogic, AnyActorScope, EventObject } from 'xstate';
import {
  DEFAULT_TURN_TITLE,
  frameKey,
  type TurnEvent,
  type TurnSettings,
  turnMachine,
} from '../../machines/turn.machine.js';
import type { Platform } from '../events/schema.js';
import { condenseBudget, provideTurnMachine } from '../runtime/turn.implementations.js';
import { createMemorySurface, MEMORY_SURFACE_CAPABILITIES } from '../surfaces/memory.js';
import { type SurfaceCapabilities, SurfaceError } from '../surfaces/surface.js';
import { resolveCondenseOpts } from '../turnlog/condense.js';
import { renderTurnLog, type TurnLogState } from '../turnlog/log.js';
import type { TurnLogEntry } from '../turnlog/types.js';
import { detachedScope } from './detached-scope.js';
import {
  CALL_RESULTS,
  type CallResult,
  createTurnDriverFactory,
  FAULT_STATUS,
  type GatedOp,
  MODEL_HEADER,
  MODEL_REFUSAL_RETRY_MS,
  MODEL_RETRY_AFTER_S,
  MODEL_SPACES,
  MODEL_STOPPER,
  type TurnDriver,
  type TurnSnapshot,
  turnTransitionKey,
} from './turn-driver.js';
import { checkFinishedTurn, checkTurnStep, turnModelEntryTag } from './turn-invariants.js';

export type TurnCommand =
  /**
   * Always first: the turn starts anchored on a person's message (a thread),
   * without one (top-level), or proactive (`header`: no thread, its header
   * posted first and the log threaded under it).
   */
  | { type: 'start'; threaded: boolean; header?: boolean }
  /** `short`: two fit in a log message, three do not; `long`: one fills a message on its own. */
  | { type: 'log'; size: 'short' | 'long' }
  | { type: 'wait' }
  | { type: 'respond'; result: CallResult }
  | { type: 'grant' }
  | { type: 'refuse' }
  | { type: 'fund' }
  | { type: 'end' }
  /** A shutdown: send the pending frame now, then go on. */
  | { type: 'flush' }
  /** A person presses Stop on the log (once: the button goes). */
  | { type: 'stop' }
  | { type: 'delete' }
  | { type: 'restart' };

/**
 * The production defaults (config.ts), except `terminalAttempts`: 1, so a
 * path of a few events can exhaust the terminal retries and reach the dead
 * letters.
 */
export const turnModelSettings: TurnSettings = {
  editDebounceMs: 1000,
  maxChars: 3500,
  strategy: 'rollover',
  editRetryMs: 500,
  terminalAttempts: 1,
};
/** Deep enough for a shutdown flush whose send fails for good (two failed terminal sends) after a 404. */
export const DEFAULT_TURN_MODEL_DEPTH = 12;
export const DEFAULT_TURN_MODEL_PATHS = 400;

export interface TurnModelOptions {
  /** Your settings, over `turnModelSettings`. */
  settings?: Partial<TurnSettings>;
  /** Default `gchat`. */
  platform?: Platform;
  /** Your platform's capabilities, over the memory surface's defaults for it. */
  capabilities?: Partial<SurfaceCapabilities>;
  /** Commands per path before the turn is finished (`start` included). Default 12. */
  maxDepth?: number;
  /**
   * Paths to replay, at least those needed to take every transition the
   * graph reaches and end in every situation it reaches. Default 400;
   * `Infinity` replays one per edge of the graph.
   */
  maxPaths?: number;
}

export interface TurnModelConfig {
  settings: TurnSettings;
  platform: Platform;
  capabilities: SurfaceCapabilities;
  maxDepth: number;
  maxPaths: number;
}

export function resolveTurnModelConfig(opts: TurnModelOptions = {}): TurnModelConfig {
  const settings: TurnSettings = { ...turnModelSettings, ...opts.settings };
  resolveCondenseOpts({ maxChars: settings.maxChars, strategy: settings.strategy });
  for (const key of ['editDebounceMs', 'editRetryMs'] as const) {
    if (!Number.isInteger(settings[key]) || settings[key] < 0) {
      throw new RangeError(
        `runTurnModel: settings.${key} must be an integer ≥ 0, got ${String(settings[key])}`,
      );
    }
  }
  if (!Number.isInteger(settings.terminalAttempts) || settings.terminalAttempts < 1) {
    throw new RangeError(
      `runTurnModel: settings.terminalAttempts must be an integer ≥ 1, got ${String(settings.terminalAttempts)}`,
    );
  }
  const platform = opts.platform ?? 'gchat';
  if (!Object.hasOwn(MEMORY_SURFACE_CAPABILITIES, platform)) {
    throw new RangeError(
      `runTurnModel: platform must be one of ${Object.keys(MEMORY_SURFACE_CAPABILITIES).join(', ')}; got ${JSON.stringify(platform)}`,
    );
  }
  const maxDepth = opts.maxDepth ?? DEFAULT_TURN_MODEL_DEPTH;
  if (!Number.isInteger(maxDepth) || maxDepth < 2) {
    throw new RangeError(`runTurnModel: maxDepth must be an integer ≥ 2, got ${String(maxDepth)}`);
  }
  const maxPaths = opts.maxPaths ?? DEFAULT_TURN_MODEL_PATHS;
  if (!(maxPaths === Number.POSITIVE_INFINITY || (Number.isInteger(maxPaths) && maxPaths >= 1))) {
    throw new RangeError(
      `runTurnModel: maxPaths must be an integer ≥ 1 or Infinity, got ${String(maxPaths)}`,
    );
  }
  // No edit window (see `turnTickingTransitionKeys`): the kit's turns last seconds of simulated time.
  const capabilities = {
    ...MEMORY_SURFACE_CAPABILITIES[platform],
    maxEditableAgeMs: undefined,
    ...opts.capabilities,
  };
  if (capabilities.maxChars < settings.maxChars) {
    throw new RangeError(
      `runTurnModel: settings.maxChars (${settings.maxChars}) is over the platform's maxChars (${capabilities.maxChars})`,
    );
  }
  return { settings, platform, capabilities, maxDepth, maxPaths };
}

/**
 * What the machine's condenser gets for the log lines of a kit turn (untitled):
 * `maxChars` less the headline's room; the kit sizes its entries by it.
 */
export const turnModelLineBudget = (config: TurnModelConfig): number =>
  condenseBudget(config.settings.maxChars, config.capabilities.maxChars, DEFAULT_TURN_TITLE);

/** `• HH:MM:SS  ` before every summary (renderEntryLine, depth 0). */
const LINE_PREFIX = '• 12:00:00  '.length;

/**
 * The kit's `seq`-th entry (1-based). Sizes follow `maxChars`: a short line
 * is just under half a message, a long summary fills a message by itself.
 */
export function turnModelEntry(seq: number, size: 'short' | 'long', maxChars: number): TurnLogEntry {
  const lineChars = size === 'short' ? Math.floor((maxChars - 1) / 2) : maxChars;
  const head = `${turnModelEntryTag(seq)} tool: `;
  const summary = head + 'x'.repeat(Math.max(0, lineChars - LINE_PREFIX - head.length));
  return {
    timestamp: '12:00:00',
    kind: 'tool',
    summary,
    rawLength: summary.length,
    messageRole: 'tool_call',
    seq,
  };
}

export interface TurnModelSnapshot {
  status: 'active';
  output: undefined;
  error: undefined;
  /** null before `start`. */
  machine: TurnSnapshot | null;
  /** Commands applied so far. */
  depth: number;
  /** Entries sent so far (the next one's seq is this + 1). */
  entries: number;
  /** Messages the model's platform made, for their ids. */
  posts: number;
  /** Message ids a person deleted. */
  deleted: string[];
  /** The machine transitions the last command took (`turnTransitionKey`). */
  taken: string[];
}

/** The states with a timer and the event it raises, read from the machine's definition. */
const timedStates = collectNodes(turnMachine.root).flatMap((node) =>
  node.after.length > 0 ? [{ path: node.path, event: node.after[0]!.eventType }] : [],
);
/** The states that invoke a surface call: invoke id and what it does. */
const callingStates = collectNodes(turnMachine.root).flatMap((node) =>
  node.invoke.map((invoke) => ({
    id: invoke.id,
    op: (invoke.src === 'postMessage' ? 'create' : 'update') as GatedOp,
  })),
);

/** The states that handle a shutdown flush (where it means something, if only to be ignored). */
const flushHandlers = collectNodes(turnMachine.root).flatMap((node) =>
  node.transitions.has('turn.flush') ? [node.path] : [],
);

function collectNodes(node: typeof turnMachine.root): Array<typeof turnMachine.root> {
  return [node, ...Object.values(node.states).flatMap(collectNodes)];
}

const valueAt = (path: readonly string[]): unknown =>
  path.reduceRight<unknown>((inner, key) => (inner === undefined ? key : { [key]: inner }), undefined);

function timerEvent(snapshot: TurnSnapshot): string | null {
  return timedStates.find((state) => snapshot.matches(valueAt(state.path) as never))?.event ?? null;
}

function callInFlight(
  snapshot: TurnSnapshot,
): { id: string; op: GatedOp; input: Record<string, unknown> } | null {
  for (const call of callingStates) {
    // The call is a frame sender (its request in its context) or a promise actor (its input).
    const child = snapshot.children[call.id as keyof typeof snapshot.children] as
      | { getSnapshot(): { input?: unknown; context?: { request?: unknown } } }
      | undefined;
    if (child) {
      const state = child.getSnapshot();
      return { ...call, input: (state.context?.request ?? state.input ?? {}) as Record<string, unknown> };
    }
  }
  return null;
}

/** The states that wait for a progress token (an edit's, or a create's), read from the machine's definition. */
const grantingStates = collectNodes(turnMachine.root).flatMap((node) =>
  node.transitions.has('budget.granted') ? [node.path] : [],
);
const awaitsGrant = (snapshot: TurnSnapshot): boolean =>
  grantingStates.some((path) => snapshot.matches(valueAt(path) as never));
const awaitsFunding = (snapshot: TurnSnapshot): boolean => snapshot.matches({ flushing: 'booking' });
const handlesFlush = (snapshot: TurnSnapshot): boolean =>
  flushHandlers.some((path) => snapshot.matches(valueAt(path) as never));

/** The commands that mean something in a model state (none past the depth bound or after the end). */
export function turnModelCommands(snapshot: TurnModelSnapshot, maxDepth: number): TurnCommand[] {
  if (snapshot.depth >= maxDepth) return [];
  const machine = snapshot.machine;
  if (!machine) {
    return [
      { type: 'start', threaded: true },
      { type: 'start', threaded: false },
      { type: 'start', threaded: false, header: true },
    ];
  }
  if (machine.status !== 'active') return [];
  const commands: TurnCommand[] = [
    { type: 'log', size: 'short' },
    { type: 'log', size: 'long' },
  ];
  const timer = timerEvent(machine) !== null;
  const call = callInFlight(machine) !== null;
  const grant = awaitsGrant(machine);
  const fund = awaitsFunding(machine);
  if (timer) commands.push({ type: 'wait' });
  if (call) for (const result of CALL_RESULTS) commands.push({ type: 'respond', result });
  if (grant) commands.push({ type: 'grant' }, { type: 'refuse' });
  if (fund) commands.push({ type: 'fund' });
  if (machine.context.outcome === null) commands.push({ type: 'end' });
  if (machine.context.outcome === null && !machine.context.stopRequest) commands.push({ type: 'stop' });
  if (handlesFlush(machine)) commands.push({ type: 'flush' });
  const current = machine.context.current;
  if (current && !snapshot.deleted.includes(current.messageId)) commands.push({ type: 'delete' });
  // A restart matters where the turn waits on something: a timer, a call, the budget (`turn.recover`).
  if (timer || call || grant || fund) commands.push({ type: 'restart' });
  return commands;
}

/** The errors the memory surface throws for the injected statuses (made once: an Error's stack is costly). */
const MODEL_ERRORS: Readonly<Record<Exclude<CallResult, 'ok'>, SurfaceError>> = {
  'not-found': new SurfaceError('not-found', 'model: HTTP 404', { status: FAULT_STATUS['not-found'] }),
  'rate-limited': new SurfaceError('rate-limited', 'model: HTTP 429', {
    status: FAULT_STATUS['rate-limited'],
    retryAfterMs: MODEL_RETRY_AFTER_S * 1000,
  }),
  transient: new SurfaceError('transient', 'model: HTTP 500', { status: FAULT_STATUS.transient }),
};

/** The answer of the call in flight, as the machine receives it. */
function callAnswer(
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
function turnModelScope(onTransitions: (keys: string[]) => void = () => {}): AnyActorScope {
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
  const machine = provideTurnMachine({
    surfaces: createMemorySurface({ platform: config.platform, capabilities: config.capabilities }),
    budget: 'system',
  });
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
function currentMessage(snapshot: TurnModelSnapshot): 'live' | 'deleted' | null {
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
function spread<T>(items: readonly T[]): T[] {
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
function finishingCommand(snapshot: TurnModelSnapshot): TurnCommand | null {
  const machine = snapshot.machine;
  if (machine?.status !== 'active') return null;
  if (machine.context.outcome === null) return { type: 'end' };
  if (callInFlight(machine)) return { type: 'respond', result: 'ok' };
  if (awaitsGrant(machine)) return { type: 'grant' };
  if (awaitsFunding(machine)) return { type: 'fund' };
  if (timerEvent(machine)) return { type: 'wait' };
  return null;
}
const MAX_FINISHING_COMMANDS = 60;

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
async function applyToDriver(
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
    case 'delete':
      return driver.deleteCurrent() ? null : 'the model deleted a log message the live turn does not have';
    case 'restart':
      await driver.restart();
      return null;
  }
}

/** Entries a dropping strategy forgot from the open message (its sealed parts included). */
function droppedIn(log: TurnLogState | null): number {
  if (!log) return 0;
  return log.sealed.reduce((sum, message) => sum + message.dropped, log.dropped);
}

/** The text of the last create or edit the platform accepted, if any. */
function lastTextAccepted(driver: TurnDriver): string | null {
  const accepted = driver.surface.calls.filter(
    (call) => (call.op === 'create' || call.op === 'update') && call.status >= 200 && call.status < 300,
  );
  return accepted.at(-1)?.text ?? null;
}

/** How long the clock runs after the end, to catch any call a leftover timer would make. */
const AFTER_THE_END_MS = 3_600_000;

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
const headerPosted = (key: string): boolean =>
  key.startsWith('turn.heading.posting xstate.done.actor.postHeader');

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
