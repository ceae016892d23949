/**
 * One owner per space, fenced (issue 23.2). A process owns a space through a
 * row of the leases table: owner, term, expiry. Acquiring a free (expired or
 * released) lease bumps its term, the fencing token: every write a process
 * makes for the space names the term it holds, and a successor's term is
 * higher. Leases are renewed every `leaseMs / 4`; a renewal the database does
 * not confirm (another owner, or expired) means the lease is lost, and so
 * does a local deadline that passed (the process was paused past it): the
 * process stands down for that space without writing.
 *
 * Spaces spread over the live instances (heartbeats in the instances table):
 * each aims at ceil(spaces / instances); a free lease is taken by whoever sees
 * it first (at least one per tick, so a dead owner's spaces never stay
 * orphaned), and a process over its share releases one space per tick at most,
 * at random ticks, so a process that joins takes its share over time without
 * a thundering herd.
 */
import { performance } from 'node:perf_hooks';
import type { Pool } from 'pg';
import { TABLES } from './schema.js';

export interface LeaseLogger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
}

export interface LeaseManagerOptions {
  pool: Pool;
  instanceId: string;
  leaseMs: number;
  /** A space's lease was taken: start its actors (restore from the store) before resolving. */
  onAcquired(space: string, term: number): Promise<void>;
  /** The lease is gone (taken over or expired): stop the space's actors, writing nothing. */
  onLost(space: string, term: number): Promise<void>;
  /** The lease is about to be released (rebalance, shutdown): stop the space's actors while still owner. */
  onReleasing(space: string, term: number): Promise<void>;
  logger: LeaseLogger;
  /** Default Math.random (tests pin it). */
  random?: () => number;
}

interface Held {
  term: number;
  /** performance.now() after which the lease is not trusted any more. */
  deadline: number;
}

/** What fenced writes read: the term held for a space, while it is locally valid. */
export interface LeaseView {
  /** The term held for `space` while its local deadline is ahead; undefined otherwise. */
  validTerm(space: string): number | undefined;
  /** Every space held now. */
  owned(): string[];
}

export interface LeaseManager extends LeaseView {
  start(): Promise<void>;
  /** Ask for a tick soon (a new space, or pending events for a space nobody seems to own). */
  kick(): void;
  /** Whether a valid lease of another instance is known for the space (from the last tick). */
  ownedElsewhere(space: string): boolean;
  /** Releases every lease (after onReleasing) and leaves the instances table. */
  stop(): Promise<void>;
}

const ms = (value: number) => `${Math.round(value)} milliseconds`;

export function createLeaseManager(options: LeaseManagerOptions): LeaseManager {
  const { pool, instanceId: me, leaseMs, logger } = options;
  const random = options.random ?? Math.random;
  const tickMs = Math.max(50, Math.floor(leaseMs / 4));
  /** A lease is trusted until `leaseMs - margin` after the request that took or renewed it was sent. */
  const marginMs = Math.max(50, Math.floor(leaseMs / 5));
  const lease = ms(leaseMs);
  const held = new Map<string, Held>();
  /** Spaces this process released lately, not taken back for a few ticks. */
  const cooldown = new Map<string, number>();
  /** Spaces with a valid lease of another instance at the last tick. */
  let foreign = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;
  let tickNo = 0;

  const deadlineFrom = (sentAt: number) => sentAt + leaseMs - marginMs;

  async function lose(space: string, held_: Held, why: string): Promise<void> {
    if (held.get(space) !== held_) return;
    held.delete(space);
    logger.warn('cluster: lost the lease of a space; standing down', { space, term: held_.term, why });
    await options
      .onLost(space, held_.term)
      .catch((error: unknown) =>
        logger.warn('cluster: standing down failed', { space, error: String(error) }),
      );
  }

  async function renew(): Promise<void> {
    if (held.size === 0) return;
    const now = performance.now();
    for (const [space, h] of [...held]) if (h.deadline <= now) await lose(space, h, 'local deadline passed');
    const entries = [...held];
    if (entries.length === 0) return;
    const sentAt = performance.now();
    const { rows } = await pool.query<{ space: string }>(
      `UPDATE ${TABLES.leases} l SET expires_at = now() + $2::interval
         FROM unnest($3::text[], $4::bigint[]) AS o(space, term)
        WHERE l.space = o.space AND l.owner = $1 AND l.term = o.term AND l.expires_at > now()
        RETURNING l.space`,
      [me, lease, entries.map(([space]) => space), entries.map(([, h]) => h.term)],
    );
    const renewed = new Set(rows.map((row) => row.space));
    for (const [space, h] of entries) {
      if (renewed.has(space)) {
        if (held.get(space) === h) h.deadline = deadlineFrom(sentAt);
      } else await lose(space, h, 'the database did not renew it (expired or taken over)');
    }
  }

  async function acquire(space: string): Promise<boolean> {
    const sentAt = performance.now();
    const { rows } = await pool.query<{ term: string }>(
      `INSERT INTO ${TABLES.leases} AS l (space, owner, term, expires_at) VALUES ($1, $2, 1, now() + $3::interval)
       ON CONFLICT (space) DO UPDATE SET owner = EXCLUDED.owner, term = l.term + 1, expires_at = EXCLUDED.expires_at
        WHERE l.expires_at <= now()
       RETURNING term`,
      [space, me, lease],
    );
    const row = rows[0];
    if (row === undefined) return false;
    const h: Held = { term: Number(row.term), deadline: deadlineFrom(sentAt) };
    held.set(space, h);
    logger.info('cluster: took the lease of a space', { space, term: h.term });
    try {
      await options.onAcquired(space, h.term);
    } catch (error) {
      logger.warn('cluster: starting a space failed; releasing it', { space, error: String(error) });
      await release(space);
    }
    return true;
  }

  async function release(space: string): Promise<void> {
    const h = held.get(space);
    if (h === undefined) return;
    await options
      .onReleasing(space, h.term)
      .catch((error: unknown) =>
        logger.warn('cluster: handing a space over failed', { space, error: String(error) }),
      );
    held.delete(space);
    cooldown.set(space, tickNo + 4);
    await pool.query(
      `UPDATE ${TABLES.leases} SET owner = NULL, expires_at = now() WHERE space = $1 AND owner = $2 AND term = $3`,
      [space, me, h.term],
    );
    logger.info('cluster: released the lease of a space', { space, term: h.term });
  }

  async function balance(): Promise<void> {
    const { rows: live } = await pool.query<{ n: string }>(
      `SELECT count(*) AS n FROM ${TABLES.instances} WHERE seen_at > now() - $1::interval`,
      [ms(leaseMs * 2)],
    );
    const instances = Math.max(1, Number(live[0]?.n ?? 1));
    const { rows } = await pool.query<{
      space: string;
      owner: string | null;
      free: boolean;
      pending: boolean;
    }>(
      `SELECT s.space, l.owner, (l.space IS NULL OR l.expires_at <= now()) AS free,
              EXISTS (SELECT 1 FROM ${TABLES.inbox} i WHERE i.space = s.space AND i.applied_at IS NULL) AS pending
         FROM ${TABLES.spaces} s LEFT JOIN ${TABLES.leases} l ON l.space = s.space`,
    );
    foreign = new Set(rows.filter((r) => !r.free && r.owner !== me).map((r) => r.space));
    const target = Math.ceil(rows.length / instances);
    const free = rows
      .filter((r) => r.free && !held.has(r.space) && (cooldown.get(r.space) ?? 0) < tickNo)
      .map((r) => ({ ...r, order: (r.pending ? 0 : 1) + random() / 2 }))
      .sort((a, b) => a.order - b.order);
    // A free space with events waiting is taken even over the share: nobody else may be there to.
    const want = Math.max(target - held.size, free.length > 0 ? 1 : 0);
    for (const candidate of free.slice(0, want)) {
      if (stopped) return;
      await acquire(candidate.space);
    }
    // Over the share: hand one space over now and then (at random ticks: no herd).
    if (held.size > target && random() < 0.5) {
      const spaces = [...held.keys()];
      const space = spaces[Math.floor(random() * spaces.length)];
      if (space !== undefined) await release(space);
    }
  }

  async function tick(): Promise<void> {
    tickNo++;
    await pool.query(
      `INSERT INTO ${TABLES.instances} (id, seen_at) VALUES ($1, now())
       ON CONFLICT (id) DO UPDATE SET seen_at = now()`,
      [me],
    );
    await renew();
    if (!stopped) await balance();
    if (tickNo % 20 === 0) {
      await pool.query(`DELETE FROM ${TABLES.instances} WHERE seen_at < now() - $1::interval`, [
        ms(leaseMs * 10),
      ]);
    }
  }

  function runTick(): Promise<void> {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        try {
          await tick();
        } catch (error) {
          logger.warn('cluster: lease tick failed', { error: String(error) });
        }
      } while (again && !stopped);
    })().finally(() => {
      running = undefined;
    });
    return running;
  }

  function schedule(delay: number): void {
    if (stopped) return;
    clearTimeout(timer);
    timer = setTimeout(() => {
      void runTick().then(() => schedule(tickMs));
    }, delay);
  }

  return {
    async start() {
      await runTick();
      schedule(tickMs);
    },
    kick() {
      if (stopped) return;
      // The less a process holds, the sooner it looks: the least loaded takes a new space first.
      const delay = held.size * 15 + random() * 30;
      setTimeout(() => void runTick(), delay).unref?.();
    },
    ownedElsewhere: (space) => foreign.has(space),
    validTerm(space) {
      const h = held.get(space);
      return h !== undefined && h.deadline > performance.now() ? h.term : undefined;
    },
    owned: () => [...held.keys()],
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
      for (const space of [...held.keys()]) await release(space).catch(() => undefined);
      await pool.query(`DELETE FROM ${TABLES.instances} WHERE id = $1`, [me]).catch(() => undefined);
    },
  };
}
