/**
 * Issue 23 item 5: one budget for the app, shared across processes.
 *
 * Each process keeps its budget actor (machines/budget.machine.ts: fair
 * shares, channel spacing, the line, the terminal reserve) as it is. What the
 * actor lets out then passes this gate (`admit`), which takes the write's
 * tokens from the app-wide buckets (src/budget/shared-bucket.ts) held in a
 * shared store (Redis: src/cluster/redis-budget.ts): a progress frame waits
 * there while another process's frames have used the tokens above the
 * reserve; a terminal frame takes its token at once (into debt if it must)
 * and goes when the debt is repaid. So the sum of all processes keeps the
 * platform's app-wide limits, and answers keep their reserve.
 *
 * Each process says it is alive in the store (a heartbeat every
 * `heartbeatMs`); the store counts the processes seen within three beats.
 * When the store is out of reach, the process falls back to its share of
 * every limit (limit ÷ the live processes it last counted), says so
 * (`mode()` is `local-fallback`, one log line on each change) and goes on
 * delivering; once the store answers again the budget is shared again.
 */
import type { Clock } from '../clock.js';
import type { BudgetConfig, WriteKind } from './config.js';
import {
  type ChannelLimit,
  SHARED_CHANNEL_LIMITS,
  type SharedBucketSpec,
  type SharedBucketState,
  type SharedTakeClass,
  type SharedTakeResult,
  sharedBucketsFor,
  shareOf,
  takeShared,
} from './shared-bucket.js';

export type SharedBudgetMode = 'shared' | 'local-fallback';

/** The shared store of the buckets (Redis); every call rejects when it is out of reach. */
export interface SharedBudgetStore {
  /** Connects (or fails); called once by `start`. */
  connect(): Promise<void>;
  /** One atomic take from every bucket; `now` is the time to judge at (absent: the store's own clock). */
  take(
    specs: readonly SharedBucketSpec[],
    n: number,
    cls: SharedTakeClass,
    now?: number,
  ): Promise<SharedTakeResult>;
  /** Marks `instanceId` alive now and answers how many instances were seen within `ttlMs`. */
  heartbeat(instanceId: string, ttlMs: number, now?: number): Promise<number>;
  /** Called when the store's connection is lost or back (so the mode changes without waiting for a call). */
  onConnection?(listener: (up: boolean, reason?: string) => void): void;
  close(): Promise<void>;
}

export interface SharedBudgetLogger {
  warn(message: string, fields?: Record<string, unknown>): void;
}

export interface SharedBudgetOptions {
  store: SharedBudgetStore;
  instanceId: string;
  /** The runtime's clock: waits run on it, and the heartbeat timer. */
  clock: Pick<Clock, 'now' | 'setTimeout' | 'clearTimeout'>;
  /**
   * The time the shared buckets are judged at: absent, the store's own clock
   * (Redis `TIME`, one clock for every process); tests give their simulated clock.
   */
  storeNow?: () => number;
  logger: SharedBudgetLogger;
  /** How often this process says it is alive. Default 2000 ms; an instance unseen for 3 beats no longer counts. */
  heartbeatMs?: number;
  /** The per-channel app-wide limits by platform (default SHARED_CHANNEL_LIMITS). */
  channelLimits?: Readonly<Record<string, ChannelLimit>>;
}

/** A write the local budget has let out, as the gate sees it. */
export interface SharedAsk {
  config: BudgetConfig;
  /** The write's rate channel; absent (an advisory write): only the app's bucket. */
  channel?: string | undefined;
  write?: WriteKind | undefined;
  cls: SharedTakeClass;
}

/** What the budget actor consults: lets a write out (`go(true)`) once the shared budget has its token; an advisory one may be refused (`go(false)`). */
export interface BudgetGate {
  admit(ask: SharedAsk, go: (granted: boolean) => void): void;
}

const DEFAULT_HEARTBEAT_MS = 2000;

export class SharedBudget implements BudgetGate {
  private readonly store: SharedBudgetStore;
  private readonly clock: SharedBudgetOptions['clock'];
  private readonly logger: SharedBudgetLogger;
  private readonly heartbeatMs: number;
  private readonly channelLimits: Readonly<Record<string, ChannelLimit>>;
  private readonly storeNow: (() => number) | undefined;
  readonly instanceId: string;
  /** null until the store first answered or failed (counts as the fallback). */
  private current: SharedBudgetMode | null = null;
  /** Live processes last counted while the store answered (this one included). */
  private live = 1;
  private readonly local = new Map<string, SharedBucketState>();
  private beat: unknown;
  private stopped = false;
  /** Takes sent to the store and not yet answered. */
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(opts: SharedBudgetOptions) {
    this.store = opts.store;
    this.clock = opts.clock;
    this.logger = opts.logger;
    this.instanceId = opts.instanceId;
    this.heartbeatMs = opts.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
    this.channelLimits = opts.channelLimits ?? SHARED_CHANNEL_LIMITS;
    this.storeNow = opts.storeNow;
    opts.store.onConnection?.((up, reason) => {
      if (this.stopped) return;
      // Back: shared once a heartbeat has gone through (the count is fresh). Lost: fall back now.
      if (up) void this.heartbeat();
      else this.fallBack(reason ?? 'connection lost');
    });
  }

  /** Whether the budget is shared now, or each process keeps its share (`/healthz` `cluster.budget`). */
  mode(): SharedBudgetMode {
    return this.current ?? 'local-fallback';
  }

  /** The live processes last counted (the divisor of the fallback share). */
  liveProcesses(): number {
    return this.live;
  }

  private starting: Promise<void> | undefined;

  /**
   * Connects and says this process is alive; never throws (out of reach: the
   * fallback, until it answers). Idempotent: runtimes given the same budget
   * share one start.
   */
  start(): Promise<void> {
    this.starting ??= this.connectAndBeat();
    return this.starting;
  }

  private async connectAndBeat(): Promise<void> {
    try {
      await this.store.connect();
    } catch (error) {
      this.fallBack(messageOf(error));
    }
    await this.heartbeat();
    this.scheduleBeat();
  }

  /** Says this process is alive and counts the live ones; moves to shared when the store answers. */
  async heartbeat(): Promise<void> {
    try {
      const ttlMs = this.heartbeatMs * 3;
      this.live = Math.max(1, await this.store.heartbeat(this.instanceId, ttlMs, this.storeNow?.()));
      this.setShared();
    } catch (error) {
      this.fallBack(messageOf(error));
    }
  }

  /** Takes the tokens of one write: from the shared buckets, or this process's share of them while the store is out of reach. */
  async take(specs: readonly SharedBucketSpec[], n: number, cls: SharedTakeClass): Promise<SharedTakeResult> {
    if (specs.length === 0) return { granted: true, waitMs: 0 };
    if (this.current === 'shared') {
      const taking = this.store.take(specs, n, cls, this.storeNow?.());
      this.inFlight.add(taking);
      try {
        return await taking;
      } catch (error) {
        this.fallBack(messageOf(error));
      } finally {
        this.inFlight.delete(taking);
      }
    }
    const now = this.clock.now();
    const shares = specs.map((spec) => shareOf(spec, this.live));
    // A bucket first used in the fallback starts at the share's reserve: answers go at once, progress waits for the refill.
    for (const share of shares) {
      if (!this.local.has(share.key)) this.local.set(share.key, { level: share.reserve, at: now });
    }
    return takeShared(this.local, shares, n, cls, now);
  }

  admit(ask: SharedAsk, go: (granted: boolean) => void): void {
    const specs = sharedBucketsFor(ask.config, ask.channel, ask.write, this.channelLimits);
    if (specs.length === 0) {
      go(true);
      return;
    }
    const attempt = (): void => {
      if (this.stopped) {
        go(true);
        return;
      }
      this.take(specs, 1, ask.cls).then(
        ({ granted, waitMs }) => {
          if (granted && waitMs > 0) this.after(waitMs, () => go(true));
          else if (granted) go(true);
          // Advisory: skipped. Progress and queued: ask again once the tokens are there.
          else if (ask.cls === 'advisory') go(false);
          else this.after(Math.max(1, waitMs), attempt);
        },
        // take() never rejects (it falls back); should it, the write still goes: never stop answers.
        () => go(true),
      );
    };
    attempt();
  }

  /** Resolves once no take sent to the store is waiting for its answer (tests step a simulated clock after it). */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.beat !== undefined) this.clock.clearTimeout(this.beat);
    await this.store.close().catch(() => undefined);
  }

  private after(ms: number, fn: () => void): void {
    this.clock.setTimeout(fn, ms);
  }

  private scheduleBeat(): void {
    if (this.stopped) return;
    this.beat = this.clock.setTimeout(() => {
      void this.heartbeat().finally(() => this.scheduleBeat());
    }, this.heartbeatMs);
    (this.beat as { unref?: () => void } | undefined)?.unref?.();
  }

  private setShared(): void {
    if (this.current === 'shared') return;
    this.current = 'shared';
    this.logger.warn(`budget: shared with the other processes again (${this.live} live)`, {
      budget: 'shared',
      liveProcesses: this.live,
    });
  }

  private fallBack(reason: string): void {
    if (this.current === 'local-fallback') return;
    this.current = 'local-fallback';
    this.local.clear();
    this.logger.warn(
      `budget: the shared budget is out of reach (${reason}); keeping 1/${this.live} of each limit until it is back`,
      { budget: 'local-fallback', liveProcesses: this.live, reason },
    );
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
