/**
 * Issue 21.1: `import('turnlog')` plus parsing an event loads no platform
 * SDK (googleapis, google-auth-library, @slack/*, discord.js, @discordjs/*)
 * nor the Postgres driver (pg: issue 23, loaded only with store.url, by the
 * store and src/cluster/) nor ioredis (issue 23.5: only with cluster.redisUrl);
 * a platform's SDK loads with its own entry (`turnlog/gchat`). Runs a fresh
 * node on the built dist/ (`npm run build`). The time is the bench's job
 * (`npm run bench -- import`), not this test's.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../cli/cli.helpers.js';

function probe(specifier: string): { parsed: boolean; sdkModules: string[] } {
  const out = execFileSync(process.execPath, [join(ROOT, 'scripts/import-probe.mjs'), specifier], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  return JSON.parse(out);
}

describe('what importing turnlog loads (issue 21.1)', () => {
  it("import('turnlog') and parsing an event load no platform SDK and no pg", () => {
    const loaded = probe('turnlog');
    expect(loaded.parsed).toBe(true);
    expect(loaded.sdkModules).toEqual([]);
  });

  it('the probe sees the Postgres driver when it loads (issue 23.1)', () => {
    const loaded = probe('pg');
    expect(loaded.sdkModules.some((path) => path.includes('node_modules/pg/'))).toBe(true);
  });

  it('turnlog/gchat loads the Google SDK (the probe sees an SDK when one loads)', () => {
    const loaded = probe('turnlog/gchat');
    expect(loaded.sdkModules.some((path) => path.includes('node_modules/googleapis/'))).toBe(true);
  });
});
