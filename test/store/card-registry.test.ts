/** The card registry contract against every store, and a claim kept across a restart of the SQLite store. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createMemoryStore } from '../../src/store/memory.js';
import { createSqliteStore } from '../../src/store/sqlite.js';
import { describeCardRegistryContract, policyCard } from './card-registry.contract.js';

const dir = mkdtempSync(join(tmpdir(), 'turnlog-card-registry-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const nextFile = () => join(dir, `store-${++files}.db`);

describeCardRegistryContract('memory', (limits) => createMemoryStore(limits));
describeCardRegistryContract('sqlite file', (limits) => createSqliteStore({ path: nextFile(), limits }));
describeCardRegistryContract('sqlite :memory:', (limits) => createSqliteStore({ path: ':memory:', limits }));

describe('card registry across a restart (sqlite)', () => {
  it('a card and its claim survive closing and reopening the database', () => {
    const path = nextFile();
    const first = createSqliteStore({ path });
    first.registerCard(policyCard('m1'));
    const alice = { user: { id: 'users/1', name: 'Alice' }, action: 'approve', at: 2_000 };
    expect(first.claimCard('gchat:spaces/AAAA', 'm1', alice)).toEqual({ first: true, claim: alice });
    first.close();
    const second = createSqliteStore({ path });
    try {
      const bob = { user: { id: 'users/2', name: 'Bob' }, action: 'reject', at: 3_000 };
      expect(second.claimCard('gchat:spaces/AAAA', 'm1', bob)).toEqual({ first: false, claim: alice });
      expect(second.card('gchat:spaces/AAAA', 'm1')).toEqual({ ...policyCard('m1'), claim: alice });
    } finally {
      second.close();
    }
  });
});
