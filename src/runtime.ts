/**
 * `createRuntime({config, surfaces, store?, clock?})` (docs/library.md):
 * validates, redacts and sequences each event, keeps the run record, and
 * drives the XState actor system (runtime → budgets + space supervisors →
 * turns and deliveries) against the given surfaces. Every live turn's
 * persisted snapshot is saved after the work that changed it (once per turn
 * per run of synchronous work, however many events it took); a runtime
 * created on the
 * same store resumes the live turns (timers re-armed) and keeps editing the
 * same log messages.
 */
import {
  type AnyActorRef,
  type AnyMachineSnapshot,
  type AnyStateMachine,
  createActor,
  enqueueActions,
  type InspectionEvent,
  type Snapshot,
  sendTo,
} from 'xstate';
import { budgetMachine } from '../machines/budget.machine.js';
import { budgetSystemId } from '../machines/budget.protocol.js';
import { runtimeMachine, spaceChildId } from '../machines/runtime.machine.js';
import {
  type InboundAnchor,
  type RestoredTurnRecord,
  type SpaceContext,
  type SpaceSettings,
  spaceMachine,
  turnChildId,
} from '../machines/space.machine.js';
import type { StrayLogContext } from '../machines/stray-log.machine.js';
import type { TurnContext } from '../machines/turn.machine.js';
import { createClickResolver } from './actions/clicks.js';
import { type ActionPage, type ActionsPollOptions, actionIdFor, createOutbox } from './actions/outbox.js';
import type { Action, ClickResolver, IntakeEvent, IntakeResult } from './actions/types.js';
import { resolveWebhookSecret, startWebhookDelivery, type WebhookDelivery } from './actions/webhook.js';
import type { ChannelBackend } from './adapter/channel-adapter.js';
import { createRuntimeBackend } from './adapter/runtime-backend.js';
import { budgetDefaults } from './budget/config.js';
import { createBudgetImplementations } from './budget/implementations.js';
import { type Clock, systemClock } from './clock.js';
import { resolveConfig, type TurnlogConfig, type TurnlogConfigInput } from './config.js';
import { parseRunEvent } from './events/parse.js';
import { redactRunEvent } from './events/redact-event.js';
import type { RunEvent } from './events/schema.js';
import { KeyStreams, scrubInput } from './events/scrub.js';
import { TurnSequencer } from './events/sequence.js';
import { builtinPlatforms, type PlatformRegistry } from './platforms/registry.js';
import type { PlatformCapabilities, PlatformDescriptor } from './platforms/types.js';
import { resolveSpaceRouting } from './routing/route.js';
import { createPendingAnswers } from './runtime/pending-answers.js';
import { createSpaceImplementations } from './runtime/space.implementations.js';
import { createMemoryStore } from './store/memory.js';
import type { PersistedTurn, TurnlogStore, TurnSummary } from './store/store.js';
import type { ChatSurface } from './surfaces/surface.js';
import type { CondenseStrategy } from './turnlog/types.js';
import { createInspector } from './viz/inspect.js';

export interface RuntimeLogger {
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

export interface RuntimeOptions {
  config?: TurnlogConfigInput;
  /** One surface per platform the runtime serves (`gchat`, `slack`, `discord`, or one of `platforms`). */
  surfaces: Partial<Record<string, ChatSurface>>;
  /**
   * Platforms besides the built-ins (src/platforms/registry.ts): their spaces
   * are accepted, their budgets, rate channels and mentions come from their
   * descriptors. A platform turnlog does not ship is added this way alone.
   */
  platforms?: readonly PlatformDescriptor[];
  /** Default: an in-memory store. */
  store?: TurnlogStore;
  /** Default: the system clock. Tests pass XState's `SimulatedClock`. */
  clock?: Clock;
  /**
   * XState inspection of every actor event (a trace file, Stately's inspector). Default:
   * `createInspector()`, i.e. `TURNLOG_INSPECT=trace.jsonl|stately`; unset, no inspection at all.
   */
  inspect?: (event: InspectionEvent) => void;
  logger?: RuntimeLogger;
  /**
   * What a click on a button turnlog rendered means (`receive` of a click).
   * Default: the card registry's (src/actions/clicks.ts); an embedder or a
   * test may give its own.
   */
  resolveClick?: ClickResolver;
}

export interface SpaceOverrides {
  threadsDisabled?: boolean;
  dm?: boolean;
}

export interface StopOptions {
  flush?: boolean;
  timeoutMs?: number;
}

/**
 * `duplicate`: a retry of an event already accepted (same `turnId` and
 * `eventId`, or `space` and `eventId` outside a turn); `event` is it with the
 * first copy's `seq` and `at`, and nothing was applied or recorded again.
 */
export type IngestResult = { ok: true; event: RunEvent; duplicate?: true } | { ok: false; error: string };

/** `GET /v1/turns/:turnId` (docs/http-api.md). */
export interface TurnView {
  turnId: string;
  space: string;
  /** The turn machine's state (`debouncing.waiting`), or `ended`. */
  state: string;
  /** Log entries the turn received. */
  entries: number;
  logMessages: { messageId: string; threadId?: string; final: boolean }[];
  degraded: boolean;
  outcome?: string;
  warnings?: string[];
  deadLetters?: number;
  /**
   * Parts of the turn's answers accepted and not yet taken by the platform
   * (kept across a restart): 0 once every part is posted or refused for good.
   */
  answerPartsPending?: number;
}

export interface Runtime {
  /** Validates, redacts, sequences and applies one event; a refused one is kept as a dead letter. */
  ingest(input: unknown): IngestResult;
  /**
   * `ingest` for each of a batch (one `POST /v1/events` body), one result per
   * input in order: each is accepted or refused on its own, and the accepted
   * ones are applied together, in order, in one pass through the runtime and
   * each space (a live turn's entries reach it as one event).
   */
  ingestBatch(inputs: readonly unknown[]): IngestResult[];
  /**
   * Takes a verified platform event (a person's message, a button press) from
   * a platform intake: a message becomes an anchor of its space, as an
   * `inbound` event would, with `ref` = the action id (so `turn_started`
   * names it by `rootRef`), and a `message` action; an accepted click becomes
   * its action. Resolves once the action is durable, so the platform's 200
   * means it is kept (src/actions/types.ts).
   */
  receive(event: IntakeEvent): Promise<IntakeResult>;
  /**
   * The actions after a cursor (`GET /v1/actions`): without `after`, from the
   * oldest kept; when there is none yet, waits up to `waitMs` for one.
   */
  actions(options?: ActionsPollOptions): Promise<ActionPage>;
  /** Calls `listener` with each new action once it is durable; returns the unsubscribe. */
  onAction(listener: (action: Action) => void): () => void;
  /** The live view of a turn, or the summary of a finished one (recent ones in memory). */
  turn(turnId: string): TurnView | undefined;
  /** The summary of a finished turn from the store, when it is no longer in memory. */
  finishedTurn(turnId: string): Promise<TurnView | undefined>;
  /**
   * Resolves when every event accepted so far, and the turn snapshots it
   * caused, are durable in the store: acknowledge events after it. Rejects,
   * naming the first failure, when a store write failed since the last sync
   * (the events were applied all the same; a retry of one is a duplicate).
   */
  sync(): Promise<void>;
  /**
   * Changes a space's own settings at run time (`threadsDisabled`, `dm`), over
   * `spaces.<space>` of the config; applies to events from now on. Saved in
   * the store, so they survive a restart (and keep winning over the config
   * for the keys given).
   */
  configureSpace(space: string, settings: SpaceOverrides): SpaceOverrides;
  /** A space's own settings (config plus run-time changes). */
  spaceSettings(space: string): SpaceOverrides;
  /**
   * Clears a space's run-time settings (and forgets them in the store): its
   * settings are the config's again, for events from now on.
   */
  resetSpace(space: string): SpaceOverrides;
  /** Resolves once the turns persisted by an earlier runtime are restored. */
  readonly ready: Promise<void>;
  /**
   * Stops every actor. Live turns stay persisted in the store for the next
   * runtime. With `flush`, every live turn first sends its pending frame
   * through a terminal slot, every space's stray log its unshown lines (the
   * same way), and deliveries in flight finish, for at most `timeoutMs`
   * (default 10 s); resolves `{flushed}` telling whether all did.
   */
  stop(opts?: StopOptions): Promise<{ flushed: boolean }>;
  /** The root actor (for inspection and tests). */
  readonly actor: AnyActorRef;
  /**
   * What the channel adapter (src/adapter/) writes and reads through: posts,
   * edits and cards as deliveries of their space (budgeted, redacted), the
   * outbox as a stream of actions.
   */
  readonly channel: ChannelBackend;
}

const consoleLogger: RuntimeLogger = {
  warn: (message, fields) => console.warn(`turnlog: ${message}`, fields ?? ''),
  error: (message, fields) => console.error(`turnlog: ${message}`, fields ?? ''),
};

const DEFAULT_FLUSH_TIMEOUT_MS = 10_000;
const FLUSH_POLL_MS = 20;

/** Nothing pending and nothing in flight: a flush has nothing to do for this turn. */
function isQuiet(snapshot: AnyMachineSnapshot): boolean {
  const context = snapshot.context as TurnContext;
  if (context.appended > context.shown) return false;
  return ['opened.live', 'opened.ticking', 'idle', 'degraded.quiet', 'degraded.waitingForMore'].some(
    (state) => snapshot.matches(state as never),
  );
}

/** A stray log with nothing to write and no write in flight. */
const isStrayLogQuiet = (snapshot: AnyMachineSnapshot): boolean =>
  snapshot.matches({ writer: 'idle' } as never);

/** What the runtime remembers of recently finished turns without asking the store. */
const RECENT_SUMMARIES = 1000;

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * How long after its start a runtime looks up the run record of a turn it
 * does not know when an event with an `eventId` comes for it: a retry of an
 * event accepted before the restart comes within a client's retries (seconds;
 * minutes with long `Retry-After`s). Later, an unknown turn is a new one, and
 * the look-up (which commits the SQLite store's pending writes) is skipped.
 */
const RECALL_AFTER_START_MS = 10 * 60_000;

/**
 * The condenser's budget per log message: the config's, or less when the
 * platform's surface accepts less (per message, or per text element), so no
 * frame ever exceeds what the platform takes.
 */
export function logMessageChars(
  config: TurnlogConfig,
  capabilities?: Readonly<Partial<PlatformCapabilities>>,
): number {
  return Math.min(
    config.visibility.threadLog.maxLogMessageChars,
    capabilities?.maxChars ?? Number.POSITIVE_INFINITY,
    capabilities?.maxTextElementChars ?? Number.POSITIVE_INFINITY,
  );
}

export function spaceSettingsFor(
  config: TurnlogConfig,
  space: string,
  capabilities?: Readonly<Partial<PlatformCapabilities>>,
): SpaceSettings {
  const { visibility, runtime } = config;
  return {
    routing: resolveSpaceRouting(visibility, config.spaces[space]),
    turn: {
      editDebounceMs: visibility.threadLog.editDebounceMs,
      maxChars: logMessageChars(config, capabilities),
      strategy: visibility.threadLog.condenseStrategy as CondenseStrategy,
      editRetryMs: runtime.editRetryMs,
      terminalAttempts: runtime.terminalAttempts,
      stopButton: visibility.stopButton,
    },
    anchorCapacity: runtime.anchorCapacity,
    maxRestarts: runtime.maxTurnRestarts,
    finalReplyInThread: visibility.finalReplyInThread,
    jobs: visibility.jobs,
  };
}

function stateString(value: AnyMachineSnapshot['value']): string {
  if (typeof value === 'string') return value;
  return Object.entries(value)
    .map(([key, inner]) => `${key}.${stateString(inner as AnyMachineSnapshot['value'])}`)
    .join(',');
}

function viewOf(snapshot: AnyMachineSnapshot): TurnView {
  const context = snapshot.context as TurnContext;
  return {
    turnId: context.turnId,
    space: context.space,
    state: snapshot.status === 'done' ? 'ended' : stateString(snapshot.value),
    entries: context.entryCount,
    logMessages: context.logMessages.map((m) => ({ ...m })),
    degraded: context.degradedReason !== null,
    ...(context.outcome ? { outcome: context.outcome } : {}),
    warnings: [...context.warnings],
    deadLetters: context.deadLetters.reduce((n, d) => n + d.entries.length, 0),
  };
}

function summaryOf(view: TurnView, endedAt: number): TurnSummary {
  return {
    turnId: view.turnId,
    space: view.space,
    state: view.state,
    outcome: view.outcome ?? null,
    degraded: view.degraded,
    logMessages: view.logMessages,
    entries: view.entries,
    deadLetters: view.deadLetters ?? 0,
    endedAt,
  };
}

/** What is known of a turn that crashed for good: its last persisted snapshot, if it had one. */
function crashedView(turnId: string, space: string, persisted: unknown): TurnView {
  const context = (persisted as { context?: Partial<TurnContext> } | undefined)?.context;
  return {
    turnId,
    space,
    state: 'crashed',
    entries: context?.entryCount ?? 0,
    logMessages: (context?.logMessages ?? []).map((m) => ({ ...m })),
    degraded: true,
    warnings: [...(context?.warnings ?? [])],
    deadLetters: (context?.deadLetters ?? []).reduce((n, d) => n + d.entries.length, 0),
  };
}

const fromSummary = (summary: TurnSummary): TurnView => ({
  turnId: summary.turnId,
  space: summary.space,
  state: summary.state,
  entries: summary.entries,
  logMessages: summary.logMessages,
  degraded: summary.degraded,
  ...(summary.outcome ? { outcome: summary.outcome } : {}),
  deadLetters: summary.deadLetters,
});

export function createRuntime(options: RuntimeOptions): Runtime {
  const config = resolveConfig(options.config ?? {});
  const clock = options.clock ?? systemClock;
  const store = options.store ?? createMemoryStore();
  const logger = options.logger ?? consoleLogger;
  const surfaces = options.surfaces;
  const registry: PlatformRegistry = builtinPlatforms.with(...(options.platforms ?? []));
  const platforms = Object.keys(surfaces).filter((p) => surfaces[p] !== undefined);
  if (platforms.length === 0)
    throw new Error(`createRuntime: give at least one surface (surfaces.${registry.ids.join(', .')})`);
  for (const platform of platforms) {
    if (registry.get(platform) === undefined) {
      throw new Error(
        `createRuntime: surfaces.${platform} names no known platform (${registry.ids.join(', ')}); pass its descriptor in platforms`,
      );
    }
  }
  /** The capabilities of the surface serving `space` (its platform's, when it has none of its own). */
  const capabilitiesOf = (space: string): Readonly<Partial<PlatformCapabilities>> | undefined => {
    const descriptor = registry.forSpace(space);
    return surfaces[descriptor.id]?.capabilities ?? descriptor.capabilities;
  };

  const sequencer = new TurnSequencer({ now: () => clock.now() });
  /** Private keys streamed across events: a chunk's key stays hidden in the chunks after it. */
  const keyStreams = new KeyStreams();
  const recallUntil = clock.now() + RECALL_AFTER_START_MS;
  /** Latest persisted snapshot of every live turn, for restarting a crashed one without a store round trip. */
  const snapshots = new Map<string, { space: string; snapshot: Snapshot<unknown> }>();
  const recent = new Map<string, TurnView>();
  /** Turns to restore, grouped by space, filled before `ready` resolves. */
  const toRestore = new Map<string, { turnId: string; record: RestoredTurnRecord; snapshot: unknown }[]>();
  const anchorsToRestore = new Map<string, InboundAnchor[]>();

  /** The first store failure since the last `sync()`, which reports it (what was written may not be durable). */
  let unsynced: string | undefined;
  /** A failed read (of a run record, for its eventIds) is logged; it does not make anything less durable. */
  const readFailure = (what: string) => (error: unknown) =>
    logger.error(`store: ${what} failed`, { error: messageOf(error) });
  /** A failed write is logged and reported by the next `sync()`. */
  const persistFailure = (what: string) => (error: unknown) => {
    unsynced ??= `store: ${what} failed: ${messageOf(error)}`;
    readFailure(what)(error);
  };
  const persist = (what: string, result: unknown) => {
    if (result instanceof Promise) result.catch(persistFailure(what));
  };

  /** Answer parts not posted yet, kept in the store and in memory by space (a failed space resumes them). */
  const pendingAnswers = createPendingAnswers(store, (what, write) => {
    // A store that throws at once (closed under a shutdown) must not throw into the actor system.
    try {
      persist(what, write());
    } catch (error) {
      persistFailure(what)(error);
    }
  });

  const outbox = createOutbox({
    store,
    clock,
    onError: (error) => logger.error('actions outbox', { error: messageOf(error) }),
  });
  const webhookConfig = config.actions.webhook;
  const webhookSecret = webhookConfig ? resolveWebhookSecret(webhookConfig.secret) : undefined;
  let webhook: WebhookDelivery | undefined;

  const spaceLogic = spaceMachine.provide(
    createSpaceImplementations({
      surfaces,
      platforms: registry,
      budget: 'system',
      store,
      format: {
        maxToolPreview: config.visibility.threadLog.maxToolPreview,
        ...(config.visibility.timeZone ? { timeZone: config.visibility.timeZone } : {}),
      },
      now: () => clock.now(),
      snapshotOf: persistedSnapshot,
      onTurnSnapshot: (_, snapshot, logic) => onTurnSnapshot(snapshot, logic),
      onStraySnapshot: (_, snapshot, logic) => onStraySnapshot(snapshot, logic),
      onWarning: (space, message) => logger.warn(message, { space }),
      onTurnCrashed: (space, turnId) => finishCrashedTurn(space, turnId),
      onTurnEndedWithoutActor: (_space, turnId, outcome) => endCrashedTurn(turnId, outcome),
      onHostWrite: (ticket, output) => channel.settle(ticket, output),
      onAnswerFailed: (turnId, reason) => answerFailed(turnId, reason),
      pendingAnswers,
    }),
  );
  const budgetLogic = budgetMachine.provide(createBudgetImplementations({ now: () => clock.now() }));
  /** Space settings changed at run time, over `config.spaces`. */
  const overrides = new Map<string, SpaceOverrides>();
  const ownSettings = (space: string): SpaceOverrides => ({
    ...config.spaces[space],
    ...overrides.get(space),
  });
  const spaceInput = (space: string) => {
    const anchors = anchorsToRestore.get(space) ?? [];
    anchorsToRestore.delete(space);
    const settings = spaceSettingsFor(config, space, capabilitiesOf(space));
    const strays = strayLogs.get(space);
    return {
      space,
      settings: { ...settings, routing: { ...settings.routing, ...overrides.get(space) } },
      anchors,
      ...(strays !== undefined ? { strays } : {}),
    };
  };

  const machine = runtimeMachine.provide({
    actors: { space: spaceLogic, budget: budgetLogic },
    actions: {
      spawnBudgets: enqueueActions(({ enqueue }) => {
        for (const platform of platforms) {
          const id = budgetSystemId(platform);
          enqueue.spawnChild('budget', { id, systemId: id, input: budgetInput(config, platform, registry) });
        }
      }),
      spawnSpace: enqueueActions(({ enqueue, context }, params) => {
        enqueue.spawnChild('space', { id: spaceChildId(params.space), input: spaceInput(params.space) });
        enqueue.assign({ spaces: { ...context.spaces, [params.space]: true } });
      }),
      forwardToSpace: sendTo(
        (_, params: { event: RunEvent }) => spaceChildId(params.event.space),
        (_, params: { event: RunEvent }) => ({ type: 'space.event' as const, event: params.event }),
      ),
      forwardBatchToSpace: sendTo(
        (_, params: { space: string; events: RunEvent[] }) => spaceChildId(params.space),
        (_, params: { space: string; events: RunEvent[] }) => ({
          type: 'space.events' as const,
          events: params.events,
        }),
      ),
      restoreSpaces: enqueueActions(({ enqueue, context }, params) => {
        const spaces = { ...context.spaces };
        for (const space of params.spaces) {
          if (!spaces[space]) {
            enqueue.spawnChild('space', { id: spaceChildId(space), input: spaceInput(space) });
            spaces[space] = true;
          }
          const turns = toRestore.get(space) ?? [];
          toRestore.delete(space);
          const answers = pendingAnswers.resumeIn(space);
          enqueue.sendTo(spaceChildId(space), {
            type: 'space.restore',
            turns,
            ...(answers.length > 0 ? { answers } : {}),
          });
        }
        enqueue.assign({ spaces });
      }),
      restartSpace: enqueueActions(({ enqueue, context }, params) => {
        logger.error(`space ${params.space} failed; starting it again and restoring its live turns`, {
          error: String(params.error),
        });
        const restarts = (context.spaceRestarts[params.space] ?? 0) + 1;
        // First: the new space's stray log resumes from the newest snapshot of the old one's.
        writeDirtyTurns();
        // XState does not stop the children of an actor that failed: they would run on, orphaned, beside
        // the turns, stray log and answers restored below (every answer part posted twice).
        const failed = root.getSnapshot().children[spaceChildId(params.space)] as AnyActorRef | undefined;
        const orphans = (failed?.getSnapshot().children ?? {}) as Record<string, AnyActorRef | undefined>;
        for (const child of Object.values(orphans)) child?.stop();
        enqueue.stopChild(spaceChildId(params.space));
        enqueue.spawnChild('space', { id: spaceChildId(params.space), input: spaceInput(params.space) });
        const turns = [...snapshots.entries()]
          .filter(([, s]) => s.space === params.space)
          .map(([turnId, s]) => ({ turnId, record: recordFromSnapshot(s.snapshot), snapshot: s.snapshot }));
        // Its answers in flight went with it: their parts not posted yet go again (same client ids, no duplicates).
        const answers = pendingAnswers.resumeIn(params.space);
        enqueue.sendTo(spaceChildId(params.space), {
          type: 'space.restore',
          turns,
          ...(answers.length > 0 ? { answers } : {}),
        });
        enqueue.assign({ spaceRestarts: { ...context.spaceRestarts, [params.space]: restarts } });
      }),
      restartBudget: enqueueActions(({ enqueue }, params) => {
        logger.error(`${params.childId} failed; starting it again with a fresh bucket`, {
          error: String(params.error),
        });
        const platform = platforms.find((p) => params.childId === budgetSystemId(p));
        if (!platform) return;
        enqueue.stopChild(params.childId);
        const id = budgetSystemId(platform);
        enqueue.spawnChild('budget', { id, systemId: id, input: budgetInput(config, platform, registry) });
      }),
    },
  });

  /** Warnings a turn already reported, so each reaches the logger once. */
  const warned = new Map<string, number>();
  function logNewWarnings(context: TurnContext): void {
    const seen = warned.get(context.turnId) ?? 0;
    if (context.warnings.length <= seen) return;
    for (const message of context.warnings.slice(seen))
      logger.warn(message, { turnId: context.turnId, space: context.space });
    warned.set(context.turnId, context.warnings.length);
  }
  /**
   * Live turns whose snapshot changed since the last write, each with its
   * newest active snapshot: a turn makes several snapshots per event (and a
   * batch of events many), but only the last of a run of synchronous work is
   * persisted. Written at the end of the current job (a microtask, so before
   * the SQLite store's per-tick commit takes it with the events that caused
   * it), and at once by `sync()`, `stop()` and whoever needs a turn's
   * persisted snapshot (a restart).
   */
  const dirty = new Map<string, { logic: AnyStateMachine; snapshot: AnyMachineSnapshot; space: string }>();
  let writeQueued = false;

  function onTurnSnapshot(snapshot: AnyMachineSnapshot, logic: AnyStateMachine): void {
    const context = snapshot.context as TurnContext | undefined;
    if (!context?.turnId) return;
    logNewWarnings(context);
    if (snapshot.status === 'active') {
      dirty.set(context.turnId, { logic, snapshot, space: context.space });
      if (!writeQueued) {
        writeQueued = true;
        queueMicrotask(writeDirtyTurns);
      }
    } else if (snapshot.status === 'done' && (dirty.has(context.turnId) || snapshots.has(context.turnId))) {
      dirty.delete(context.turnId);
      snapshots.delete(context.turnId);
      warned.delete(context.turnId);
      finishView(viewOf(snapshot));
    }
  }

  /**
   * Each space's stray log, persisted the same way (docs/architecture.md,
   * "Stray log"): its newest snapshot at the end of the job, so a restart
   * keeps coalescing into the same message. A quiet log (its minute over,
   * every line shown) is forgotten: it would resume as a fresh one.
   */
  const dirtyStrays = new Map<string, { logic: AnyStateMachine; snapshot: AnyMachineSnapshot }>();
  /** The latest persisted stray log of each space that has one (a crashed space resumes from it). */
  const strayLogs = new Map<string, unknown>();

  function onStraySnapshot(snapshot: AnyMachineSnapshot, logic: AnyStateMachine): void {
    const space = (snapshot.context as StrayLogContext | undefined)?.space;
    if (space === undefined || snapshot.status !== 'active') return;
    dirtyStrays.set(space, { logic, snapshot });
    if (!writeQueued) {
      writeQueued = true;
      queueMicrotask(writeDirtyTurns);
    }
  }

  function writeStrayLog(space: string): void {
    const entry = dirtyStrays.get(space);
    if (!entry) return;
    dirtyStrays.delete(space);
    // A store that throws at once (closed under a shutdown) must not throw into the actor system.
    try {
      if (isQuietStrayLog(entry.snapshot)) {
        if (!strayLogs.delete(space)) return;
        persist('forgetStrayLog', store.forgetStrayLog(space));
        return;
      }
      const persisted = entry.logic.getPersistedSnapshot(entry.snapshot);
      strayLogs.set(space, persisted);
      persist('saveStrayLog', store.saveStrayLog({ space, snapshot: persisted, updatedAt: clock.now() }));
    } catch (error) {
      persistFailure('saveStrayLog')(error);
    }
  }

  /** Persists every turn and stray log changed since the last write (its newest snapshot only). */
  function writeDirtyTurns(): void {
    writeQueued = false;
    for (const turnId of [...dirty.keys()]) writeTurn(turnId);
    for (const space of [...dirtyStrays.keys()]) writeStrayLog(space);
  }

  function writeTurn(turnId: string): void {
    const entry = dirty.get(turnId);
    if (!entry) return;
    dirty.delete(turnId);
    const persisted = persistTurnSnapshot(entry.logic, entry.snapshot);
    snapshots.set(turnId, { space: entry.space, snapshot: persisted });
    // A store that throws at once (closed under a shutdown) must not throw into the actor system.
    try {
      persist(
        'saveTurn',
        store.saveTurn({ turnId, space: entry.space, snapshot: persisted, updatedAt: clock.now() }),
      );
    } catch (error) {
      persistFailure('saveTurn')(error);
    }
  }

  /** A live turn's latest persisted snapshot, written first when it changed since. */
  function persistedSnapshot(turnId: string): Snapshot<unknown> | undefined {
    writeTurn(turnId);
    return snapshots.get(turnId)?.snapshot;
  }

  /** Answers refused for good, by turn: the turn's view (live or finished) is degraded with the reason. */
  const failedAnswers = new Map<string, string[]>();
  function withFailedAnswers(view: TurnView): TurnView {
    const reasons = failedAnswers.get(view.turnId);
    if (!reasons) return view;
    return {
      ...view,
      degraded: true,
      warnings: [...(view.warnings ?? []), ...reasons],
      deadLetters: (view.deadLetters ?? 0) + reasons.length,
    };
  }
  /**
   * An answer was refused after the delivery's retries. The turn's view says so
   * (`degraded`, the reason in `warnings`, one more dead letter), also when the
   * turn has ended: its stored summary is written again. Views in `recent` are
   * kept as the turn left them; the failures are added when read.
   */
  function answerFailed(turnId: string, reason: string): void {
    failedAnswers.set(turnId, [...(failedAnswers.get(turnId) ?? []), reason]);
    if (failedAnswers.size > RECENT_SUMMARIES)
      failedAnswers.delete(failedAnswers.keys().next().value as string);
    const finished = recent.get(turnId);
    if (finished) {
      finishView(finished);
      return;
    }
    if (turnActor(turnId) !== undefined) return;
    // Ended before this process kept it in memory: amend the stored summary.
    Promise.resolve(store.turnSummary(turnId))
      .then((summary) => {
        if (summary) finishView(fromSummary(summary));
      })
      .catch(readFailure('turnSummary'));
  }

  /** A turn is finished: its summary is kept (recent ones in memory) and its live row goes. */
  function finishView(view: TurnView): void {
    recent.delete(view.turnId);
    recent.set(view.turnId, view);
    if (recent.size > RECENT_SUMMARIES) recent.delete(recent.keys().next().value as string);
    persist('finishTurn', store.finishTurn(summaryOf(withFailedAnswers(view), clock.now())));
  }

  /**
   * Turns that crashed for good and have not ended yet. Such a turn has no
   * actor any more (its later events go top-level), so nothing of it is live:
   * it is finished in the store at once (state `crashed`, outcome null, its
   * log messages as last persisted), so no restart brings it back as a live
   * turn that can never end. Its `turn_ended` completes the summary.
   */
  const crashed = new Map<string, TurnView>();

  function finishCrashedTurn(space: string, turnId: string): void {
    const persisted = persistedSnapshot(turnId);
    snapshots.delete(turnId);
    warned.delete(turnId);
    const view = crashedView(turnId, space, persisted);
    crashed.set(turnId, view);
    // Bounded: a crashed turn that never ends is forgotten here first; its summary stays in the store.
    if (crashed.size > RECENT_SUMMARIES) crashed.delete(crashed.keys().next().value as string);
    finishView(view);
  }

  /**
   * The `turn_ended` of a turn with no actor: one that crashed for good here
   * (or before its space was restarted), or in an earlier process — then its
   * summary is in the store, `crashed`. For another unknown turn, nothing.
   */
  function endCrashedTurn(turnId: string, outcome: string): void {
    const ended = (view: TurnView) => finishView({ ...view, state: 'ended', outcome });
    const known = crashed.get(turnId);
    if (known) {
      crashed.delete(turnId);
      ended(known);
      return;
    }
    let stored: ReturnType<TurnlogStore['turnSummary']>;
    try {
      stored = store.turnSummary(turnId);
    } catch (error) {
      readFailure('turnSummary')(error);
      return;
    }
    const complete = (summary: TurnSummary | undefined) => {
      if (summary?.state === 'crashed') ended(fromSummary(summary));
    };
    if (stored instanceof Promise) stored.then(complete, readFailure('turnSummary'));
    else complete(stored);
  }

  // Inspection costs on every event of every actor: on only when asked (`inspect`, or TURNLOG_INSPECT).
  const inspect = options.inspect ?? createInspector();
  const root = createActor(machine, { clock, ...(inspect ? { inspect } : {}) });

  const channel = createRuntimeBackend({
    deliver: (space, delivery) =>
      root.send({ type: 'runtime.toSpace', space, event: { type: 'space.hostWrite', delivery } }),
    actions: (options) => outbox.poll(options),
    surfaceOf(space) {
      const platform = registry.forSpace(space).id;
      const surface = surfaces[platform];
      if (!surface) throw new Error(`no ${platform} surface is configured (for ${space})`);
      return surface;
    },
  });

  /** Clicks on cards and on Stop (src/actions/clicks.ts): the first one wins and shows in the chat. */
  const resolveClick: ClickResolver =
    options.resolveClick ??
    createClickResolver({
      store,
      now: () => clock.now(),
      showOutcome: (space, event) => root.send({ type: 'runtime.toSpace', space, event }),
      isTurnLive: (turnId) => turnActor(turnId) !== undefined,
      requestStop: (turnId, user) => turnActor(turnId)?.send({ type: 'turn.stopRequested', user }),
    });
  root.subscribe({ error: (error) => logger.error('runtime actor failed', { error: String(error) }) });

  let started = false;
  const pending: RunEvent[] = [];

  function apply(event: RunEvent): void {
    if (!started) {
      pending.push(event);
      return;
    }
    // A running space gets its event straight away; the root only spawns a space on its first event.
    const space = liveSpace(event.space);
    if (space) space.send({ type: 'space.event', event });
    else root.send({ type: 'runtime.event', event });
  }

  function liveSpace(space: string): AnyActorRef | undefined {
    const actor = root.getSnapshot().children[spaceChildId(space)] as AnyActorRef | undefined;
    return actor?.getSnapshot().status === 'active' ? actor : undefined;
  }

  /** Applies a batch's accepted events in order: one pass through the runtime and each space they go to. */
  function applyBatch(events: readonly RunEvent[]): void {
    if (!started) {
      pending.push(...events);
      return;
    }
    // Spaces are independent: each gets its events in order.
    const bySpace = new Map<string, RunEvent[]>();
    for (const event of events) {
      const list = bySpace.get(event.space);
      if (list) list.push(event);
      else bySpace.set(event.space, [event]);
    }
    for (const [space, list] of bySpace) {
      if (list.length === 1) apply(list[0] as RunEvent);
      else {
        const actor = liveSpace(space);
        if (actor) actor.send({ type: 'space.events', events: list });
        else root.send({ type: 'runtime.events', space, events: list });
      }
    }
  }

  const ready = (async () => {
    // Settings changed at run time before this point (configureSpace) win over the saved ones.
    for (const [space, saved] of Object.entries(await store.spaceSettings())) {
      overrides.set(space, { ...saved, ...overrides.get(space) });
    }
    // A space whose stray log was live is restored too, so it keeps editing the same message.
    for (const log of await store.strayLogs()) {
      strayLogs.set(log.space, log.snapshot);
      if (!toRestore.has(log.space)) toRestore.set(log.space, []);
    }
    // A space with answer parts not posted yet is restored too: they go out again, in order.
    pendingAnswers.load(await store.pendingAnswerParts());
    for (const space of pendingAnswers.spaces()) if (!toRestore.has(space)) toRestore.set(space, []);
    const live = await store.liveTurns();
    for (const turn of live) {
      const list = toRestore.get(turn.space) ?? [];
      list.push({ turnId: turn.turnId, record: recordFromSnapshot(turn.snapshot), snapshot: turn.snapshot });
      toRestore.set(turn.space, list);
      snapshots.set(turn.turnId, { space: turn.space, snapshot: turn.snapshot as Snapshot<unknown> });
      await restoreSequence(turn);
    }
    for (const space of toRestore.keys()) {
      anchorsToRestore.set(space, await store.anchors(space, config.runtime.anchorCapacity));
    }
    root.start();
    started = true;
    if (webhookConfig && webhookSecret !== undefined) {
      webhook = startWebhookDelivery({
        url: webhookConfig.url,
        secret: webhookSecret,
        outbox,
        store,
        clock,
        logger,
      });
    }
    if (toRestore.size > 0) root.send({ type: 'runtime.restore', spaces: [...toRestore.keys()] });
    for (const event of pending.splice(0)) root.send({ type: 'runtime.event', event });
  })();

  /** The sequence goes on after the run record's last `seq`, and its `eventId`s are known (retries are duplicates). */
  async function restoreSequence(turn: PersistedTurn): Promise<void> {
    sequencer.resumeTurn(turn.turnId, await store.events(turn.turnId));
  }

  /**
   * Before the first event with an `eventId` of a turn this runtime does not
   * know (it ended before a restart, or the event came before `ready`; for
   * `RECALL_AFTER_START_MS` after the start), the turn's run record is read;
   * before the first one of a space outside a turn — or the first `inbound`,
   * which is deduplicated per space even with a `turnId` — the space's record
   * (once per space, whenever). An `inbound` with a `turnId` is kept in its
   * turn's record, so it asks for both: its turn's on the terms of the turn's
   * other events (whose record also gives the space the ids of its inbound
   * events, as a live turn's does at start). The ids found are taken up, so a
   * retry of an event accepted before the restart is a duplicate. Only a store
   * that answers at once (SQLite, memory) can be asked here; with another, a
   * space's ids arrive when it answers and a turn's are not looked up.
   */
  function recallEventIds(event: RunEvent): void {
    if (event.eventId === undefined) return;
    const { space, turnId } = event;
    if ((turnId === undefined || event.type === 'inbound') && !sequencer.knowsSpace(space)) {
      const record = readRecord(`space:${space}`);
      if (record !== undefined) {
        sequencer.resumeSpace(space, []);
        if (record instanceof Promise) {
          record.then((events) => sequencer.resumeSpace(space, events), readFailure('events'));
        } else sequencer.resumeSpace(space, record);
      }
    }
    if (turnId !== undefined && !sequencer.knowsTurn(turnId) && clock.now() <= recallUntil) {
      const record = readRecord(turnId);
      if (record instanceof Promise) record.catch(readFailure('events'));
      else if (record !== undefined && record.length > 0) sequencer.resumeTurn(turnId, record);
    }
  }

  /** A run record (`turnId` or `space:<space>`) from the store; undefined (logged) when the store throws. */
  function readRecord(key: string): RunEvent[] | Promise<RunEvent[]> | undefined {
    try {
      return store.events(key);
    } catch (error) {
      readFailure('events')(error);
      return undefined;
    }
  }

  /** A live turn's actor: `turn:<slot>` of its space, the slot its space's record names. */
  function turnActor(turnId: string): AnyActorRef | undefined {
    for (const space of Object.values(root.getSnapshot().children) as (AnyActorRef | undefined)[]) {
      const snapshot = space?.getSnapshot() as AnyMachineSnapshot | undefined;
      const slot = (snapshot?.context as Partial<SpaceContext> | undefined)?.turns?.[turnId]?.slot;
      if (slot === undefined || slot === null) continue;
      return snapshot?.children[turnChildId(slot)] as AnyActorRef | undefined;
    }
    return undefined;
  }

  /** Live turn and delivery actors of every space, and its stray log. */
  function liveChildren(): { turns: AnyActorRef[]; deliveries: number; strays: AnyActorRef[] } {
    const turns: AnyActorRef[] = [];
    const strays: AnyActorRef[] = [];
    let deliveries = 0;
    for (const space of Object.values(root.getSnapshot().children) as (AnyActorRef | undefined)[]) {
      const children = (space?.getSnapshot().children ?? {}) as Record<string, AnyActorRef | undefined>;
      for (const [id, child] of Object.entries(children)) {
        if (child?.getSnapshot().status !== 'active') continue;
        if (id.startsWith('turn:')) turns.push(child);
        else if (id.startsWith('delivery:')) deliveries++;
        else if (id === 'strays') strays.push(child);
      }
    }
    return { turns, deliveries, strays };
  }

  /**
   * Asks every live turn and every space's stray log to flush until none has
   * anything pending or in flight (one busy writing is asked again once it is
   * done), in real time: a shutdown has a wall-clock deadline whatever clock
   * drives the actors.
   */
  async function flushAll(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const { turns, deliveries, strays } = liveChildren();
      const busy = turns.filter((turn) => !isQuiet(turn.getSnapshot() as AnyMachineSnapshot));
      const straysBusy = strays.filter((log) => !isStrayLogQuiet(log.getSnapshot() as AnyMachineSnapshot));
      if (busy.length === 0 && deliveries === 0 && straysBusy.length === 0) return true;
      if (Date.now() >= deadline) {
        logger.warn('shutdown flush timed out; the rest stays persisted for the next start', {
          turns: busy.length,
          deliveries,
          strayLogs: straysBusy.length,
        });
        return false;
      }
      for (const turn of busy) turn.send({ type: 'turn.flush' });
      for (const log of straysBusy) log.send({ type: 'strays.flush' });
      await new Promise((resolve) => setTimeout(resolve, FLUSH_POLL_MS));
    }
  }

  function reject(source: string, error: string, input: unknown): IngestResult {
    persist(
      'deadLetter',
      store.deadLetter({
        at: clock.now(),
        source,
        reason: error,
        payload: typeof input === 'string' ? input : safeJson(input),
      }),
    );
    return { ok: false, error };
  }

  /**
   * Validates, redacts and sequences one event and records it in the run
   * record; `accepted` is the event to apply (none for a refused one, kept as
   * a dead letter, or a duplicate).
   */
  function admit(raw: unknown): { result: IngestResult; accepted?: RunEvent } {
    // Secrets and direction controls go before anything is parsed, stored or logged.
    const scrubbed = scrubInput(raw, keyStreams);
    if (!scrubbed.ok) return { result: reject('ingest', scrubbed.error, scrubbed.payload) };
    const input = scrubbed.value;
    const parsed = parseRunEvent(input, { platforms: registry });
    if (!parsed.ok) return { result: reject('ingest', parsed.error, input) };
    const platform = registry.forSpace(parsed.event.space).id;
    if (!surfaces[platform]) {
      return {
        result: reject(
          'ingest',
          `no ${platform} surface is configured for space ${parsed.event.space}`,
          input,
        ),
      };
    }
    const event = redactRunEvent(parsed.event);
    recallEventIds(event);
    const stamped = sequencer.stamp(event);
    if (!stamped.ok) return { result: reject('ingest', stamped.error, input) };
    if (stamped.duplicate) return { result: { ok: true, duplicate: true, event: stamped.event } };
    // Stamped means accepted: a store that fails now (at once or later) is reported, and the event is
    // applied all the same (its retry is a duplicate; `sync()` tells the caller it is not durable).
    try {
      persist('appendEvent', store.appendEvent(stamped.event));
    } catch (error) {
      persistFailure('appendEvent')(error);
    }
    return { result: { ok: true, event: stamped.event }, accepted: stamped.event };
  }

  return {
    actor: root,
    ready,
    ingest(raw) {
      const { result, accepted } = admit(raw);
      if (accepted) apply(accepted);
      return result;
    },
    ingestBatch(inputs) {
      const results: IngestResult[] = [];
      const accepted: RunEvent[] = [];
      for (const raw of inputs) {
        const admitted = admit(raw);
        results.push(admitted.result);
        if (admitted.accepted) accepted.push(admitted.accepted);
      }
      if (accepted.length > 0) applyBatch(accepted);
      return results;
    },
    async receive(event) {
      if (event.kind === 'click') {
        await ready;
        const resolution = await resolveClick(event);
        if (resolution.status !== 'accepted') return resolution;
        const id = resolution.action.id ?? actionIdFor(event.space, `click:${event.dedupeKey}`);
        const { action, duplicate } = await outbox.record({ ...resolution.action, id });
        return {
          status: duplicate ? 'duplicate' : 'accepted',
          action,
          ...(resolution.text !== undefined ? { text: resolution.text } : {}),
        };
      }
      const id = actionIdFor(event.space, event.dedupeKey);
      const result = this.ingest({
        type: 'inbound',
        space: event.space,
        messageId: event.messageId,
        ...(event.threadId !== undefined ? { threadId: event.threadId } : {}),
        ref: id,
        dm: event.dm,
        at: event.at,
        eventId: `intake:${event.dedupeKey}`,
      });
      if (!result.ok) return { status: 'unknown', text: result.error };
      // The outbox, not the anchor, says whether this is a redelivery: an anchor kept by a process
      // that died before its action was recorded gets the action now (at least once).
      const { action, duplicate } = await outbox.record({
        id,
        type: 'message',
        space: event.space,
        messageId: event.messageId,
        ...(event.threadId !== undefined ? { threadId: event.threadId } : {}),
        text: event.text,
        dm: event.dm,
        user: event.user,
        at: event.at,
      });
      return { status: duplicate ? 'duplicate' : 'accepted', action };
    },
    channel,
    actions: (options) => outbox.poll(options),
    onAction: (listener) => outbox.subscribe(listener),
    turn(turnId) {
      const actor = turnActor(turnId);
      const view = actor ? viewOf(actor.getSnapshot() as AnyMachineSnapshot) : recent.get(turnId);
      return view && { ...withFailedAnswers(view), answerPartsPending: pendingAnswers.pendingFor(turnId) };
    },
    configureSpace(space, settings) {
      registry.forSpace(space);
      const patch: SpaceOverrides = {
        ...(settings.threadsDisabled !== undefined ? { threadsDisabled: settings.threadsDisabled } : {}),
        ...(settings.dm !== undefined ? { dm: settings.dm } : {}),
      };
      const merged = { ...overrides.get(space), ...patch };
      // Saved first: a store that refuses at once changes nothing (the caller gets its error).
      persist('saveSpaceSettings', store.saveSpaceSettings(space, merged));
      overrides.set(space, merged);
      root.getSnapshot().children[spaceChildId(space)]?.send({ type: 'space.configure', ...patch });
      return ownSettings(space);
    },
    spaceSettings: ownSettings,
    resetSpace(space) {
      registry.forSpace(space);
      persist('saveSpaceSettings', store.saveSpaceSettings(space, {}));
      overrides.delete(space);
      root.getSnapshot().children[spaceChildId(space)]?.send({
        type: 'space.reset',
        routing: spaceSettingsFor(config, space, capabilitiesOf(space)).routing,
      });
      return ownSettings(space);
    },
    async sync() {
      writeDirtyTurns();
      await ready;
      await store.flush?.();
      const failure = unsynced;
      unsynced = undefined;
      if (failure !== undefined)
        throw new Error(`${failure} (since the last sync; not everything is durable)`);
    },
    async finishedTurn(turnId) {
      const summary = await store.turnSummary(turnId);
      return summary
        ? { ...fromSummary(summary), answerPartsPending: pendingAnswers.pendingFor(turnId) }
        : undefined;
    },
    async stop(opts = {}) {
      await ready;
      const flushed = opts.flush ? await flushAll(opts.timeoutMs ?? DEFAULT_FLUSH_TIMEOUT_MS) : true;
      writeDirtyTurns();
      await webhook?.stop();
      channel.close();
      root.stop();
      return { flushed };
    },
  };
}

function budgetInput(config: TurnlogConfig, platform: string, registry: PlatformRegistry) {
  const own = (
    config.budgets as Partial<Record<string, (typeof config.budgets)[keyof typeof config.budgets]>>
  )[platform];
  return { ...budgetDefaults(platform, registry), ...own, platform };
}

/**
 * A turn's persisted snapshot, from the snapshot, not the actor (the actor
 * may have failed since; its last good snapshot is the one to keep). XState
 * walks the whole context looking for actor refs to persist; a turn's
 * context is plain data (TurnContext holds no actor refs), so it
 * is kept as it is, and the cost does not grow with the turn's log.
 */
function persistTurnSnapshot(logic: AnyStateMachine, snapshot: AnyMachineSnapshot): Snapshot<unknown> {
  const persisted = logic.getPersistedSnapshot({ ...snapshot, context: {} }) as Record<string, unknown>;
  return { ...persisted, context: snapshot.context } as unknown as Snapshot<unknown>;
}

/** Nothing a restart would resume: the window is closed, no write pending, every line shown. */
function isQuietStrayLog(snapshot: AnyMachineSnapshot): boolean {
  const context = snapshot.context as StrayLogContext;
  return (
    context.shown >= context.lines.length && snapshot.matches({ window: 'closed', writer: 'idle' } as never)
  );
}

function recordFromSnapshot(snapshot: unknown): RestoredTurnRecord {
  const context = (snapshot as { context?: Partial<TurnContext> }).context;
  return { anchor: context?.anchor ?? null, dm: false, restarts: 0, mode: 'live' };
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
