/**
 * The public types of `createRuntime` (docs/library.md): its options, the
 * `Runtime` it returns, and what its methods give back.
 */

import type { AnyActorRef, InspectionEvent } from 'xstate';
import type { ActionPage, ActionsPollOptions } from '../actions/outbox.js';
import type { Action, ClickResolver, IntakeEvent, IntakeResult } from '../actions/types.js';
import type { ChannelBackend } from '../adapter/channel-adapter.js';
import type { SharedBudget } from '../budget/shared-budget.js';
import type { Clock } from '../clock.js';
import type { TurnlogConfigInput } from '../config.js';
import type { RunEvent } from '../events/schema.js';
import type { PlatformDescriptor } from '../registry/descriptor.js';
import type { PlatformRegistry } from '../registry/registry.js';
import type { TurnlogStore } from '../store/store.js';
import type { ChatSurface } from '../surfaces/surface.js';

export interface RuntimeLogger {
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

export interface RuntimeOptions {
  config?: TurnlogConfigInput;
  /** One surface per platform the runtime serves (`gchat`, `slack`, `discord`, or one of `platforms`). */
  surfaces: Partial<Record<string, ChatSurface>>;
  /**
   * The platforms the runtime serves (the core knows none by name): a
   * registry or its descriptors, e.g. `gchatPlatform` from `turnlog/gchat`.
   * Their spaces are accepted; budgets, rate channels and mentions come from
   * their descriptors.
   */
  platforms: PlatformRegistry | readonly PlatformDescriptor[];
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
  /** Issue 25 (run page): the turn's run page URL, carried as "Full log" on every frame of its log. */
  runLink?: (turnId: string) => string | undefined;
  /**
   * Issue 23 item 5: the app's budget shared with its other processes.
   * Default: on Redis when `cluster.redisUrl` is set, else none. The runtime
   * starts it with `ready` (`start()` is idempotent: one budget may serve
   * several runtimes); it stops at `stop()` only the one it made, a given one
   * is its giver's to stop.
   */
  sharedBudget?: SharedBudget;
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
  /**
   * Issue 23 item 5: with `cluster.redisUrl`, whether the app's budget is
   * shared with the other processes now (`shared`) or this process keeps its
   * share of each limit because Redis is out of reach (`local-fallback`);
   * undefined without `cluster.redisUrl` (`/healthz` `cluster.budget`).
   */
  budgetMode(): 'shared' | 'local-fallback' | undefined;
  /** The root actor (for inspection and tests). */
  readonly actor: AnyActorRef;
  /**
   * What the channel adapter (src/adapter/) writes and reads through: posts,
   * edits and cards as deliveries of their space (budgeted, redacted), the
   * outbox as a stream of actions.
   */
  readonly channel: ChannelBackend;
}
