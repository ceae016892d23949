/**
 * spec: issue 9 item 10 ("under 50 concurrent senders, memory peaked at 340–510 MB"):
 * the installed `turnlog` bin runs node with its memory flags
 * (`--max-semi-space-size=4 --heap-growing-percent=25`; docs/benchmarks.md,
 * "Serve memory under 50 senders"). The built file is
 * executed itself, its `#!/usr/bin/env -S node …` line read by the system as
 * when npm links it, and the serving process is checked for the flag.
 */
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { startGchatEmulator } from '../../../src/emulators/gchat/index.js';
import { firstLine } from '../../cli/cli.helpers.js';
import { binNodeFlags, serveConfigFile, startServeProcess } from './serve-process.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('the turnlog bin', () => {
  it('serves with node running its memory flags, from its own #! line', async () => {
    const emulator = await startGchatEmulator();
    cleanups.push(() => emulator.close());
    const configPath = serveConfigFile('turnlog-bin-', { gchat: { apiUrl: emulator.url } }, cleanups);
    const child = startServeProcess(configPath, cleanups, { entry: 'bin' });
    const { ingest } = JSON.parse(await firstLine(child)) as { ingest: string };
    expect((await fetch(new URL('/healthz', ingest))).status).toBe(200);
    // The system ran env, which ran node in the same process: its command line is node's.
    const argv = readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').split('\0');
    expect(argv).toContain('--max-semi-space-size=4');
    expect(argv).toContain('--heap-growing-percent=25');
    expect(argv.some((a) => a.endsWith('dist/src/cli/main.js'))).toBe(true);
    expect(binNodeFlags()).toEqual(['--max-semi-space-size=4', '--heap-growing-percent=25']);
    child.kill('SIGTERM');
    const [code] = await once(child, 'exit');
    expect(code).toBe(0);
  });
});
