/**
 * Issue 23.1 (store.url) through `turnlog serve`: the kill -9 restart
 * scenario (crash-restart.scenario.ts) with the store on a real Postgres
 * (test/cluster/servers.ts). A serve killed mid-turn and started again on
 * the same store.url restores the live turn from Postgres and keeps editing
 * the same log message: no second log post, no lost line, the answer once.
 */
import { afterAll, afterEach, beforeAll, describe, it } from 'vitest';
import { type RunningPostgres, startPostgres } from '../../cluster/servers.js';
import { killNineAndRestart } from './crash-restart.scenario.js';

let server: RunningPostgres;
beforeAll(async () => {
  server = await startPostgres();
});
afterAll(() => server?.stop());

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('serve on store.url: kill -9 mid-turn and restart on the same Postgres', () => {
  it('restores the live turn and keeps editing the same log message, with no duplicate and no lost entry', async () => {
    await killNineAndRestart(cleanups, { url: server.url });
  }, 90_000);
});
