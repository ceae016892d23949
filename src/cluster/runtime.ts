/**
 * The cluster runtime (issue 23.2–23.4, docs/http-api.md (several instances)): what `turnlog
 * serve` runs when `store.url` is a Postgres URL. It answers every request of
 * the ingest API the way a runtime does, on any process:
 *
 * - an event (POST /v1/events, a platform intake) is checked and redacted
 *   here, appended to the inbox table, and acknowledged once committed; the
 *   space's owner, woken by NOTIFY (or its poll), applies it;
 * - each space this process holds the lease of runs in a runtime of its own
 *   (`createRuntime` on a fenced view of the shared store and fenced
 *   surfaces), started when the lease is taken (it restores the space's live
 *   turns from the store and goes on editing their messages) and stopped when
 *   the lease is released (flushing) or lost (writing nothing);
 * - the actions outbox, the turns' summaries and the space settings are read
 *   from the shared store.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Pool } from 'pg';
import { type AnyActorRef, createActor, createMachine } from 'xstate';
import { type ActionsPollOptions, actionIdFor, createOutbox, messageActionOf } from '../actions/outbox.js';
import type { IntakeEvent, IntakeResult } from '../actions/types.js';
import type { SharedBudget } from '../budget/shared-budget.js';
import type { Clock } from '../clock.js';
import type { TurnlogConfig } from '../config.js';
import type { RunEvent } from '../events/schema.js';
import { KeyStreams } from '../events/scrub.js';
import type { PlatformRegistry } from '../registry/registry.js';
import type { IngestResult, Runtime, RuntimeLogger, SpaceOverrides, TurnView } from '../runtime/types.js';
import { fromSummary, viewOf } from '../runtime/views.js';
import { createRuntime } from '../runtime.js';
import type { StoredSpaceSettings, TurnlogStore } from '../store/store.js';
import type { ChatSurface } from '../surfaces/surface.js';
import { type Fence, fencedSurface, scopedStore } from './fenced.js';
import {
  appendToInbox,
  type InboxItem,
  type InboxRow,
  markApplied,
  pendingRows,
  pruneInbox,
  resultOf,
  spacesWithPending,
} from './inbox.js';
import { createLeaseManager, type LeaseManager } from './leases.js';
import { ensureClusterSchema } from './schema.js';
import { createSharedBudget } from './shared-budget-of.js';
import {
  clusterChannel,
  clusterHealth,
  createClusterAdmission,
  createClusterSettings,
  lend,
} from './support.js';

export type BudgetMode = 'shared' | 'local-fallback' | 'local';

/** `/healthz`'s `cluster` object (docs/http-api.md (several instances)). */
export interface ClusterHealth {
  instanceId: string;
  /** The platform-prefixed spaces this process runs now. */
  owns: string[];
  /** "ok", or why the store does not answer. */
  store: string;
  budget: BudgetMode;
}

export interface ClusterLogger extends RuntimeLogger {
  info(message: string, fields?: Record<string, unknown>): void;
}

export interface ClusterRuntimeOptions {
  config: TurnlogConfig;
  surfaces: Partial<Record<string, ChatSurface>>;
  platforms: PlatformRegistry;
  /** The shared store (Postgres), left open: its owner closes it. */
  store: TurnlogStore;
  /** The pool of the same database (leases, inbox). */
  pool: Pool;
  /** A store of its own for an owned space's runtime, every write fenced by the lease (`fenceCheck`). */
  storeFor(fence: Fence): TurnlogStore;
  /** A dedicated connection LISTENing for inbox rows. */
  listen(onSpace: (space: string) => void): Promise<{ close(): Promise<void> }>;
  clock: Clock;
  logger: ClusterLogger;
  runLink?: (turnId: string) => string | undefined;
  /** Where `/healthz` reads the budget's mode (the shared budget's, issue 23.5). Default "local". */
  budgetMode?: () => BudgetMode;
}

export interface ClusterRuntime extends Runtime {
  readonly instanceId: string;
  health(): Promise<ClusterHealth>;
}

/** Rows read from the inbox per pass. */
const DRAIN_BATCH = 500;
/** How long a click taken by a process that is not its space's owner waits for the owner's answer. */
const CLICK_WAIT_MS = 2_500;
/** Applied inbox rows are kept this long (a retry within it is a duplicate even for an ended turn). */
const INBOX_KEEP_MS = 10 * 60_000;

interface Owner {
  space: string;
  term: number;
  runtime: Runtime;
  store: TurnlogStore;
  draining?: Promise<void>;
  dirty: boolean;
  stopped: boolean;
}

export function defaultInstanceId(): string {
  return `${hostname()}:${process.pid}`;
}

export function createClusterRuntime(options: ClusterRuntimeOptions): ClusterRuntime {
  const { config, surfaces, platforms: registry, store, pool, clock, logger } = options;
  const instanceId = config.cluster.instanceId ?? defaultInstanceId();
  const leaseMs = config.cluster.leaseMs;
  const owners = new Map<string, Owner>();
  /** Per-space lifecycle steps (start, stop), one after the other. */
  const steps = new Map<string, Promise<void>>();
  const inSpace = (space: string, step: () => Promise<void>): Promise<void> => {
    const next = (steps.get(space) ?? Promise.resolve()).then(step, step);
    steps.set(space, next);
    return next;
  };
  // The owners' runtimes: no webhook of their own (the host reads the shared outbox).
  const ownerConfig: TurnlogConfig = { ...config, actions: { ...config.actions, webhook: undefined } };
  const outbox = createOutbox({
    store,
    clock,
    onError: (error) => logger.error('actions outbox', { error: String(error) }),
  });
  const keyStreams = new KeyStreams();
  /** Settings changed at run time, by space, as last read from the store or set here. */
  const savedSettings = new Map<string, StoredSpaceSettings>();

  // Issue 23.5: one shared budget for the process (one heartbeat, one Redis connection), lent to every owned
  // space's runtime; its life is the cluster's, not theirs.
  const sharedBudget = createSharedBudget(
    { redisUrl: config.cluster.redisUrl, instanceId },
    { clock, logger, simulated: false },
  );
  const lentBudget: SharedBudget | undefined = sharedBudget && lend(sharedBudget);

  let leases: LeaseManager;

  async function startOwner(space: string, term: number): Promise<void> {
    const fence: Fence = { space, term, instanceId, leases, pool };
    const fenced: Partial<Record<string, ChatSurface>> = {};
    for (const [platform, surface] of Object.entries(surfaces))
      if (surface) fenced[platform] = fencedSurface(surface, fence);
    const spaceStore = options.storeFor(fence);
    const runtime = createRuntime({
      config: ownerConfig,
      surfaces: fenced,
      store: scopedStore(spaceStore, space),
      clock,
      logger,
      platforms: registry,
      ...(options.runLink ? { runLink: options.runLink } : {}),
      ...(lentBudget ? { sharedBudget: lentBudget } : {}),
    });
    try {
      await runtime.ready;
    } catch (error) {
      await runtime.stop().catch(() => undefined);
      await Promise.resolve(spaceStore.close()).catch(() => undefined);
      throw error;
    }
    const owner: Owner = { space, term, runtime, store: spaceStore, dirty: false, stopped: false };
    owners.set(space, owner);
    drain(owner);
  }

  async function stopOwner(space: string, term: number, flush: boolean): Promise<void> {
    const owner = owners.get(space);
    if (owner === undefined || owner.term !== term) return;
    owner.stopped = true;
    owners.delete(space);
    if (flush) await owner.draining;
    await owner.runtime.stop(flush ? { flush: true, timeoutMs: Math.floor(leaseMs / 2) } : {});
    // Lost: what it still had to write is refused by the fence (and dropped with the store).
    await Promise.resolve(owner.store.close()).catch((error: unknown) =>
      logger.warn('cluster: closing a space store', { space, error: String(error) }),
    );
  }

  /** Applies a space's pending inbox rows in order, one pass at a time; marks them applied once durable. */
  function drain(owner: Owner): void {
    if (owner.draining) {
      owner.dirty = true;
      return;
    }
    owner.draining = (async () => {
      do {
        owner.dirty = false;
        for (;;) {
          if (owner.stopped) return;
          const rows = await pendingRows(pool, owner.space, DRAIN_BATCH);
          if (rows.length === 0 || owner.stopped) break;
          const applied = await apply(owner, rows);
          await owner.runtime.sync();
          const kept = await markApplied(
            pool,
            { space: owner.space, owner: instanceId, term: owner.term },
            applied,
          );
          if (!kept || rows.length < DRAIN_BATCH) break;
        }
      } while (owner.dirty && !owner.stopped);
    })()
      .catch((error: unknown) => {
        logger.warn('cluster: applying inbox events failed (they stay pending)', {
          space: owner.space,
          error: error instanceof Error ? error.message : String(error),
        });
      })
      .finally(() => {
        owner.draining = undefined;
      });
  }

  async function apply(owner: Owner, rows: InboxRow[]): Promise<{ id: number; result?: unknown }[]> {
    const applied: { id: number; result?: unknown }[] = [];
    let batch: InboxRow[] = [];
    const flushBatch = () => {
      if (batch.length === 0) return;
      owner.runtime.ingestBatch(batch.map((row) => row.body));
      for (const row of batch) applied.push({ id: row.id });
      batch = [];
    };
    for (const row of rows) {
      if (row.kind === 'event') {
        batch.push(row);
        continue;
      }
      flushBatch();
      if (row.kind === 'click') {
        applied.push({ id: row.id, result: await owner.runtime.receive(row.body as IntakeEvent) });
      } else if (row.kind === 'settings') {
        const { reset, settings } = row.body as { reset?: boolean; settings?: SpaceOverrides };
        if (reset) owner.runtime.resetSpace(owner.space);
        else owner.runtime.configureSpace(owner.space, settings ?? {});
        applied.push({ id: row.id });
      }
    }
    flushBatch();
    return applied;
  }

  // ---- the front: any process takes any request ----

  const writes = new Set<Promise<unknown>>();
  let writeFailure: string | undefined;
  function append(items: InboxItem[]): Promise<number[]> {
    const write = appendToInbox(pool, instanceId, items);
    const tracked = write.then(
      (ids) => {
        for (const space of new Set(items.map((i) => i.space))) wake(space);
        return ids;
      },
      (error: unknown) => {
        writeFailure ??= `appending to the inbox failed: ${error instanceof Error ? error.message : String(error)}`;
        throw error;
      },
    );
    const settled = tracked.catch(() => undefined);
    writes.add(settled);
    void settled.then(() => writes.delete(settled));
    return tracked;
  }

  const { admit } = createClusterAdmission({
    store,
    clock,
    logger,
    registry,
    surfaces,
    keyStreams,
  });
  const { spaceSettings, changeSettings, refreshSettings } = createClusterSettings({
    config,
    registry,
    store,
    logger,
    owners,
    savedSettings,
    append,
  });

  const itemOf = (event: RunEvent): InboxItem => ({
    space: event.space,
    kind: 'event',
    body: event,
    ...(event.turnId !== undefined ? { turnId: event.turnId } : {}),
    ...(event.eventId !== undefined ? { eventId: event.eventId } : {}),
  });

  function ingestBatch(inputs: readonly unknown[]): IngestResult[] {
    const results: IngestResult[] = [];
    const items: InboxItem[] = [];
    for (const raw of inputs) {
      const admitted = admit(raw);
      if (!admitted.ok) {
        results.push(admitted);
        continue;
      }
      // Applied once: an event without an id gets one, so a row applied again after a crash is a duplicate.
      const event =
        admitted.event.eventId === undefined
          ? { ...admitted.event, eventId: `cluster:${randomUUID()}` }
          : admitted.event;
      results.push({ ok: true, event });
      items.push(itemOf(event));
    }
    if (items.length > 0) append(items).catch(() => undefined);
    return results;
  }

  function wake(space: string): void {
    const owner = owners.get(space);
    if (owner) drain(owner);
    else if (!leases.ownedElsewhere(space)) leases.kick();
  }

  async function sync(): Promise<void> {
    await Promise.all([...writes]);
    // Spaces run here: their events applied and what they caused (the turns' snapshots) committed too, as a
    // single serve's 202 means (a space run elsewhere is applied by its owner once woken).
    await Promise.all(
      [...owners.values()].map(async (owner) => {
        await owner.draining;
        await owner.runtime.sync().catch(() => undefined);
      }),
    );
    const failure = writeFailure;
    writeFailure = undefined;
    if (failure !== undefined) throw new Error(`${failure} (since the last sync; not everything is durable)`);
  }

  async function receive(event: IntakeEvent): Promise<IntakeResult> {
    if (event.kind === 'click') {
      const owner = owners.get(event.space);
      if (owner) return owner.runtime.receive(event);
      const [id] = await append([{ space: event.space, kind: 'click', body: event }]);
      if (id === undefined) return { status: 'duplicate' };
      const deadline = clock.now() + CLICK_WAIT_MS;
      for (;;) {
        const row = await resultOf(pool, id);
        if (row.applied) return (row.result ?? { status: 'accepted' }) as IntakeResult;
        if (clock.now() >= deadline) return { status: 'accepted', text: 'Received.' };
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
    const id = actionIdFor(event.space, event.dedupeKey);
    const admitted = admit({
      type: 'inbound',
      space: event.space,
      messageId: event.messageId,
      ...(event.threadId !== undefined ? { threadId: event.threadId } : {}),
      ref: id,
      dm: event.dm,
      at: event.at,
      eventId: `intake:${event.dedupeKey}`,
    });
    if (!admitted.ok) return { status: 'unknown', text: admitted.error };
    await append([itemOf(admitted.event)]);
    const { action, duplicate } = await outbox.record(messageActionOf(id, event));
    return { status: duplicate ? 'duplicate' : 'accepted', action };
  }

  /** A long poll over the shared store: actions recorded by any process wake it within a poll step. */
  async function actions(poll: ActionsPollOptions = {}) {
    const waitMs = poll.waitMs ?? 0;
    const until = clock.now() + waitMs;
    for (;;) {
      const remaining = until - clock.now();
      const page = await outbox.poll({ ...poll, waitMs: Math.max(0, Math.min(remaining, 200)) });
      if (page.actions.length > 0 || remaining <= 200 || poll.signal?.aborted) return page;
    }
  }

  function turn(turnId: string): TurnView | undefined {
    for (const owner of owners.values()) {
      const view = owner.runtime.turn(turnId);
      if (view !== undefined) return view;
    }
    return undefined;
  }

  async function finishedTurn(turnId: string): Promise<TurnView | undefined> {
    const summary = await store.turnSummary(turnId);
    if (summary) return fromSummary(summary);
    // Live on another process: its last snapshot in the store.
    const live = await store.loadTurn(turnId);
    return live ? viewOf(live.snapshot as Parameters<typeof viewOf>[0]) : undefined;
  }

  // ---- the process: leases, wake-ups, the poll ----

  leases = createLeaseManager({
    pool,
    instanceId,
    leaseMs,
    logger,
    onAcquired: (space, term) => inSpace(space, () => startOwner(space, term)),
    onLost: (space, term) => inSpace(space, () => stopOwner(space, term, false)),
    onReleasing: (space, term) => inSpace(space, () => stopOwner(space, term, true)),
  });

  let pollTimer: NodeJS.Timeout | undefined;
  let listener: { close(): Promise<void> } | undefined;
  let polls = 0;
  const pollMs = Math.min(1_000, Math.max(100, Math.floor(leaseMs / 4)));
  async function pollOnce(): Promise<void> {
    polls++;
    for (const space of await spacesWithPending(pool, [...owners.keys()])) wake(space);
    if (polls % 20 === 0) await refreshSettings();
    if (polls % 600 === 0) await pruneInbox(pool, INBOX_KEEP_MS);
  }
  const schedulePoll = () => {
    pollTimer = setTimeout(() => {
      pollOnce()
        .catch((error: unknown) => logger.warn('cluster: inbox poll failed', { error: String(error) }))
        .finally(() => {
          if (!stopping) schedulePoll();
        });
    }, pollMs);
  };
  let stopping = false;
  let stopped: Promise<{ flushed: boolean }> | undefined;

  const ready = (async () => {
    await sharedBudget?.start();
    await ensureClusterSchema(pool);
    await refreshSettings();
    listener = await options.listen((space) => wake(space));
    await leases.start();
    schedulePoll();
  })();

  const channel = clusterChannel(owners, actions);

  const actor: AnyActorRef = createActor(createMachine({ id: 'turnlog-cluster' })).start();

  return {
    instanceId,
    actor,
    ready,
    channel,
    ingest: (input) => ingestBatch([input])[0] as IngestResult,
    ingestBatch,
    receive,
    sync,
    actions,
    onAction: (listener_) => outbox.subscribe(listener_),
    turn,
    finishedTurn,
    spaceSettings,
    budgetMode: () => sharedBudget?.mode(),
    configureSpace: (space, settings) => changeSettings(space, { settings }),
    resetSpace: (space) => changeSettings(space, { reset: true }),
    health: () =>
      clusterHealth({
        pool,
        instanceId,
        owns: () => leases.owned(),
        budget: () => options.budgetMode?.() ?? sharedBudget?.mode() ?? 'local',
      }),
    stop() {
      stopped ??= (async () => {
        await ready.catch(() => undefined);
        stopping = true;
        clearTimeout(pollTimer);
        // Every space handed over (flushing its live turns while still the owner), then the leases released.
        await leases.stop();
        await listener?.close();
        await sharedBudget?.stop();
        actor.stop();
        return { flushed: true };
      })();
      return stopped;
    },
  };
}
