/**
 * The README stays true (issue "turnlog serve and the demo", item 6): every
 * `npx turnlog <command>` it shows is a command the CLI has (its `--help`
 * runs), every `npm run <script>` exists, and the config example in it is a
 * valid config.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config.js';
import { ROOT, runCli } from '../cli/cli.helpers.js';

const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const scripts = (
  JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
).scripts;

describe('README commands', () => {
  const turnlogCommands = [
    ...new Set([...readme.matchAll(/npx turnlog ([a-z]+)/g)].map((m) => m[1] as string)),
  ];

  it('shows the two commands first', () => {
    expect(readme).toContain('npm ci && npm start');
    expect(readme).toContain('npm test');
    expect(scripts.start).toContain('demo');
    expect(turnlogCommands.length).toBeGreaterThanOrEqual(4);
  });

  for (const command of turnlogCommands) {
    it(`npx turnlog ${command}: the command exists and documents itself`, async () => {
      const result = await runCli([command, '--help']);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout.length).toBeGreaterThan(40);
    });
  }

  it('every npm run script it names exists', () => {
    const named = [...readme.matchAll(/npm run ([a-z:]+)/g)].map((m) => m[1] as string);
    expect(named.length).toBeGreaterThan(0);
    for (const name of named) expect(scripts[name], name).toBeDefined();
  });

  it('its config example is a valid config', () => {
    const block = /```json\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(block).toBeDefined();
    const config = resolveConfig(JSON.parse(block ?? '{}'));
    expect(config.platforms.gchat?.apiUrl).toBe('http://127.0.0.1:8900');
  });
});
