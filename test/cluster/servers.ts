/**
 * Issue 23 item 6: the real servers the cluster and Postgres store tests use.
 * `startPostgres()` runs Debian's `postgresql` (initdb + postgres, as the
 * `postgres` user when we are root) and `startRedis()` runs `redis-server`,
 * each in its own temp dir on a free loopback port. Both wait for readiness
 * by condition (the server's own "ready" line, then a real connection), and
 * `stop()` shuts the server down and deletes its dir. Each server runs under
 * a guard that stops it when this process goes away, even by SIGKILL.
 *
 * When the binaries are missing and this process may install them (root,
 * apt-get present), they are installed (`apt-get update` first); otherwise
 * the call fails naming the one command to run. Never skipped silently.
 *
 * Usable per test file (`beforeAll(async () => { pg = await startPostgres() })`)
 * or from a vitest globalSetup. `TURNLOG_PG_BIN` points at another Postgres
 * bin dir (with initdb and postgres).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const SERVERS_INSTALL = 'apt-get update && apt-get install -y postgresql redis-server';

export interface RunningServer {
  /** `postgres://postgres@127.0.0.1:PORT/postgres` or `redis://127.0.0.1:PORT`. */
  readonly url: string;
  readonly port: number;
  /** The server's temp dir (deleted by stop()). */
  readonly dir: string;
  /** The server's output so far (for failure messages). */
  log(): string;
  /** Shuts the server down (waits for it to exit) and deletes its dir. Idempotent. */
  stop(): Promise<void>;
}

export interface RunningPostgres extends RunningServer {
  /** A URL for another database on this server (create it first, e.g. with `createDatabase`). */
  urlFor(database: string): string;
  /** The unix socket directory (inside dir). */
  readonly socketDir: string;
}

const READY_TIMEOUT_MS = 60_000;

function isRoot(): boolean {
  return process.getuid?.() === 0;
}

function canInstall(): boolean {
  return isRoot() && existsSync('/usr/bin/apt-get');
}

function install(): void {
  execFileSync('sh', ['-c', SERVERS_INSTALL], {
    stdio: 'inherit',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
}

function missing(what: string): Error {
  return new Error(
    `the cluster tests need ${what}: install Debian's packages with \`${SERVERS_INSTALL}\` (as root)` +
      (what.includes('Postgres') ? ', or point TURNLOG_PG_BIN at a Postgres bin dir' : ''),
  );
}

/** The Postgres bin dir: TURNLOG_PG_BIN, else the newest /usr/lib/postgresql/<v>/bin. */
function findPgBin(): string | undefined {
  const forced = process.env.TURNLOG_PG_BIN;
  if (forced) return existsSync(join(forced, 'initdb')) ? forced : undefined;
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'initdb')) && existsSync(join(root, v, 'bin', 'postgres')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? undefined : join(root, versions[0], 'bin');
}

export function postgresBin(): string {
  let bin = findPgBin();
  if (bin === undefined && process.env.TURNLOG_PG_BIN === undefined && canInstall()) {
    install();
    bin = findPgBin();
  }
  if (bin === undefined) {
    throw missing(
      process.env.TURNLOG_PG_BIN
        ? `Postgres (initdb and postgres) in TURNLOG_PG_BIN=${process.env.TURNLOG_PG_BIN}`
        : 'Postgres (initdb and postgres in /usr/lib/postgresql/<version>/bin)',
    );
  }
  return bin;
}

function findRedis(): string | undefined {
  for (const p of ['/usr/bin/redis-server', '/usr/local/bin/redis-server']) if (existsSync(p)) return p;
  return undefined;
}

export function redisBin(): string {
  let bin = findRedis();
  if (bin === undefined && canInstall()) {
    install();
    bin = findRedis();
  }
  if (bin === undefined) throw missing('redis-server (/usr/bin/redis-server)');
  return bin;
}

/** A free loopback TCP port (the OS picks it; closed again before we return). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** The uid/gid to run Postgres as: the `postgres` user when we are root (Postgres refuses root). */
function postgresUser(): { uid: number; gid: number } | undefined {
  if (!isRoot()) return undefined;
  try {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    return { uid, gid };
  } catch {
    throw new Error(
      `Postgres cannot run as root and there is no \`postgres\` user: install Debian's package with \`${SERVERS_INSTALL}\``,
    );
  }
}

/**
 * Spawns a server under a small `sh` guard that holds the server's pid and
 * reads its own stdin: when that pipe closes — `stop()` ends it, or this
 * process dies, even by SIGKILL — the guard sends the server `signal`, waits
 * for it and deletes `dir`. So a killed test run leaves no server behind.
 */
function spawnGuarded(
  bin: string,
  args: string[],
  signal: 'INT' | 'TERM',
  dir: string,
  options: { uid?: number; gid?: number; cwd: string; env?: NodeJS.ProcessEnv },
): ChildProcess {
  const guard =
    // fd 3: the guard's stdin, named explicitly (a background job's stdin is /dev/null otherwise).
    `exec 3<&0; "$0" "$@" </dev/null 3<&- & pid=$!; (cat <&3 >/dev/null; kill -${signal} $pid 2>/dev/null) & ` +
    'wait $pid; status=$?; rm -rf "$TURNLOG_GUARDED_DIR"; exit $status';
  return spawn('sh', ['-c', guard, bin, ...args], {
    ...options,
    env: { ...(options.env ?? process.env), TURNLOG_GUARDED_DIR: dir },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
}

/** Children still running, killed if this process exits without stopping them. */
const live = new Set<ChildProcess>();
let exitHook = false;
function track(child: ChildProcess): void {
  live.add(child);
  child.once('exit', () => live.delete(child));
  if (!exitHook) {
    exitHook = true;
    process.once('exit', () => {
      for (const c of live) c.kill('SIGKILL');
    });
  }
}

/** Resolves once the TCP port accepts a connection. */
function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = createConnection({ host: '127.0.0.1', port });
    sock.once('connect', () => {
      sock.destroy();
      resolve(true);
    });
    sock.once('error', () => resolve(false));
  });
}

/**
 * Waits until `ready(output)` holds for the child's output and its port takes
 * connections; rejects when the child exits first or the bound passes.
 */
function waitReady(
  child: ChildProcess,
  port: number,
  output: () => string,
  ready: (out: string) => boolean,
  what: string,
): Promise<void> {
  return new Promise((resolve, reject) => {
    let done = false;
    const finish = (err?: Error) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      child.stdout?.off('data', check);
      child.stderr?.off('data', check);
      child.off('exit', onExit);
      if (err) reject(err);
      else resolve();
    };
    const onExit = (code: number | null, signal: string | null) =>
      finish(new Error(`${what} exited before it was ready (code ${code}, signal ${signal}):\n${output()}`));
    let probing = false;
    const check = () => {
      if (done || probing || !ready(output())) return;
      probing = true;
      void canConnect(port).then((ok) => {
        probing = false;
        if (ok) finish();
        else setImmediate(check);
      });
    };
    // A bound on a failure, never a wait for success: ready as soon as the condition holds.
    const timer = setTimeout(
      () => finish(new Error(`${what} was not ready within ${READY_TIMEOUT_MS} ms:\n${output()}`)),
      READY_TIMEOUT_MS,
    );
    child.stdout?.on('data', check);
    child.stderr?.on('data', check);
    child.once('exit', onExit);
    check();
  });
}

function captureOutput(child: ChildProcess): () => string {
  let out = '';
  const add = (chunk: Buffer) => {
    out += chunk.toString('utf8');
    if (out.length > 200_000) out = out.slice(-100_000);
  };
  child.stdout?.on('data', add);
  child.stderr?.on('data', add);
  return () => out;
}

function stopper(child: ChildProcess, dir: string): () => Promise<void> {
  let stopping: Promise<void> | undefined;
  return () => {
    stopping ??= new Promise<void>((resolve) => {
      const removeDir = () => {
        rmSync(dir, { recursive: true, force: true });
        resolve();
      };
      if (child.exitCode !== null || child.signalCode !== null) return removeDir();
      // A bound on a stuck shutdown only: SIGKILL after it.
      const hard = setTimeout(() => child.kill('SIGKILL'), 15_000);
      child.once('exit', () => {
        clearTimeout(hard);
        removeDir();
      });
      // The guard (spawnGuarded) signals the server once its stdin closes, and exits after it.
      child.stdin?.end();
    });
    return stopping;
  };
}

const PORT_IN_USE = /address already in use|could not bind|could not create any TCP\/IP sockets/i;

async function withPortRetry<T>(start: (port: number) => Promise<T>): Promise<T> {
  let last: unknown;
  // freePort() closes the port before the server binds it: another process may take it meanwhile.
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      return await start(await freePort());
    } catch (err) {
      last = err;
      if (!PORT_IN_USE.test(String((err as Error).message))) throw err;
    }
  }
  throw last;
}

/** Starts a throwaway Postgres (trust auth, loopback only, no fsync) and waits until it takes connections. */
export async function startPostgres(): Promise<RunningPostgres> {
  const bin = postgresBin();
  const user = postgresUser();
  return withPortRetry(async (port) => {
    const dir = mkdtempSync(join(tmpdir(), 'turnlog-pg-'));
    const data = join(dir, 'data');
    const socketDir = dir;
    if (user) chownSync(dir, user.uid, user.gid);
    const asUser = user ? { uid: user.uid, gid: user.gid } : {};
    const env = { ...process.env, LC_ALL: 'C', LANG: 'C', HOME: dir };
    try {
      execFileSync(
        join(bin, 'initdb'),
        ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-sync'],
        { ...asUser, cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] },
      );
    } catch (err) {
      rmSync(dir, { recursive: true, force: true });
      const e = err as { stderr?: Buffer; message: string };
      throw new Error(`initdb failed: ${e.stderr?.toString() || e.message}`);
    }
    // SIGINT: Postgres' fast shutdown (SIGTERM would wait for every client to leave).
    const child = spawnGuarded(
      join(bin, 'postgres'),
      [
        '-D',
        data,
        '-p',
        String(port),
        '-k',
        socketDir,
        '-c',
        'listen_addresses=127.0.0.1',
        '-c',
        'fsync=off',
        '-c',
        'synchronous_commit=off',
        '-c',
        'full_page_writes=off',
        '-c',
        'max_connections=200',
      ],
      'INT',
      dir,
      { ...asUser, cwd: dir, env },
    );
    track(child);
    const output = captureOutput(child);
    const stop = stopper(child, dir);
    try {
      await waitReady(child, port, output, (o) => o.includes('ready to accept connections'), 'postgres');
    } catch (err) {
      await stop();
      throw err;
    }
    const urlFor = (db: string) => `postgres://postgres@127.0.0.1:${port}/${encodeURIComponent(db)}`;
    return { url: urlFor('postgres'), port, dir, socketDir, log: output, stop, urlFor };
  });
}

/** Starts a throwaway redis-server (no persistence, loopback only) and waits until it takes connections. */
export async function startRedis(): Promise<RunningServer> {
  const bin = redisBin();
  return withPortRetry(async (port) => {
    const dir = mkdtempSync(join(tmpdir(), 'turnlog-redis-'));
    const child = spawnGuarded(
      bin,
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--dir',
        dir,
        '--save',
        '',
        '--appendonly',
        'no',
        '--daemonize',
        'no',
        '--protected-mode',
        'no',
      ],
      'TERM',
      dir,
      { cwd: dir },
    );
    track(child);
    const output = captureOutput(child);
    const stop = stopper(child, dir);
    try {
      await waitReady(child, port, output, (o) => /ready to accept connections/i.test(o), 'redis-server');
    } catch (err) {
      await stop();
      throw err;
    }
    return { url: `redis://127.0.0.1:${port}`, port, dir, log: output, stop };
  });
}
