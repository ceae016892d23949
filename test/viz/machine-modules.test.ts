/** Finding machine modules: where they are, what counts as a machine, how a file describes it. */
import { describe, expect, it } from 'vitest';
import { createMachine } from 'xstate';
import {
  diagramFileName,
  firstSentence,
  isStateMachine,
  locateMachines,
  type MachineModule,
  topDocComment,
} from '../../src/viz/machine-modules.js';

describe('locateMachines', () => {
  it('from source (tsx, vitest): machines/*.machine.ts under the package root', () => {
    expect(locateMachines('file:///repo/src/viz/machine-modules.ts')).toEqual({
      packageRoot: '/repo',
      machinesDir: '/repo/machines',
      extension: '.ts',
    });
  });

  it('from the build: dist/machines/*.machine.js, with the package root above dist/', () => {
    expect(locateMachines('file:///repo/dist/src/viz/machine-modules.js')).toEqual({
      packageRoot: '/repo',
      machinesDir: '/repo/dist/machines',
      extension: '.js',
    });
  });
});

describe('isStateMachine', () => {
  it('accepts machines, and look-alikes from another copy of xstate (.root and .config)', () => {
    const machine = createMachine({ id: 'm', initial: 'a', states: { a: {} } });
    expect(isStateMachine(machine)).toBe(true);
    expect(isStateMachine({ root: machine.root, config: machine.config })).toBe(true);
  });

  it('rejects everything else a machine module may export', () => {
    for (const value of [
      null,
      undefined,
      3,
      'turn',
      () => {},
      { root: {} },
      { config: {} },
      { root: 1, config: {} },
    ]) {
      expect(isStateMachine(value)).toBe(false);
    }
  });
});

describe('topDocComment and firstSentence', () => {
  it('reads the /** */ comment a file starts with, without the stars', () => {
    const text =
      '#!/usr/bin/env node\n/**\n * The turn machine: one actor per turn.\n *\n * More.\n */\nimport x from "y";\n';
    expect(topDocComment(text)).toBe('The turn machine: one actor per turn.\n\nMore.');
  });

  it('is empty when the file does not start with a doc comment', () => {
    expect(topDocComment('import x from "y";\n/** Later. */\n')).toBe('');
    expect(topDocComment('// line comment\n')).toBe('');
  });

  it('takes the first sentence of the first paragraph, on one line', () => {
    expect(firstSentence('The space supervisor: one per chat\nspace. It keeps settings.\n\nMore.')).toBe(
      'The space supervisor: one per chat space.',
    );
    // A dot inside a file name does not end the sentence.
    expect(firstSentence('Reads budget.protocol.ts and waits')).toBe('Reads budget.protocol.ts and waits');
    expect(firstSentence('')).toBe('');
  });
});

describe('diagramFileName', () => {
  const moduleWithId = (id: string): MachineModule => ({
    machine: createMachine({ id, initial: 'a', states: { a: {} } }),
    exportName: 'someMachine',
    source: 'machines/some.machine.ts',
    description: '',
  });

  it('names the diagram by the machine id', () => {
    expect(diagramFileName(moduleWithId('turn'))).toBe('turn.mmd');
  });

  it('refuses an id that cannot be a file name, naming the module and export', () => {
    expect(() => diagramFileName(moduleWithId('../escape'))).toThrow(
      'machines/some.machine.ts someMachine: machine id "../escape" cannot name a file',
    );
    // A machine without an id is called "(machine)" by xstate.
    expect(() => diagramFileName(moduleWithId(''))).toThrow('machine id "(machine)" cannot name a file');
  });
});
