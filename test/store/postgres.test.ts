/**
 * Issue 23.1: what the Postgres store adds over the contract (run in
 * postgres.contract.test.ts): versioned migrations (schema_migrations, run
 * once even when processes open together, a newer schema refused, a failed
 * one rolled back), several processes on one database (first claim wins, the
 * outbox's cursors unique and in commit order, data seen across stores),
 * writes kept in call order without awaiting, and clear errors that never
 * show the password. On a real Postgres (test/cluster/servers.ts).
 */
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Action } from '../../src/actions/types.js';
import {
  migratePostgres,
  POSTGRES_MIGRATIONS,
  type PostgresMigration,
  postgresSchemaVersion,
} from '../../src/store/postgres/migrations.js';
import { openPostgresPool } from '../../src/store/postgres/pool.js';
import {
  createPostgresStore,
  openPostgresStore,
  type PostgresStore,
} from '../../src/store/postgres/store.js';
import { type RunningPostgres, startPostgres } from '../cluster/servers.js';
import { describeCardRegistryContract, policyCard } from './card-registry.contract.js';
import { message } from './outbox.contract.js';

let server: RunningPostgres;
beforeAll(async () => {
  server = await startPostgres();
});
afterAll(() => server?.stop());

let schemas = 0;
const nextSchema = () => `pgstore_${++schemas}`;
const opened: { close(): unknown }[] = [];
afterEach(async () => {
  for (const handle of opened.splice(0).reverse()) await handle.close();
});
const store = (schema: string, extra: Partial<Parameters<typeof createPostgresStore>[0]> = {}) => {
  const s = createPostgresStore({ url: server.url, schema, poolMax: 4, ...extra });
  opened.push(s);
  return s;
};
const pool = (schema: string) => {
  const p = openPostgresPool(server.url, { schema, max: 2 });
  opened.push({ close: () => p.end() });
  return p;
};

describeCardRegistryContract('postgres', (limits) => store(nextSchema(), { limits }));

describe('postgres store migrations', () => {
  it('a new schema gets every migration, recorded in schema_migrations; opening again runs none', async () => {
    const schema = nextSchema();
    const first = store(schema);
    await first.ready;
    const p = pool(schema);
    const latest = POSTGRES_MIGRATIONS.at(-1)?.version;
    expect(await postgresSchemaVersion(p, schema)).toBe(latest);
    const { rows } = await p.query('SELECT version, description FROM schema_migrations ORDER BY version');
    expect(rows.map((r) => r.version)).toEqual(POSTGRES_MIGRATIONS.map((m) => m.version));
    expect(await migratePostgres(p, schema, 'test')).toEqual({ from: latest, to: latest });
  });

  it('several processes opening a new schema together migrate it once', async () => {
    const schema = nextSchema();
    const stores = [store(schema), store(schema), store(schema), store(schema)];
    await Promise.all(stores.map((s) => s.ready));
    const ids = await Promise.all(stores.map((s) => s.actionsStoreId()));
    expect(new Set(ids).size).toBe(1);
    const { rows } = await pool(schema).query('SELECT count(*)::int AS n FROM schema_migrations');
    expect(rows[0].n).toBe(POSTGRES_MIGRATIONS.length);
  });

  it('refuses a schema written by a newer turnlog, naming both versions', async () => {
    const schema = nextSchema();
    await store(schema).ready;
    const p = pool(schema);
    await p.query("INSERT INTO schema_migrations (version, description) VALUES (99, 'from the future')");
    await expect(openPostgresStore({ url: server.url, schema })).rejects.toThrow(
      /schema "pgstore_\d+" is at version 99, newer than version \d+ that this turnlog knows/,
    );
  });

  it('a failing migration leaves the schema at the version it had, and names the migration', async () => {
    const schema = nextSchema();
    const p = pool(schema);
    const notes: PostgresMigration = { version: 1, description: 'notes', sql: 'CREATE TABLE notes (id int)' };
    const broken: PostgresMigration = {
      version: 2,
      description: 'broken',
      sql: 'CREATE TABLE notes (id int)',
    };
    await migratePostgres(p, schema, 'label', [notes]);
    await expect(migratePostgres(p, schema, 'label', [notes, broken])).rejects.toThrow(
      /migration 2 \(broken\) failed, schema "pgstore_\d+" stays at version 1/,
    );
    expect(await postgresSchemaVersion(p, schema)).toBe(1);
  });
});

describe('postgres store: several processes on one database', () => {
  it('what one store writes another reads: live turns, run record, summaries', async () => {
    const schema = nextSchema();
    const a = store(schema);
    const b = store(schema);
    a.saveTurn({ turnId: 'T1', space: 'slack:C1', snapshot: { value: 'x' }, updatedAt: 1 });
    a.appendEvent({ type: 'turn_started', space: 'slack:C1', turnId: 'T1', seq: 1, at: 1 } as never);
    await a.flush();
    expect((await b.liveTurns()).map((t) => t.turnId)).toEqual(['T1']);
    expect((await b.events('T1')).map((e) => e.seq)).toEqual([1]);
  });

  it('the first claim of a card wins across stores claiming at once', async () => {
    const schema = nextSchema();
    const stores = [store(schema), store(schema), store(schema)];
    await stores[0]!.registerCard(policyCard('m1'));
    const results = await Promise.all(
      stores.flatMap((s, i) =>
        [0, 1, 2].map((j) =>
          s.claimCard('gchat:spaces/AAAA', 'm1', {
            user: { id: `u${i}${j}` },
            action: 'approve',
            at: i * 10 + j,
          }),
        ),
      ),
    );
    const winners = results.filter((r) => r?.first);
    expect(winners).toHaveLength(1);
    for (const r of results) expect(r?.claim).toEqual(winners[0]?.claim);
  });

  it('actions appended by several stores at once get unique cursors, each id once, read back in order', async () => {
    const schema = nextSchema();
    const stores = [store(schema), store(schema), store(schema), store(schema), store(schema)];
    await Promise.all(stores.map((s) => s.ready));
    // Every store appends the same 30 ids in the same order: each id is tried by five stores at once.
    const appended = await Promise.all(
      stores.flatMap((s) => Array.from({ length: 30 }, (_, i) => s.appendAction(message(`a${i}`), i))),
    );
    const fresh = appended.filter((r) => !r.duplicate).map((r) => r.action);
    expect(fresh).toHaveLength(30);
    expect(new Set(fresh.map((a) => a.cursor)).size).toBe(30);
    for (const r of appended) expect(r.action.cursor).toBe(fresh.find((a) => a.id === r.action.id)?.cursor);
    const read: Action[] = await stores[1]!.actionsAfter(0, 100);
    expect(read.map((a) => a.id).sort()).toEqual(fresh.map((a) => a.id).sort());
    const cursors = read.map((a) => Number(a.cursor));
    expect(cursors).toEqual([...cursors].sort((x, y) => x - y));
    expect(await stores[2]!.lastActionSeq()).toBe(Math.max(...cursors));
  });
});

describe('postgres store: order and errors', () => {
  it('writes fired without awaiting commit in call order: the last snapshot and every event win', async () => {
    const s = store(nextSchema());
    for (let i = 1; i <= 200; i++) {
      s.saveTurn({ turnId: 'T1', space: 'slack:C1', snapshot: { n: i }, updatedAt: i });
      s.appendEvent({
        type: 'tool_call',
        space: 'slack:C1',
        turnId: 'T1',
        callId: `c${i}`,
        tool: 'Read',
        seq: i,
      } as never);
      if (i % 50 === 0) void s.deadLetter({ at: i, source: 'test', reason: `r${i}`, payload: '' });
      if (i % 7 === 0) await Promise.resolve(); // some writes land in later ticks
    }
    expect((await s.loadTurn('T1'))?.snapshot).toEqual({ n: 200 });
    expect((await s.events('T1')).map((e) => e.seq)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    expect((await s.deadLetters()).map((d) => d.reason)).toEqual(['r50', 'r100', 'r150', 'r200']);
  });

  it('an unreachable server fails with the store named and the password left out', async () => {
    const url = `postgres://turnlog:s3cret-pw@127.0.0.1:${server.port + 1}/turnlog`;
    const failed = openPostgresStore({ url, schema: nextSchema() }).then(
      () => undefined,
      (error: Error) => error,
    );
    const error = await failed;
    expect(error?.message).toMatch(
      /^postgres store "postgres:\/\/turnlog@127\.0\.0\.1:\d+\/turnlog": opening the database failed/,
    );
    expect(error?.message).not.toContain('s3cret-pw');
  });

  it('refuses a schema name that is not a plain identifier, and a call after close()', async () => {
    expect(() => createPostgresStore({ url: server.url, schema: 'x; DROP TABLE y' })).toThrow(
      /postgres schema must be a lower-case identifier/,
    );
    const s: PostgresStore = createPostgresStore({ url: server.url, schema: nextSchema() });
    await s.close();
    expect(() => s.saveTurn({ turnId: 'T', space: 's', snapshot: {}, updatedAt: 0 })).toThrow(
      /after close\(\)/,
    );
  });

  it('uses its own schema: a table of the same name in public is left alone', async () => {
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    await client.query('CREATE TABLE IF NOT EXISTS public.events (mine text)');
    const s = store(nextSchema());
    s.appendEvent({ type: 'turn_started', space: 'slack:C1', turnId: 'T1', seq: 1 } as never);
    await s.flush();
    const { rows } = await client.query('SELECT count(*)::int AS n FROM public.events');
    await client.end();
    expect(rows[0].n).toBe(0);
  });
});
