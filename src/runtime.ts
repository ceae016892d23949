/**
 * `createRuntime({config, surfaces, store?, clock?})` (docs/library.md):
 * validates, redacts and sequences each event, keeps the run record, and
 * drives the XState actor system (runtime → budgets + space supervisors →
 * turns and deliveries) against the given surfaces. Every live turn's
 * persisted snapshot is saved after the work that changed it; a runtime
 * created on the same store resumes the live turns (timers re-armed) and
 * keeps editing the same log messages.
 *
 * Composed of named parts under src/runtime/, one job each: admission
 * (scrub, parse, redact, sequence), the run record, snapshot writing, turn
 * views, restore, and the actor system. Every event for a space or a turn
 * goes through the root machine (machines/runtime.machine.ts).
 */
import type { AnyActorRef, AnyMachineSnapshot } from 'xstate';
import { type SpaceEvent, spaceMachine } from '../machines/space.machine.js';
import { createClickResolver } from './actions/clicks.js';
import { createDeciderBook } from './actions/deciders.js'; // deciders (issue 22.2)
import { createEndedCards } from './actions/ended-cards.js'; // deciders (issue 22.5)
import { actionIdFor, createOutbox, messageActionOf } from './actions/outbox.js';
import type { ClickResolver } from './actions/types.js';
import { resolveWebhookSecret, startWebhookDelivery, type WebhookDelivery } from './actions/webhook.js';
import { createRuntimeBackend } from './adapter/runtime-backend.js';
import { systemClock } from './clock.js';
import { createSharedBudget } from './cluster/shared-budget-of.js';
import { resolveConfig } from './config.js';
import type { RunEvent } from './events/schema.js';
import { TurnSequencer } from './events/sequence.js';
import type { PlatformCapabilities } from './registry/descriptor.js';
import { asPlatformRegistry, type PlatformRegistry } from './registry/registry.js';
import { createActorSystem } from './runtime/actor-system.js';
import { adoptionConflict, createAdmission } from './runtime/admission.js';
import { createDurability, messageOf } from './runtime/durability.js';
import { createLiveActors } from './runtime/live-actors.js';
import { createPendingAnswers } from './runtime/pending-answers.js';
import { createRestorePlan } from './runtime/restore.js';
import { createRunRecord } from './runtime/run-record.js';
import { budgetInput, createSpaceOverrides, spaceSettingsFor } from './runtime/settings.js';
import { createSnapshotWriter } from './runtime/snapshots.js';
import { createSpaceImplementations } from './runtime/space.implementations.js';
import type {
  IngestResult,
  Runtime,
  RuntimeLogger,
  RuntimeOptions,
  SpaceOverrides,
} from './runtime/types.js';
import { createTurnViews, fromSummary, viewOf } from './runtime/views.js';
import { createMemoryStore } from './store/memory.js';
import { orderedSurfaces } from './surfaces/ordered.js'; // [writes 22.1]
import { createInspector } from './viz/inspect.js';

export { logMessageChars, spaceSettingsFor } from './runtime/settings.js';
export type {
  IngestResult,
  Runtime,
  RuntimeLogger,
  RuntimeOptions,
  SpaceOverrides,
  StopOptions,
  TurnView,
} from './runtime/types.js';

const consoleLogger: RuntimeLogger = {
  warn: (message, fields) => console.warn(`turnlog: ${message}`, fields ?? ''),
  error: (message, fields) => console.error(`turnlog: ${message}`, fields ?? ''),
};

const DEFAULT_FLUSH_TIMEOUT_MS = 10_000;

export function createRuntime(options: RuntimeOptions): Runtime {
  // layers: the registry is passed in; it checks the config's platform sections.
  const registry: PlatformRegistry = asPlatformRegistry(options.platforms);
  const config = resolveConfig(options.config ?? {}, registry);
  const clock = options.clock ?? systemClock;
  const store = options.store ?? createMemoryStore();
  const logger = options.logger ?? consoleLogger;
  // Every surface's writes are ordered per message: the final frame is the last write (src/surfaces/ordered.ts).
  const surfaces = orderedSurfaces(options.surfaces);
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

  const durability = createDurability(logger);
  const sequencer = new TurnSequencer({ now: () => clock.now() });
  const runRecord = createRunRecord({ store, clock, sequencer, durability });
  const admit = createAdmission({
    registry,
    surfaces,
    sequencer,
    runRecord,
    refuse: (event) => adoptionConflict(event, live.spaces()),
  });
  const overrides = createSpaceOverrides(config);
  // deciders (issue 22.2): who may decide a turn's cards, and which turns ended.
  const deciders = createDeciderBook({ config, store, stopButton: config.visibility.stopButton });
  // The root is late-bound: the parts below read the live actors under it once it runs.
  let root: AnyActorRef;
  const live = createLiveActors(() => root);
  const views = createTurnViews({
    store,
    clock,
    durability,
    isLive: (turnId) => live.turnActor(turnId) !== undefined,
  });
  const snapshots = createSnapshotWriter({
    store,
    clock,
    durability,
    onTurnWarning: (context, message) =>
      logger.warn(message, { turnId: context.turnId, space: context.space }),
    onTurnDone: (snapshot: AnyMachineSnapshot) => {
      const view = viewOf(snapshot);
      views.finish(view);
      closeEndedCards(view.turnId).catch(durability.readFailed('openCards')); // deciders (issue 22.5)
    },
  });
  /** Answer parts not posted yet, kept in the store and in memory by space (a failed space resumes them). */
  const pendingAnswers = createPendingAnswers(store, (what, write) => durability.attempt(what, write));
  const restore = createRestorePlan({
    store,
    overrides,
    snapshots,
    pendingAnswers,
    runRecord,
    anchorCapacity: config.runtime.anchorCapacity,
  });

  const outbox = createOutbox({
    store,
    clock,
    onError: (error) => logger.error('actions outbox', { error: messageOf(error) }),
  });
  const webhookConfig = config.actions.webhook;
  const webhookSecret = webhookConfig ? resolveWebhookSecret(webhookConfig.secret) : undefined;
  let webhook: WebhookDelivery | undefined;

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
      // turnmachine: the runtime's clock, which pacing and a status clear wait on (not XState's private one).
      clock,
      snapshotOf: (turnId) => snapshots.persisted(turnId),
      onTurnSnapshot: (_, snapshot, logic) => snapshots.onTurnSnapshot(snapshot, logic),
      onStraySnapshot: (_, snapshot, logic) => snapshots.onStraySnapshot(snapshot, logic),
      onWarning: (space, message) => logger.warn(message, { space }),
      onTurnCrashed: (space, turnId) => views.crashed(space, turnId, snapshots.release(turnId)),
      onTurnEndedWithoutActor: (_space, turnId, outcome) => views.endedWithoutActor(turnId, outcome),
      onHostWrite: (ticket, output) => channel.settle(ticket, output),
      onAnswerFailed: (turnId, reason) => views.answerFailed(turnId, reason),
      pendingAnswers,
      ...(options.runLink ? { runLink: options.runLink } : {}), // issue 25: run page link
    }),
  );

  const spaceInput = (space: string) => {
    const settings = spaceSettingsFor(config, space, capabilitiesOf(space));
    const strays = snapshots.strayLog(space);
    return {
      space,
      settings: { ...settings, routing: { ...settings.routing, ...overrides.changes(space) } },
      anchors: restore.takeAnchors(space),
      ...(strays !== undefined ? { strays } : {}),
    };
  };

  // Issue 23 item 5: with cluster.redisUrl, the app's budget is shared with its other processes.
  const sharedBudget =
    options.sharedBudget ??
    createSharedBudget(config.cluster, {
      clock,
      logger,
      simulated: clock !== systemClock,
    });

  root = createActorSystem({
    clock,
    logger,
    budgetGate: sharedBudget,
    // Inspection costs on every event of every actor: on only when asked (`inspect`, or TURNLOG_INSPECT).
    inspect: options.inspect ?? createInspector(),
    spaceLogic,
    budgets: platforms.map((platform) => ({ platform, input: budgetInput(config, platform, registry) })),
    spaceInput,
    restoredTurns: (space) => restore.takeTurns(space),
    liveTurnsOf: (space) => snapshots.liveTurnsOf(space),
    answersOf: (space) => pendingAnswers.resumeIn(space),
    writeAll: () => snapshots.writeAll(),
  });

  /** Clicks on cards and on Stop (src/actions/clicks.ts): the first one wins and shows in the chat. */
  const resolveClick: ClickResolver =
    options.resolveClick ??
    createClickResolver({
      store,
      now: () => clock.now(),
      showOutcome: (space, event) => root.send({ type: 'runtime.toSpace', space, event }),
      isTurnLive: (turnId) => live.turnActor(turnId) !== undefined,
      requestStop: (turnId, user) => {
        const space = live.spaceOfTurn(turnId);
        if (space !== undefined)
          root.send({ type: 'runtime.toLiveSpace', space, event: { type: 'space.stopTurn', turnId, user } });
      },
      deciders, // deciders (issue 22.2)
    });
  // deciders (issue 22.5): an ended turn's undecided cards lose their buttons.
  const closeEndedCards = createEndedCards({
    store,
    now: () => clock.now(),
    showOutcome: (space, event) => root.send({ type: 'runtime.toSpace', space, event }),
  });

  let started = false;
  const pending: RunEvent[] = [];

  /** Applies accepted events in order; a batch's go to each space in one pass (spaces are independent). */
  function apply(events: readonly RunEvent[]): void {
    if (!started) {
      pending.push(...events);
      return;
    }
    const bySpace = new Map<string, RunEvent[]>();
    for (const event of events) {
      const list = bySpace.get(event.space);
      if (list) list.push(event);
      else bySpace.set(event.space, [event]);
    }
    for (const [space, list] of bySpace) {
      const [only] = list;
      if (list.length === 1 && only !== undefined) root.send({ type: 'runtime.event', event: only });
      else root.send({ type: 'runtime.events', space, events: list });
    }
  }

  const ready = (async () => {
    // Bounded by the store's connect timeout; out of reach, the budget starts in its fallback.
    await sharedBudget?.start();
    const spaces = await restore.load();
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
    if (spaces.length > 0) root.send({ type: 'runtime.restore', spaces });
    for (const event of pending.splice(0)) root.send({ type: 'runtime.event', event });
  })();

  /** A running space's settings changed (one not started yet reads them when it starts). */
  const configured = (space: string, event: SpaceEvent) =>
    root.send({ type: 'runtime.toLiveSpace', space, event });

  return {
    actor: root,
    ready,
    ingest(raw) {
      const { result, accepted } = admit(raw);
      if (accepted) deciders.noteEvent(accepted); // deciders (issue 22.2/22.5)
      if (accepted) apply([accepted]);
      return result;
    },
    ingestBatch(inputs) {
      const results: IngestResult[] = [];
      const accepted: RunEvent[] = [];
      for (const raw of inputs) {
        const admitted = admit(raw);
        results.push(admitted.result);
        if (admitted.accepted) deciders.noteEvent(admitted.accepted); // deciders (issue 22.2/22.5)
        if (admitted.accepted) accepted.push(admitted.accepted);
      }
      if (accepted.length > 0) apply(accepted);
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
        // Shown (redacted, the first words) if a turn adopts the message (issue 26).
        text: event.text,
        user: event.user.name ?? event.user.id,
      });
      if (!result.ok) return { status: 'unknown', text: result.error };
      deciders.noteMessage(event.space, event.messageId, id, event.user); // deciders (issue 22.2)
      // The outbox, not the anchor, says whether this is a redelivery: an anchor kept by a process
      // that died before its action was recorded gets the action now (at least once).
      const { action, duplicate } = await outbox.record(messageActionOf(id, event));
      return { status: duplicate ? 'duplicate' : 'accepted', action };
    },
    channel,
    actions: (options) => outbox.poll(options),
    onAction: (listener) => outbox.subscribe(listener),
    turn(turnId) {
      const view = views.view(turnId, live.turnActor(turnId)?.getSnapshot());
      // deciders (issue 22.2): a turn anyone may decide says so in its warnings.
      const undecided = deciders.warningOf(turnId);
      const warned = view && undecided ? { ...view, warnings: [...(view.warnings ?? []), undecided] } : view;
      return warned && { ...warned, answerPartsPending: pendingAnswers.pendingFor(turnId) };
    },
    configureSpace(space, settings) {
      registry.forSpace(space);
      const patch: SpaceOverrides = {
        ...(settings.threadsDisabled !== undefined ? { threadsDisabled: settings.threadsDisabled } : {}),
        ...(settings.dm !== undefined ? { dm: settings.dm } : {}),
      };
      const merged = { ...overrides.changes(space), ...patch };
      // Saved first: a store that refuses at once changes nothing (the caller gets its error).
      durability.persist('saveSpaceSettings', store.saveSpaceSettings(space, merged));
      overrides.set(space, merged);
      configured(space, { type: 'space.configure', ...patch });
      return overrides.own(space);
    },
    spaceSettings: (space) => overrides.own(space),
    resetSpace(space) {
      registry.forSpace(space);
      durability.persist('saveSpaceSettings', store.saveSpaceSettings(space, {}));
      overrides.clear(space);
      configured(space, {
        type: 'space.reset',
        routing: spaceSettingsFor(config, space, capabilitiesOf(space)).routing,
      });
      return overrides.own(space);
    },
    async sync() {
      snapshots.writeAll();
      await ready;
      await store.flush?.();
      const failure = durability.takeFailure();
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
      const flushed = opts.flush
        ? await live.flushAll(opts.timeoutMs ?? DEFAULT_FLUSH_TIMEOUT_MS, logger)
        : true;
      snapshots.writeAll();
      await webhook?.stop();
      channel.close();
      root.stop();
      // One given in the options is its giver's to stop (it may serve other runtimes too).
      if (options.sharedBudget === undefined) await sharedBudget?.stop();
      return { flushed };
    },
    budgetMode: () => sharedBudget?.mode(),
  };
}
