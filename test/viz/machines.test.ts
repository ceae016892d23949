/**
 * Every machine in machines/ (found the way `npm run viz` finds them, with
 * no list kept here) renders to a well-formed diagram showing every one of
 * its states (spec: actor-runtime issue item 8, "one Mermaid diagram per machine").
 */
import { describe, expect, it } from 'vitest';
import type { AnyStateNode } from 'xstate';
import { loadMachineModules, locateMachines } from '../../src/viz/machine-modules.js';
import { machineToMermaid } from '../../src/viz/mermaid.js';
import { readDiagram } from './mermaid-shape.js';

const modules = await loadMachineModules(locateMachines());

function descendants(node: AnyStateNode): AnyStateNode[] {
  return Object.values(node.states as Record<string, AnyStateNode>).flatMap((c) => [c, ...descendants(c)]);
}

describe('the machines in machines/', () => {
  it('are found without a list: at least the turn, delivery, space and runtime machines', () => {
    const ids = modules.map((m) => m.machine.id);
    expect(ids).toEqual(expect.arrayContaining(['turn', 'delivery', 'space', 'runtime']));
    for (const m of modules) expect(m.source).toMatch(/^machines\/[^/]+\.machine\.ts$/);
  });

  it.each(modules.map((m) => [m.machine.id, m] as const))(
    '%s renders with every state shown',
    (_id, module) => {
      const shape = readDiagram(machineToMermaid(module.machine));
      expect(shape.problems).toEqual([]);
      const labels = [...shape.labels.values()];
      for (const node of descendants(module.machine.root)) {
        expect(labels, `state ${node.id}`).toContain(node.key);
      }
      const stateCount =
        descendants(module.machine.root).length + (module.machine.root.type === 'parallel' ? 1 : 0);
      const boxCount = labels.filter((l) => l.startsWith('any ')).length;
      expect(shape.labels.size).toBe(stateCount + boxCount);
    },
  );
});
