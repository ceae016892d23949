// `node scripts/import-probe.mjs [SPECIFIER]`: imports the built package (default
// `turnlog`, after `turnlog` itself), parses one event, and prints one JSON line: how long that took,
// how many CommonJS modules loaded, and which of them belong to a platform SDK (or the server drivers,
// pg and ioredis, which only store.url and cluster.redisUrl load).
// The import test (test/package/import-cost.test.ts) and `npm run bench -- import` run it.
import { createRequire } from 'node:module';

const SDK =
  /node_modules\/(googleapis|google-auth-library|@slack|discord\.js|@discordjs|pg|pg-[a-z-]+|ioredis)\//;
const specifier = process.argv[2] ?? 'turnlog';
const started = performance.now();
const turnlog = await import('turnlog');
if (specifier !== 'turnlog') await import(specifier);
const parsed = turnlog.parseRunEvent({ type: 'turn_started', turnId: 'T1', space: 'gchat:spaces/AAAA' });
const ms = performance.now() - started;
const loaded = Object.keys(createRequire(import.meta.url).cache);
console.log(
  JSON.stringify({
    parsed: parsed.ok,
    ms: Math.round(ms),
    commonJsModules: loaded.length,
    sdkModules: loaded.filter((path) => SDK.test(path)),
    rssMiB: Math.round(process.memoryUsage().rss / 2 ** 20),
  }),
);
