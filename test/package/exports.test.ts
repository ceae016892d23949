/**
 * The package as installed (`npm ci` builds dist/ through `prepare`):
 * `import 'turnlog'` and `import 'turnlog/testing'` resolve to the built
 * code with the docs/library.md exports, and the `turnlog` bin runs.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../cli/cli.helpers.js';

function importInNode(specifier: string, names: string[]): Record<string, string> {
  const script = `import(${JSON.stringify(specifier)}).then((m) => console.log(JSON.stringify(Object.fromEntries(${JSON.stringify(names)}.map((n) => [n, typeof m[n]])))))`;
  return JSON.parse(
    execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT }).toString(),
  );
}

describe('the built package', () => {
  it("exports the library API from 'turnlog'", () => {
    const names = [
      'parseRunEvent',
      'parseRunEvents',
      'redactSecrets',
      'redactAndCap',
      'summarizeToolResult',
      'parseExitPrefix',
      'prepareToolOutput',
      'formatTurnLogEntry',
      'condenseTurnLog',
      'routeEvent',
      'createRuntime',
      'turnMachine',
      'spaceMachine',
      'budgetMachine',
      'runtimeMachine',
      'verifyTurnlogSignature',
      'signTurnlogPayload',
      'actionsEndpoint',
      'createChannelAdapter',
      'ChannelDeliveryError',
      'HostWriteError',
    ];
    const types = importInNode('turnlog', names);
    for (const name of names)
      expect(types[name], name).toBe(name.endsWith('Machine') ? 'object' : 'function');
  });

  it("exports the testing kit from 'turnlog/testing'", () => {
    const types = importInNode('turnlog/testing', ['createMemorySurface', 'startEmulator']);
    expect(types).toEqual({ createMemorySurface: 'function', startEmulator: 'function' });
  });

  // Issue 21.1: each platform is its own entry, with its descriptor and surface factory.
  it.each([
    ['turnlog/gchat', ['gchatPlatform', 'createGchatSurface']],
    ['turnlog/slack', ['slackPlatform', 'createSlackSurface']],
    ['turnlog/discord', ['discordPlatform', 'createDiscordSurface']],
  ])('exports the platform plug-in from %s', (entry, [descriptor, factory]) => {
    const types = importInNode(entry, [descriptor as string, factory as string]);
    expect(types).toEqual({ [descriptor as string]: 'object', [factory as string]: 'function' });
  });

  it("exports the emulators from 'turnlog/emulators'", () => {
    expect(importInNode('turnlog/emulators', ['startEmulator'])).toEqual({ startEmulator: 'function' });
  });

  it('runs the turnlog bin', () => {
    const out = execFileSync(process.execPath, ['dist/src/cli/main.js', '--help'], { cwd: ROOT }).toString();
    expect(out).toContain('turnlog emulate');
  });
});

describe('the documented API (docs/library.md)', () => {
  const library = readFileSync(join(ROOT, 'docs/library.md'), 'utf8');

  it.each([
    ['turnlog', '../../src/index.js'],
    ['turnlog/testing', '../../src/testing.js'],
    ['turnlog/gchat', '../../src/gchat.js'],
    ['turnlog/slack', '../../src/slack.js'],
    ['turnlog/discord', '../../src/discord.js'],
    ['turnlog/emulators', '../../src/emulators.js'],
  ])('every export of %s is documented, so nothing internal leaks out unnoticed', async (_entry, path) => {
    const exported = Object.keys(await import(path));
    expect(exported.length).toBeGreaterThan(0);
    const undocumented = exported.filter((name) => !library.includes(`\`${name}`));
    expect(undocumented).toEqual([]);
  });

  // Issue 21.6: a small public API, at most 60 runtime names; the machines' implementation factories live in turnlog/testing.
  it("keeps 'turnlog' to 60 runtime names at most", async () => {
    const exported = Object.keys(await import('../../src/index.js'));
    expect(exported.length).toBeLessThanOrEqual(60);
    for (const internal of [
      'createTurnImplementations',
      'createSpaceImplementations',
      'createBudgetImplementations',
    ])
      expect(exported).not.toContain(internal);
  });

  it("keeps internals internal: the renderers, the budget's config and the runtime's helpers are not exported", async () => {
    const exported = Object.keys(await import('../../src/index.js'));
    for (const internal of [
      'renderGchatText',
      'resolveBudgetConfig',
      'provideTurnMachine',
      'restorable',
      'openNdjsonInput',
    ])
      expect(exported).not.toContain(internal);
  });
});
