/**
 * `npx tsx scripts/cluster-servers.ts [--postgres] [--redis]` (both when
 * neither is named): starts a throwaway Postgres and/or Redis as the cluster
 * tests do (test/cluster/servers.ts: Debian's packages, temp dirs, free
 * loopback ports), prints one JSON line `{"postgres": "postgres://…",
 * "redis": "redis://…"}`, and keeps them until SIGINT/SIGTERM, when it stops
 * them and deletes their dirs. For trying several `turnlog serve` processes
 * by hand (README, "The Postgres store").
 */
import { type RunningServer, startPostgres, startRedis } from '../test/cluster/servers.js';

const args = process.argv.slice(2);
for (const arg of args) {
  if (arg !== '--postgres' && arg !== '--redis') {
    process.stderr.write(`cluster-servers: unknown argument ${JSON.stringify(arg)} (--postgres, --redis)\n`);
    process.exit(2);
  }
}
const both = args.length === 0;
const started: RunningServer[] = [];
const urls: Record<string, string> = {};
try {
  if (both || args.includes('--postgres')) {
    const pg = await startPostgres();
    started.push(pg);
    urls.postgres = pg.url;
  }
  if (both || args.includes('--redis')) {
    const redis = await startRedis();
    started.push(redis);
    urls.redis = redis.url;
  }
} catch (error) {
  await Promise.all(started.map((s) => s.stop()));
  process.stderr.write(`cluster-servers: ${(error as Error).message}\n`);
  process.exit(1);
}
process.stdout.write(`${JSON.stringify(urls)}\n`);
const stop = async () => {
  await Promise.all(started.map((s) => s.stop()));
  process.exit(0);
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
