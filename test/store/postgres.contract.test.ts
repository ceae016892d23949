/**
 * Issue 23.1: the Postgres store against the TurnlogStore contract (with its
 * outbox part), on a real Postgres started for this file (test/cluster/servers.ts);
 * each store gets a schema of its own, so every test starts empty.
 */
import { afterAll, beforeAll } from 'vitest';
import { createPostgresStore } from '../../src/store/postgres/store.js';
import { type RunningPostgres, startPostgres } from '../cluster/servers.js';
import { describeStoreContract } from './store.contract.js';

let server: RunningPostgres;
beforeAll(async () => {
  server = await startPostgres();
});
afterAll(() => server?.stop());

let schemas = 0;
describeStoreContract('postgres', (limits) =>
  createPostgresStore({ url: server.url, schema: `contract_${++schemas}`, limits, poolMax: 4 }),
);
