/** The `turnlog` CLI (docs/cli.md): `emulate` (ready line, inspection API, clean stop, clear errors), `viz`, usage errors. */
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { firstLine, runCli, spawnCli } from './cli.helpers.js';

describe('turnlog emulate', () => {
  for (const platform of ['gchat', 'slack', 'discord'] as const) {
    it(`${platform}: prints {"platform","url"} when ready, serves the inspection API, stops on SIGTERM`, async () => {
      const child = spawnCli(['emulate', '--platform', platform, '--port', '0']);
      try {
        const ready = JSON.parse(await firstLine(child)) as { platform: string; url: string };
        expect(ready.platform).toBe(platform);
        expect(ready.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
        const calls = await fetch(`${ready.url}/_emulator/calls`).then((r) => r.json());
        expect(calls).toEqual({ calls: [] });
      } finally {
        child.kill('SIGTERM');
      }
      const [code] = await once(child, 'exit');
      expect(code).toBe(0);
    });
  }

  it('names a bad platform and exits 2', async () => {
    const result = await runCli(['emulate', '--platform', 'teams']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--platform must be one of gchat, slack, discord, got "teams"');
  });

  it('requires --platform', async () => {
    const result = await runCli(['emulate']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--platform is required');
  });

  it('names an unknown option', async () => {
    const result = await runCli(['emulate', '--platform', 'slack', '--colour']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--colour');
  });

  it('has --help describing every option', async () => {
    const result = await runCli(['emulate', '--help']);
    expect(result.code).toBe(0);
    for (const option of ['--platform', '--port', '--host', '--strict', '--no-limits', '--help']) {
      expect(result.stdout).toContain(option);
    }
  });

  it('an unknown command prints the usage and exits 2', async () => {
    const result = await runCli(['frobnicate']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('unknown command "frobnicate"');
    expect(result.stderr).toContain('turnlog emulate');
  });
});

describe('turnlog viz', () => {
  it('--check passes on the committed diagrams; --help names --check', async () => {
    const check = await runCli(['viz', '--check']);
    expect(check.code, check.stderr).toBe(0);
    expect(check.stdout).toContain('matches the machines');
    const help = await runCli(['viz', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--check');
  });
});
