/**
 * The package as installed (`npm ci` builds dist/ through `prepare`):
 * `import 'turnlog'` and `import 'turnlog/testing'` resolve to the built
 * code with the CONTRACTS.md §5 exports, and the `turnlog` bin runs.
 */
import { execFileSync } from 'node:child_process';
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
    ];
    const types = importInNode('turnlog', names);
    for (const name of names)
      expect(types[name], name).toBe(name.endsWith('Machine') ? 'object' : 'function');
  });

  it("exports the testing kit from 'turnlog/testing'", () => {
    const types = importInNode('turnlog/testing', ['createMemorySurface', 'startEmulator']);
    expect(types).toEqual({ createMemorySurface: 'function', startEmulator: 'function' });
  });

  it('runs the turnlog bin', () => {
    const out = execFileSync(process.execPath, ['dist/src/cli/main.js', '--help'], { cwd: ROOT }).toString();
    expect(out).toContain('turnlog emulate');
  });
});
