import { DEFAULT_TURN_TITLE, type TurnSettings, turnMachine } from '../../machines/turn.machine.js';
import type { Platform } from '../emulators/types.js';
import { condenseBudget } from '../runtime/turn.implementations.js';
import type { SurfaceCapabilities } from '../surfaces/surface.js';
import { resolveCondenseOpts } from '../turnlog/condense.js';
import type { TurnLogEntry } from '../turnlog/types.js';
import { MEMORY_SURFACE_CAPABILITIES } from './memory-surface.js';
import { CALL_RESULTS, type CallResult, type GatedOp, type TurnSnapshot } from './turn-driver.js';
import { turnModelEntryTag } from './turn-invariants.js';

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
  /** A later message joins the turn (`messages_adopted`, issue 26; once per path). */
  | { type: 'adopt' }
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
/** The message the model's `adopt` folds into the turn. */
export const MODEL_ADOPTED_MESSAGE = 'adopted-1';
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
export const LINE_PREFIX = '• 12:00:00  '.length;

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
export const timedStates = collectNodes(turnMachine.root).flatMap((node) =>
  node.after.length > 0 ? [{ path: node.path, event: node.after[0]!.eventType }] : [],
);
/** The states that invoke a surface call: invoke id and what it does. */
export const callingStates = collectNodes(turnMachine.root).flatMap((node) =>
  node.invoke.map((invoke) => ({
    id: invoke.id,
    op: (invoke.src === 'postMessage' ? 'create' : 'update') as GatedOp,
  })),
);

/** The states that handle a shutdown flush (where it means something, if only to be ignored). */
export const flushHandlers = collectNodes(turnMachine.root).flatMap((node) =>
  node.transitions.has('turn.flush') ? [node.path] : [],
);

export function collectNodes(node: typeof turnMachine.root): Array<typeof turnMachine.root> {
  return [node, ...Object.values(node.states).flatMap(collectNodes)];
}

export const valueAt = (path: readonly string[]): unknown =>
  path.reduceRight<unknown>((inner, key) => (inner === undefined ? key : { [key]: inner }), undefined);

export function timerEvent(snapshot: TurnSnapshot): string | null {
  return timedStates.find((state) => snapshot.matches(valueAt(state.path) as never))?.event ?? null;
}

export function callInFlight(
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
export const grantingStates = collectNodes(turnMachine.root).flatMap((node) =>
  node.transitions.has('budget.granted') ? [node.path] : [],
);
export const awaitsGrant = (snapshot: TurnSnapshot): boolean =>
  grantingStates.some((path) => snapshot.matches(valueAt(path) as never));
export const awaitsFunding = (snapshot: TurnSnapshot): boolean => snapshot.matches({ flushing: 'booking' });
export const handlesFlush = (snapshot: TurnSnapshot): boolean =>
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
  if (machine.context.outcome === null && (machine.context.adopted ?? []).length === 0)
    commands.push({ type: 'adopt' });
  if (handlesFlush(machine)) commands.push({ type: 'flush' });
  const current = machine.context.current;
  if (current && !snapshot.deleted.includes(current.messageId)) commands.push({ type: 'delete' });
  // A restart matters where the turn waits on something: a timer, a call, the budget (`turn.recover`).
  if (timer || call || grant || fund) commands.push({ type: 'restart' });
  return commands;
}
