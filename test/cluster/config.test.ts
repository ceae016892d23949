/**
 * Issue 23 (docs/http-api.md (several instances)): `store.url` and `cluster.*` in the config: the
 * defaults (`cluster.leaseMs` 10000, no instance id: `<hostname>:<pid>` is
 * taken at start), and bad values refused with the key named.
 */
import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { defaultInstanceId } from '../../src/cluster/runtime.js';
import { loadConfig } from '../../src/config.js';
import { builtinPlatforms } from '../../src/platforms/all.js';

const load = (config: unknown) => loadConfig(config, {}, builtinPlatforms);

describe('cluster config (23, §6)', () => {
  it('defaults: leaseMs 10000, instance id <hostname>:<pid>', () => {
    const config = load({ store: { url: 'postgres://turnlog@db:5432/turnlog' } });
    expect(config.store.url).toBe('postgres://turnlog@db:5432/turnlog');
    expect(config.cluster.leaseMs).toBe(10_000);
    expect(config.cluster.instanceId).toBeUndefined();
    expect(defaultInstanceId()).toBe(`${hostname()}:${process.pid}`);
  });

  it('refuses a store.url that is not Postgres, a lease under 300 ms and an unknown cluster key, naming them', () => {
    expect(() => load({ store: { url: 'mysql://db/turnlog' } })).toThrow(/store\.url/);
    expect(() => load({ cluster: { leaseMs: 100 } })).toThrow(/cluster\.leaseMs/);
    expect(() => load({ cluster: { leaseMS: 1500 } })).toThrow(/cluster\.leaseMS.*leaseMs/s);
    expect(() => load({ cluster: { redisUrl: 'http://cache:6379' } })).toThrow(/cluster\.redisUrl/);
  });
});
