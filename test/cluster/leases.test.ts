/**
 * Issue 23 item 2: leases and fencing, in process, on a real Postgres
 * (test/cluster/servers.ts).
 *
 * - A write of a stale term is refused by the store's transaction itself (the
 *   fence check run first in it), even when the old owner still believes it
 *   holds the lease; the successor's term is higher and its write lands.
 * - Spaces spread over the live instances: a second instance that joins takes
 *   its share (3 of 6) over time, no space ever has two holders, and when it
 *   leaves, the first takes them all back.
 */
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { FencedError, fenceCheck } from '../../src/cluster/fenced.js';
import { createLeaseManager, type LeaseManager, type LeaseView } from '../../src/cluster/leases.js';
import { ensureClusterSchema, TABLES } from '../../src/cluster/schema.js';
import {
  createPostgresStore,
  openPostgresStore,
  type PostgresStore,
} from '../../src/store/postgres/index.js';
import { type RunningPostgres, startPostgres } from './servers.js';

let server: RunningPostgres;
let store: PostgresStore;
const cleanups: (() => Promise<void> | void)[] = [];

beforeAll(async () => {
  server = await startPostgres();
  const admin = new pg.Client({ connectionString: server.url });
  await admin.connect();
  await admin.query('CREATE DATABASE leases_test');
  await admin.end();
  store = await openPostgresStore({ url: server.urlFor('leases_test') });
  await ensureClusterSchema(store.pool);
}, 120_000);
afterAll(async () => {
  await store?.close();
  await server?.stop();
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await store.pool.query(
    `DELETE FROM ${TABLES.leases}; DELETE FROM ${TABLES.spaces}; DELETE FROM ${TABLES.instances}`,
  );
});

const quiet = { info: () => {}, warn: () => {} };

function manager(id: string, log: string[] = []): LeaseManager {
  const leases = createLeaseManager({
    pool: store.pool,
    instanceId: id,
    leaseMs: 600,
    logger: quiet,
    onAcquired: async (space, term) => void log.push(`${id} took ${space} #${term}`),
    onLost: async (space, term) => void log.push(`${id} lost ${space} #${term}`),
    onReleasing: async (space, term) => void log.push(`${id} released ${space} #${term}`),
  });
  cleanups.push(() => leases.stop());
  return leases;
}

const turn = (space: string, note: string) => ({
  turnId: 'T1',
  space,
  snapshot: { status: 'active', value: 'x', context: { note } },
  updatedAt: Date.now(),
});

describe('leases (23.2)', () => {
  it("refuses a stale term's write in the store's own transaction; the successor's lands", async () => {
    const space = 'slack:C0FENCE01';
    await store.pool.query(`INSERT INTO ${TABLES.spaces} (space) VALUES ($1)`, [space]);
    const a = manager('A');
    await a.start();
    expect(a.owned()).toEqual([space]);
    const termA = a.validTerm(space) as number;
    // A believes its lease holds (paused, partitioned): only the database can tell.
    const believes: LeaseView = { validTerm: () => termA, owned: () => [space] };
    const storeA = createPostgresStore({
      url: server.urlFor('leases_test'),
      pool: store.pool,
      beforeWrite: fenceCheck({ space, term: termA, instanceId: 'A', leases: believes, pool: store.pool }),
      onWriteError: () => {},
    });
    cleanups.push(() => storeA.close().catch(() => {}));
    await storeA.saveTurn(turn(space, 'by A'));
    await storeA.flush();
    expect((await store.loadTurn('T1'))?.snapshot).toMatchObject({ context: { note: 'by A' } });

    // A stops renewing (it is gone); its lease expires, B takes it with a higher term.
    await a.stop();
    await store.pool.query(`UPDATE ${TABLES.leases} SET owner = 'A', expires_at = now() WHERE space = $1`, [
      space,
    ]);
    const b = manager('B');
    await b.start();
    await vi.waitFor(() => expect(b.owned()).toEqual([space]), { timeout: 10_000 });
    const termB = b.validTerm(space) as number;
    expect(termB).toBeGreaterThan(termA);

    await storeA.saveTurn(turn(space, 'stale, by A'));
    await expect(storeA.flush()).rejects.toThrow(/another owner now/);
    const storeB = createPostgresStore({
      url: server.urlFor('leases_test'),
      pool: store.pool,
      beforeWrite: fenceCheck({ space, term: termB, instanceId: 'B', leases: b, pool: store.pool }),
    });
    cleanups.push(() => storeB.close());
    await storeB.saveTurn(turn(space, 'by B'));
    await storeB.flush();
    expect((await store.loadTurn('T1'))?.snapshot).toMatchObject({ context: { note: 'by B' } });
    expect(FencedError.name).toBe('FencedError');
  }, 60_000);

  it('spreads spaces over the live instances: a joiner takes its share, a leaver gives it back', async () => {
    const spaces = Array.from({ length: 6 }, (_, i) => `slack:C0SPREAD${i}`);
    await store.pool.query(`INSERT INTO ${TABLES.spaces} (space) SELECT unnest($1::text[])`, [spaces]);
    const log: string[] = [];
    const a = manager('A', log);
    await a.start();
    await vi.waitFor(() => expect(a.owned()).toHaveLength(6), { timeout: 10_000 });
    const b = manager('B', log);
    await b.start();
    await vi.waitFor(
      () => {
        const [ownedA, ownedB] = [a.owned(), b.owned()];
        // Never two holders of one space.
        expect(ownedA.filter((s) => ownedB.includes(s))).toEqual([]);
        expect(ownedA).toHaveLength(3);
        expect(ownedB).toHaveLength(3);
      },
      { timeout: 20_000, interval: 20 },
    );
    // Handed over, not lost: A released what B took.
    expect(log.filter((l) => l.startsWith('A released'))).toHaveLength(3);
    expect(log.filter((l) => l.includes('lost'))).toEqual([]);
    await b.stop();
    await vi.waitFor(() => expect(a.owned()).toHaveLength(6), { timeout: 20_000 });
  }, 60_000);
});
