/**
 * Issue 23 item 6: the cluster tests start their own real Postgres and Redis
 * (Debian's packages) in temp dirs on free ports, and stop them. Proves the
 * servers answer real clients once start resolves, and that stop() leaves
 * neither a process listening nor a dir behind.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createConnection } from 'node:net';
import pg from 'pg';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { firstLine, ROOT } from '../cli/cli.helpers.js';
import { SERVERS_INSTALL, startPostgres, startRedis } from './servers.js';

function redisCommand(port: number, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const sock = createConnection({ host: '127.0.0.1', port });
    let out = '';
    sock.on('data', (d) => {
      out += d.toString();
      if (out.endsWith('\r\n')) {
        sock.end();
        resolve(out);
      }
    });
    sock.on('error', reject);
    sock.write(`${command}\r\n`);
  });
}

function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = createConnection({ host: '127.0.0.1', port });
    sock.once('connect', () => {
      sock.destroy();
      resolve(false);
    });
    sock.once('error', () => resolve(true));
  });
}

describe('test/cluster/servers (issue 23.6)', () => {
  it('starts a real Postgres that takes queries, and stop() removes it', async () => {
    const server = await startPostgres();
    try {
      const client = new pg.Client({ connectionString: server.url });
      await client.connect();
      const { rows } = await client.query<{ v: string }>('select version() as v');
      expect(rows[0]?.v).toMatch(/^PostgreSQL \d+/);
      await client.query('create database other');
      await client.end();
      const other = new pg.Client({ connectionString: server.urlFor('other') });
      await other.connect();
      expect((await other.query('select current_database() as d')).rows[0].d).toBe('other');
      await other.end();
    } finally {
      await server.stop();
    }
    expect(existsSync(server.dir)).toBe(false);
    expect(await refused(server.port)).toBe(true);
  });

  it('starts a real Redis that answers PING and keeps nothing on disk, and stop() removes it', async () => {
    const server = await startRedis();
    try {
      expect(server.url).toBe(`redis://127.0.0.1:${server.port}`);
      expect(await redisCommand(server.port, 'PING')).toBe('+PONG\r\n');
      expect(await redisCommand(server.port, 'CONFIG GET save')).toContain('save\r\n$0\r\n');
    } finally {
      await server.stop();
    }
    expect(existsSync(server.dir)).toBe(false);
    expect(await refused(server.port)).toBe(true);
  });

  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('fails naming the install command when Postgres is not where it is looked for (never skips)', async () => {
    vi.stubEnv('TURNLOG_PG_BIN', '/nonexistent/pg/bin');
    await expect(startPostgres()).rejects.toThrow(SERVERS_INSTALL);
    await expect(startPostgres()).rejects.toThrow('TURNLOG_PG_BIN=/nonexistent/pg/bin');
  });

  it('two servers of each kind run side by side on different ports', async () => {
    const [a, b, r1, r2] = await Promise.all([startPostgres(), startPostgres(), startRedis(), startRedis()]);
    try {
      expect(new Set([a.port, b.port, r1.port, r2.port]).size).toBe(4);
    } finally {
      await Promise.all([a.stop(), b.stop(), r1.stop(), r2.stop()]);
    }
  });
});

describe('test/cluster/servers when the test process dies (issue 23.6)', () => {
  it('a SIGKILLed owner (scripts/cluster-servers.ts) leaves no server running', async () => {
    const owner = spawn(process.execPath, ['--import', 'tsx', 'scripts/cluster-servers.ts'], { cwd: ROOT });
    owner.stderr.resume();
    try {
      const urls = JSON.parse(await firstLine(owner)) as { postgres: string; redis: string };
      const pgPort = Number(new URL(urls.postgres).port);
      const redisPort = Number(new URL(urls.redis).port);
      expect(await refused(pgPort)).toBe(false);
      expect(await refused(redisPort)).toBe(false);
      owner.kill('SIGKILL');
      await vi.waitFor(
        async () => {
          expect(await refused(pgPort)).toBe(true);
          expect(await refused(redisPort)).toBe(true);
        },
        { timeout: 20_000, interval: 50 },
      );
    } finally {
      if (owner.exitCode === null && owner.signalCode === null) owner.kill('SIGKILL');
    }
  });
});
