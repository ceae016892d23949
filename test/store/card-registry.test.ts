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

// Issue 22.4: a cursor carries the store's identity, so one of a replaced store is refused.
describe('the store id behind actions cursors', () => {
  it('is kept by a SQLite file across reopening; another file, or a memory store, has another', () => {
    const path = nextFile();
    const first = createSqliteStore({ path });
    const id = first.actionsStoreId();
    first.appendAction(
      { id: 'a1', type: 'stop', space: 'gchat:spaces/A', at: 1, user: { id: 'u' }, turnId: 'T' },
      1,
    );
    first.close();
    const again = createSqliteStore({ path });
    const other = createSqliteStore({ path: nextFile() });
    try {
      expect(id).toMatch(/^[0-9a-f]{12}$/);
      expect(again.actionsStoreId()).toBe(id);
      expect(again.lastActionSeq()).toBe(1);
      expect(other.actionsStoreId()).not.toBe(id);
      expect(other.lastActionSeq()).toBe(0);
      expect(createMemoryStore().actionsStoreId()).not.toBe(createMemoryStore().actionsStoreId());
    } finally {
      again.close();
      other.close();
    }
  });

  it('the newest position stays when every action is pruned (a cursor is never reused)', async () => {
    for (const store of [createMemoryStore(), createSqliteStore({ path: ':memory:' })]) {
      await store.appendAction(
        { id: 'a1', type: 'stop', space: 'gchat:spaces/A', at: 1, user: { id: 'u' }, turnId: 'T' },
        1,
      );
      expect(await store.pruneActions(10, 10)).toBe(1);
      expect(await store.lastActionSeq()).toBe(1);
      await store.close();
    }
  });
});
