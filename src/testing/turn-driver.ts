/**
 * Drives a LIVE turn actor for the turn machine's model-based tests: the real
 * machine with its real implementations (`provideTurnMachine`, budget
 * `system`, a memory store for post refs), spawned from its persisted
 * snapshot like the space supervisor does (`restorable`), on a memory
 * surface and a `SimulatedClock`. A turn starts threaded (anchored on a
 * person's message), top-level, or proactive (its `MODEL_HEADER` posted
 * top-level first, the log threaded under it).
 *
 * Two things a test decides instead of the world:
 * - every surface call waits at a gate until the test answers it (`respond`):
 *   it then reaches the memory surface, with a one-shot fault when the answer
 *   is a failure, so exactly one call is in flight at a time and each one
 *   succeeds or fails as the test says; a call aborted at the gate (the turn
 *   moved on, or was stopped for a restart) never reaches the platform;
 * - a stand-in budget actor (systemId `budget:<platform>`) records what the
 *   turn asks, and the test answers with `grant`, `refuse` or `fund`.
 * Time only moves when the test moves it: `step` fires the turn's next timer.
 */
import {
  type ActorRefFrom,
  type ActorRefLike,
  type AnyActorRef,
  assertEvent,
  createActor,
  fromCallback,
  SimulatedClock,
  type SnapshotFrom,
  setup,
  spawnChild,
  stopChild,
} from 'xstate';
import type { BudgetInEvent } from '../../machines/budget.protocol.js';
import { budgetSystemId } from '../../machines/budget.protocol.js';
import type { TurnInput, TurnOutcome, TurnSettings } from '../../machines/turn.machine.js';
import type { Platform } from '../emulators/types.js';
import { builtinPlatforms } from '../platforms/all.js';
import type { PostRefs } from '../runtime/posting.js';
import { restorable } from '../runtime/restorable.js';
import { provideTurnMachine } from '../runtime/turn.implementations.js';
import { createMemoryStore } from '../store/memory.js';
import type { ChatSurface, SurfaceCapabilities } from '../surfaces/surface.js';
import type { TurnLogEntry } from '../turnlog/types.js';
import { createMemorySurface, MEMORY_SURFACE_CAPABILITIES, type MemorySurface } from './memory-surface.js';
import { watchTimers } from './timers.js';

/** How the platform answers a call: `ok` lets it do what it does (a deleted message still answers 404). */
export type CallResult = 'ok' | 'not-found' | 'rate-limited' | 'transient';
export const CALL_RESULTS: readonly CallResult[] = ['ok', 'not-found', 'rate-limited', 'transient'];

/** The HTTP status each failure is injected as (the memory surface maps it to the SurfaceError kind). */
export const FAULT_STATUS: Readonly<Record<Exclude<CallResult, 'ok'>, number>> = {
  'not-found': 404,
  'rate-limited': 429,
  transient: 500,
};
/** Retry-After of an injected 429 (seconds). */
export const MODEL_RETRY_AFTER_S = 2;
/** When a refused progress request may ask again (ms). */
export const MODEL_REFUSAL_RETRY_MS = 1500;

export type GatedOp = 'create' | 'update';

/** The header the kit's proactive turns are given. */
export const MODEL_HEADER = '🕒 Nightly report';

/** The spaces the kit's turns live in, one per platform. */
export const MODEL_SPACES: Readonly<Record<Platform, string>> = {
  gchat: 'gchat:spaces/MODEL',
  slack: 'slack:C0MODEL',
  discord: 'discord:100000000000000001',
};

/** Who presses Stop in the model and the driver. */
export const MODEL_STOPPER = { id: 'users/model', name: 'Model' } as const;

export interface TurnDriverOptions {
  platform: Platform;
  settings: TurnSettings;
  /** Overrides the memory surface's capabilities for the platform. */
  capabilities?: Partial<SurfaceCapabilities>;
  /** Anchor the turn on a person's message (a thread), or start it without one (top-level). */
  threaded: boolean;
  /** A proactive turn (not threaded): its header (`MODEL_HEADER`) is posted first and the log threads under it. */
  header?: boolean;
}

/** How a driven turn starts. */
export type TurnStart = Pick<TurnDriverOptions, 'threaded' | 'header'>;

/**
 * The turn machine provided once for many drivers (providing it costs
 * milliseconds): its surface and post refs are switched to each new driver's.
 */
function createSwitchableTurnLogic(platform: Platform, capabilities: SurfaceCapabilities) {
  let surface: ChatSurface | null = null;
  let refs: PostRefs | null = null;
  const active = (): ChatSurface => {
    if (!surface) throw new Error('no turn driver is active');
    return surface;
  };
  const switchable: ChatSurface = {
    platform,
    capabilities,
    post: (req, opts) => active().post(req, opts),
    edit: (req, opts) => active().edit(req, opts),
    react: (req, opts) => active().react(req, opts),
  };
  const switchableRefs: PostRefs = {
    recordPost: (clientId, message) => refs?.recordPost(clientId, message),
    lookupPost: (clientId) => refs?.lookupPost(clientId),
  };
  const logic = restorable(
    provideTurnMachine({
      surfaces: switchable,
      platforms: builtinPlatforms,
      budget: 'system',
      store: switchableRefs,
    }),
  );
  return {
    logic,
    use(next: ChatSurface, nextRefs: PostRefs): void {
      surface = next;
      refs = nextRefs;
    },
  };
}
type TurnLogic = ReturnType<typeof createSwitchableTurnLogic>['logic'];
export type TurnSnapshot = SnapshotFrom<TurnLogic>;

export interface TurnDriver {
  readonly clock: SimulatedClock;
  readonly surface: MemorySurface;
  readonly space: string;
  /** The header the turn was given (a proactive turn), or null. */
  readonly header: string | null;
  /** Has the turn been told to end? */
  readonly endSent: boolean;
  /** Entries the live turn accepted (sent while it had not ended), in order. */
  readonly entries: readonly TurnLogEntry[];
  /** What the turn asked of the budget, in order. */
  readonly budgetRequests: readonly BudgetInEvent['type'][];
  /** Every machine transition the turn took, as `turnTransitionKey` names it. */
  readonly transitionsTaken: ReadonlySet<string>;
  /** Every state node the turn was in or passed through (ids like `turn.debouncing.waiting`). */
  readonly statesVisited: ReadonlySet<string>;
  /** Surface calls the turn made after it reached `ended` (the count at the gate). */
  callsAfterEnd(): number;
  snapshot(): TurnSnapshot;
  /** The operation of the call waiting at the gate, if any. */
  pendingCall(): GatedOp | null;
  /** When the turn's next timer fires (simulated ms); null when none is set. */
  nextTimerAt(): number | null;
  log(entry: TurnLogEntry): Promise<void>;
  end(outcome: TurnOutcome): Promise<void>;
  /** A shutdown flush (`turn.flush`). */
  flush(): Promise<void>;
  /** A person pressed Stop on the log (`turn.stopRequested`). */
  pressStop(): Promise<void>;
  /** A later message joins the turn (`turn.adopt`, issue 26). */
  adopt(messageId: string): Promise<void>;
  /** Answers the call in flight. Throws when there is none. */
  respond(result: CallResult): Promise<void>;
  grant(): Promise<void>;
  refuse(): Promise<void>;
  fund(): Promise<void>;
  /** Moves the clock to the turn's next timer and lets it fire; false when no timer is set. */
  step(): Promise<boolean>;
  /** Moves the clock on by `ms`, every timer due on the way firing. */
  advance(ms: number): Promise<void>;
  /** A person deletes the turn's live log message; false when there is none. */
  deleteCurrent(): boolean;
  /** Stops the turn (a crash) and starts it again from its persisted snapshot, then `turn.recover`. */
  restart(): Promise<void>;
  stop(): void;
}

/** A transition's identity in the machine definition: source, event, guard, targets. */
export function turnTransitionKey(transition: {
  source: { id: string };
  eventType: string;
  guard?: unknown;
  target?: ReadonlyArray<{ id: string }> | undefined;
}): string {
  const { guard } = transition;
  const guardName =
    typeof guard === 'string' ? guard : (guard as { type?: unknown } | undefined)?.type?.toString();
  const targets = transition.target?.map((node) => node.id).join(',') ?? '';
  return `${transition.source.id} ${transition.eventType || '(always)'}${guardName ? ` [${guardName}]` : ''} → ${targets || '(self)'}`;
}

/** The ids of the state nodes a state value has active, the root's included. */
export function activeStateIds(value: unknown, prefix = 'turn'): string[] {
  if (typeof value === 'string') return [prefix, `${prefix}.${value}`];
  if (value === null || typeof value !== 'object') return [prefix];
  return [
    prefix,
    ...Object.entries(value).flatMap(([key, child]) => activeStateIds(child, `${prefix}.${key}`)),
  ];
}

/** Lets resolved promises (surface calls) run their continuations; no simulated time passes. */
async function settle(): Promise<void> {
  for (let i = 0; i < 2; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

interface GatedCall {
  op: GatedOp;
  /** Lets the call through to the platform. */
  open: () => void;
}

/** A surface whose calls wait until the test opens them, one at a time. */
function createGatedSurface(inner: MemorySurface) {
  const waiting: GatedCall[] = [];
  let attempts = 0;
  const pass = (op: GatedOp, signal: AbortSignal | undefined) =>
    new Promise<void>((resolve, reject) => {
      // Aborted on its way here (the turn was stopped while it looked up a post ref): it never waits.
      if (signal?.aborted) {
        reject(new DOMException('The surface call was aborted', 'AbortError'));
        return;
      }
      attempts++;
      const call: GatedCall = {
        op,
        open: () => {
          waiting.splice(waiting.indexOf(call), 1);
          resolve();
        },
      };
      waiting.push(call);
      signal?.addEventListener(
        'abort',
        () => {
          const at = waiting.indexOf(call);
          if (at >= 0) waiting.splice(at, 1);
          reject(new DOMException('The surface call was aborted', 'AbortError'));
        },
        { once: true },
      );
    });
  const surface: ChatSurface = {
    platform: inner.platform,
    capabilities: inner.capabilities,
    async post(req, opts) {
      await pass('create', opts?.signal);
      return inner.post(req, opts);
    },
    async edit(req, opts) {
      await pass('update', opts?.signal);
      return inner.edit(req, opts);
    },
    react: (req, opts) => inner.react(req, opts),
  };
  return {
    surface,
    attempts: () => attempts,
    pending: (): GatedCall | null => waiting[0] ?? null,
  };
}

export interface TurnDriverFactoryOptions {
  platform: Platform;
  settings: TurnSettings;
  /** Overrides the memory surface's capabilities for the platform. */
  capabilities?: Partial<SurfaceCapabilities>;
}

/**
 * Drivers for many turns in a row with the same settings, sharing one
 * provided machine; each driver has its own surface, clock and store. Use one
 * driver at a time: a new one takes the machine over. A driver is ready once
 * the calls its turn makes on starting (a proactive turn's header) wait at the gate.
 */
export function createTurnDriverFactory(
  opts: TurnDriverFactoryOptions,
): (start: TurnStart) => Promise<TurnDriver> {
  const capabilities = { ...MEMORY_SURFACE_CAPABILITIES[opts.platform], ...opts.capabilities };
  const shared = createSwitchableTurnLogic(opts.platform, capabilities);
  return async (start) => {
    const clock = new SimulatedClock();
    const surface = createMemorySurface({ platform: opts.platform, now: () => clock.now(), capabilities });
    const gate = createGatedSurface(surface);
    shared.use(gate.surface, createMemoryStore());
    const driver = driveTurn({ ...opts, ...start }, shared.logic, clock, surface, gate);
    await settle();
    return driver;
  };
}

/** One driver on a machine of its own. */
export const createTurnDriver = (opts: TurnDriverOptions): Promise<TurnDriver> =>
  createTurnDriverFactory(opts)(opts);

function driveTurn(
  opts: TurnDriverOptions,
  turnLogic: TurnLogic,
  clock: SimulatedClock,
  surface: MemorySurface,
  gate: ReturnType<typeof createGatedSurface>,
): TurnDriver {
  if (opts.threaded && opts.header) {
    throw new Error(
      'createTurnDriver: a proactive turn (header) starts without a thread; got threaded and header',
    );
  }
  const space = MODEL_SPACES[opts.platform];
  const root = opts.threaded ? surface.inbound({ space, text: 'please fix the build' }) : null;
  const header = opts.header ? MODEL_HEADER : null;
  const input: TurnInput = {
    turnId: 'T1',
    space,
    anchor: root ? { rootMessageId: root.messageId, threadId: root.threadId } : null,
    settings: opts.settings,
    ...(root ? {} : header ? { header } : { degradedReason: 'threads are off in this space' }),
  };

  const budgetRequests: BudgetInEvent['type'][] = [];
  // The turn's own requests are answered by the commands (`grant`, `refuse`, `fund`); a frame sender that asks
  // its own token is answered at once: the model answers its write (`respond`), and its token and retries are
  // the frame sender's own model's (test/machines/frame-sender.test.ts).
  const budget = fromCallback<BudgetInEvent>(({ receive }) => {
    receive((event) => {
      budgetRequests.push(event.type);
      if (!('replyTo' in event) || isTurn(event.replyTo)) return;
      event.replyTo.send(
        event.type === 'budget.terminal.book' ? { type: 'budget.funded' } : { type: 'budget.granted' },
      );
    });
  });
  const harness = setup({
    types: {
      events: {} as { type: 'harness.start'; input: TurnInput } | { type: 'harness.stop' },
    },
    actors: { budget, turn: turnLogic },
  }).createMachine({
    invoke: { src: 'budget', systemId: budgetSystemId(opts.platform) },
    on: {
      'harness.start': {
        actions: spawnChild('turn', {
          id: 'turn',
          input: ({ event }) => {
            assertEvent(event, 'harness.start');
            return event.input;
          },
        }),
      },
      'harness.stop': { actions: stopChild('turn') },
    },
  });

  const entries: TurnLogEntry[] = [];
  const transitionsTaken = new Set<string>();
  const statesVisited = new Set<string>();
  let attemptsAtEnd: number | null = null;
  let endSent = false;
  // Kept here rather than read from the harness: a finished child leaves its parent's children.
  let current: ActorRefFrom<TurnLogic> | undefined;
  const turn = (): ActorRefFrom<TurnLogic> => {
    if (!current) throw new Error('the turn actor is not running');
    return current;
  };
  const isTurn = (ref: ActorRefLike): boolean => {
    const candidate = ref as AnyActorRef;
    return candidate.id === 'turn' && candidate._parent === actor;
  };
  const spawnTurn = (turnInput: TurnInput): void => {
    actor.send({ type: 'harness.start', input: turnInput });
    current = actor.getSnapshot().children.turn as ActorRefFrom<TurnLogic>;
  };
  const actor = createActor(harness, {
    clock,
    inspect: (inspection) => {
      if (inspection.type === '@xstate.microstep' && isTurn(inspection.actorRef)) {
        for (const transition of inspection._transitions) {
          transitionsTaken.add(turnTransitionKey(transition));
          statesVisited.add(transition.source.id);
          for (const target of transition.target ?? []) statesVisited.add(target.id);
        }
      }
      if (inspection.type === '@xstate.snapshot' && isTurn(inspection.actorRef)) {
        const snapshot = inspection.snapshot as TurnSnapshot;
        for (const id of activeStateIds(snapshot.value)) statesVisited.add(id);
        if (snapshot.status === 'done' && attemptsAtEnd === null) attemptsAtEnd = gate.attempts();
      }
    },
  });
  actor.start();
  spawnTurn(input);

  const { noteTimers, nextTimerAt } = watchTimers(actor, clock);
  const settled = async (): Promise<void> => {
    await settle();
    noteTimers();
  };
  noteTimers();
  const sendToTurn = async (event: Parameters<ActorRefFrom<TurnLogic>['send']>[0]): Promise<void> => {
    turn().send(event);
    await settled();
  };

  return {
    clock,
    surface,
    space,
    header,
    get endSent() {
      return endSent;
    },
    entries,
    budgetRequests,
    transitionsTaken,
    statesVisited,
    callsAfterEnd: () => (attemptsAtEnd === null ? 0 : gate.attempts() - attemptsAtEnd),
    snapshot: () => turn().getSnapshot(),
    pendingCall: () => gate.pending()?.op ?? null,
    nextTimerAt,
    async log(entry) {
      if (turn().getSnapshot().status === 'active') entries.push(entry);
      await sendToTurn({ type: 'turn.log', entry });
    },
    end(outcome) {
      endSent = true;
      return sendToTurn({ type: 'turn.end', outcome });
    },
    flush: () => sendToTurn({ type: 'turn.flush' }),
    pressStop: () => sendToTurn({ type: 'turn.stopRequested', user: MODEL_STOPPER }),
    adopt: (messageId) => sendToTurn({ type: 'turn.adopt', messages: [{ messageId }] }),
    async respond(result) {
      const call = gate.pending();
      if (!call) throw new Error(`respond(${result}): no surface call is in flight`);
      if (result !== 'ok') {
        surface.fail({
          op: call.op,
          status: FAULT_STATUS[result],
          times: 1,
          ...(result === 'rate-limited' ? { retryAfterS: MODEL_RETRY_AFTER_S } : {}),
        });
      }
      call.open();
      await settled();
    },
    grant: () => sendToTurn({ type: 'budget.granted' }),
    refuse: () =>
      sendToTurn({ type: 'budget.refused', retryInMs: MODEL_REFUSAL_RETRY_MS, reason: 'fair-share' }),
    fund: () => sendToTurn({ type: 'budget.funded' }),
    async step() {
      const due = nextTimerAt();
      if (due === null) return false;
      clock.increment(Math.max(0, due - clock.now()));
      await settled();
      return true;
    },
    async advance(ms) {
      const until = clock.now() + ms;
      for (let due = nextTimerAt(); due !== null && due <= until; due = nextTimerAt()) {
        clock.increment(Math.max(0, due - clock.now()));
        await settled();
      }
      clock.increment(Math.max(0, until - clock.now()));
      await settled();
    },
    deleteCurrent() {
      const current = turn().getSnapshot().context.current;
      if (!current) return false;
      surface.deleteMessage(current.messageId);
      return true;
    },
    async restart() {
      // Through JSON, as a store keeps it.
      const persisted: unknown = JSON.parse(JSON.stringify(turn().getPersistedSnapshot()));
      actor.send({ type: 'harness.stop' });
      spawnTurn({ ...input, persisted });
      await sendToTurn({ type: 'turn.recover' });
    },
    stop: () => actor.stop(),
  };
}
