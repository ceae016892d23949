/**
 * Finds the machines to draw: every XState machine exported by a
 * `machines/*.machine.ts` module (or `dist/machines/*.machine.js` after a
 * build), with the first sentence of the module's top doc comment as its
 * description. No list to keep up to date: a new machine file is picked up.
 */
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { type AnyStateMachine, StateMachine } from 'xstate';

export interface MachineModule {
  machine: AnyStateMachine;
  /** The export's name (`turnMachine`). */
  exportName: string;
  /** Path of the module's source, relative to the package root (`machines/turn.machine.ts`). */
  source: string;
  /** First sentence of the module's top doc comment; empty when it has none. */
  description: string;
}

export interface MachineLocation {
  /** The package root (where `package.json` and `visualizations/` are). */
  packageRoot: string;
  /** The folder holding the `*.machine.*` modules to import. */
  machinesDir: string;
  /** `.ts` when running from source (tsx, vitest), `.js` when running the build. */
  extension: '.ts' | '.js';
}

/**
 * Where the machines are, seen from this file: `src/viz/` in the source tree
 * (machines in `machines/`), `dist/src/viz/` in the build (machines in `dist/machines/`).
 */
export function locateMachines(moduleUrl: string = import.meta.url): MachineLocation {
  const file = fileURLToPath(moduleUrl);
  const extension = file.endsWith('.ts') ? '.ts' : '.js';
  const treeRoot = resolve(dirname(file), '..', '..');
  return {
    packageRoot: extension === '.ts' ? treeRoot : dirname(treeRoot),
    machinesDir: join(treeRoot, 'machines'),
    extension,
  };
}

/** XState machines, also from another copy of xstate (duck-typed on `.root` and `.config`). */
export function isStateMachine(value: unknown): value is AnyStateMachine {
  if (value instanceof StateMachine) return true;
  return (
    typeof value === 'object' &&
    value !== null &&
    'root' in value &&
    'config' in value &&
    typeof (value as { root: unknown }).root === 'object' &&
    typeof (value as { config: unknown }).config === 'object'
  );
}

/** Every machine exported by the machine modules, ordered by machine id. */
export async function loadMachineModules(location: MachineLocation): Promise<MachineModule[]> {
  const suffix = `.machine${location.extension}`;
  const files = (await readdir(location.machinesDir)).filter((f) => f.endsWith(suffix)).sort();
  const found: MachineModule[] = [];
  for (const file of files) {
    const path = join(location.machinesDir, file);
    const exports = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
    const source = sourceOf(location, file);
    const description = firstSentence(
      topDocComment(await readFile(join(location.packageRoot, source), 'utf8')),
    );
    const seen = new Set<unknown>();
    for (const [exportName, value] of Object.entries(exports).sort(([a], [b]) => byExportName(a, b))) {
      // `export default turnMachine` next to `export const turnMachine` is one machine, named `turnMachine`.
      if (!isStateMachine(value) || seen.has(value)) continue;
      seen.add(value);
      found.push({ machine: value, exportName, source, description });
    }
  }
  assertUniqueIds(found);
  return found.sort((a, b) => byCodeUnits(a.machine.id, b.machine.id));
}

/** A fixed order (not the locale's), so the output is the same on every machine. */
function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Named exports first: they name a machine better than `default`. */
function byExportName(a: string, b: string): number {
  return Number(a === 'default') - Number(b === 'default') || byCodeUnits(a, b);
}

/**
 * The TypeScript source when it is there: the build drops a top comment
 * whose import is type-only, and the description must not depend on how viz runs.
 */
function sourceOf(location: MachineLocation, file: string): string {
  const tsFile = file.replace(/\.js$/, '.ts');
  if (existsSync(join(location.packageRoot, 'machines', tsFile))) return `machines/${tsFile}`;
  const fromBuild = join(location.machinesDir, file).slice(location.packageRoot.length + 1);
  return fromBuild.split('\\').join('/');
}

function assertUniqueIds(modules: MachineModule[]): void {
  const byId = new Map<string, MachineModule>();
  for (const m of modules) {
    const other = byId.get(m.machine.id);
    if (other) {
      throw new Error(
        `two machines have the id "${m.machine.id}" (${other.source} ${other.exportName}, ${m.source} ${m.exportName}); each diagram is named by its machine's id, so give them different ids`,
      );
    }
    byId.set(m.machine.id, m);
  }
}

/** The text of the `/** … *\/` comment a file starts with (after a shebang), without the stars. */
export function topDocComment(text: string): string {
  const match = /^(?:#![^\n]*\n)?\s*\/\*\*([\s\S]*?)\*\//.exec(text);
  if (!match) return '';
  return (match[1] ?? '')
    .split('\n')
    .map((line) => line.replace(/^\s*\* ?/, '').trimEnd())
    .join('\n')
    .trim();
}

/** The first sentence of the first paragraph, on one line. */
export function firstSentence(text: string): string {
  const paragraph = (text.split(/\n\s*\n/)[0] ?? '').replace(/\s+/g, ' ').trim();
  const end = /[.!?](?=\s|$)/.exec(paragraph);
  return end ? paragraph.slice(0, end.index + 1) : paragraph;
}

/** The file name of a module's diagram. */
export function diagramFileName(module: MachineModule): string {
  const id = module.machine.id;
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(id)) {
    throw new Error(
      `${module.source} ${module.exportName}: machine id "${id}" cannot name a file; give the machine an id of letters, digits, ".", "_" or "-"`,
    );
  }
  return `${id}.mmd`;
}
