/**
 * Issue 23 items 2–4, 7: several `turnlog serve` child processes on one
 * Postgres (test/cluster/servers.ts) and one platform emulator. Shared by the
 * cluster tests and `npm run bench -- cluster`.
 */
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { firstLine } from '../cli/cli.helpers.js';
import { type ServeProcessOptions, startServeProcess } from '../e2e/process/serve-process.js';

export interface ClusterNode {
  readonly name: string;
  readonly child: ChildProcessWithoutNullStreams;
  /** The ingest API's origin. */
  readonly url: string;
  /** What the process wrote on stderr so far (its logs). */
  stderr(): string;
}

export interface ClusterHealthBody {
  ok: boolean;
  cluster?: { instanceId: string; owns: string[]; store: string; budget: string };
}

/** A serve config on `storeUrl` in a new temp dir (removed by `cleanups`); answers its path. */
export function clusterConfigFile(
  storeUrl: string,
  platforms: Record<string, unknown>,
  cleanups: (() => Promise<void> | void)[],
  extra: { leaseMs?: number; redisUrl?: string; logLevel?: string; budgets?: unknown } = {},
): string {
  const dir = mkdtempSync(join(tmpdir(), 'turnlog-cluster-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'turnlog.json');
  writeFileSync(
    path,
    JSON.stringify({
      ingest: { host: '127.0.0.1', port: 0 },
      store: { url: storeUrl },
      cluster: {
        leaseMs: extra.leaseMs ?? 1500,
        ...(extra.redisUrl ? { redisUrl: extra.redisUrl } : {}),
      },
      platforms,
      ...(extra.budgets ? { budgets: extra.budgets } : {}),
      visibility: { threadLog: { editDebounceMs: 200 } },
      log: { level: extra.logLevel ?? 'info' },
    }),
  );
  return path;
}

/** Starts one `turnlog serve` on the config; resolves once it listens. */
export async function startNode(
  name: string,
  configPath: string,
  cleanups: (() => Promise<void> | void)[],
  options: ServeProcessOptions = {},
): Promise<ClusterNode> {
  const child = startServeProcess(configPath, cleanups, options);
  let err = '';
  child.stderr.on('data', (chunk) => {
    err += String(chunk);
  });
  const line = await firstLine(child).catch((error: unknown) => {
    throw new Error(`${name} did not start: ${String(error)}\n${err}`);
  });
  const { ingest } = JSON.parse(line) as { ingest: string };
  return { name, child, url: ingest, stderr: () => err };
}

export async function health(node: ClusterNode): Promise<ClusterHealthBody> {
  const response = await fetch(`${node.url}/healthz`);
  return (await response.json()) as ClusterHealthBody;
}

/** The live node owning `space` (by its /healthz); throws when none does (for vi.waitFor). */
export async function ownerOf(nodes: readonly ClusterNode[], space: string): Promise<ClusterNode> {
  for (const node of nodes) {
    if (node.child.exitCode !== null || node.child.signalCode !== null) continue;
    const body = await health(node).catch(() => undefined);
    if (body?.cluster?.owns.includes(space)) return node;
  }
  throw new Error(`no live node owns ${space}`);
}

/** POSTs NDJSON events to a node; answers the status. */
export async function postEvents(
  node: ClusterNode,
  events: readonly Record<string, unknown>[],
): Promise<number> {
  const response = await fetch(`${node.url}/v1/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-ndjson' },
    body: events.map((event) => JSON.stringify(event)).join('\n'),
  });
  await response.arrayBuffer();
  return response.status;
}

export async function kill9(node: ClusterNode): Promise<void> {
  if (node.child.exitCode !== null || node.child.signalCode !== null) return;
  const exited = once(node.child, 'exit');
  node.child.kill('SIGKILL');
  await exited;
}
