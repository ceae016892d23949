/** The SQLite store against the TurnlogStore contract: on a file, in `:memory:`, and writing snapshots through. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { createSqliteStore } from '../../src/store/sqlite.js';
import { describeStoreContract } from './store.contract.js';

const dir = mkdtempSync(join(tmpdir(), 'turnlog-store-contract-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const nextFile = () => join(dir, `store-${++files}.db`);

describeStoreContract('sqlite file', (limits) => createSqliteStore({ path: nextFile(), limits }));
describeStoreContract('sqlite :memory:', (limits) => createSqliteStore({ path: ':memory:', limits }));
describeStoreContract('sqlite file, snapshots written through', (limits) =>
  createSqliteStore({ path: nextFile(), limits, writes: 'immediate' }),
);
