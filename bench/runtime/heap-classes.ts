/**
 * What a heap holds, by kind: a V8 heap snapshot (after a full GC) summed
 * by node type and constructor name (`object Object`, `object Set`,
 * `closure`, `string`, `array` …), so two snapshots say what the objects
 * made between them are (issue 24 item 3: what dominates a live turn's
 * heap). Self sizes only: a class's row is what its own objects take, not
 * what they keep alive.
 */
import { getHeapSnapshot } from 'node:v8';

export interface HeapClass {
  count: number;
  bytes: number;
}

interface SnapshotJson {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
}

/** Node types whose name is their content, not a class: summed under the type alone. */
const NAMELESS = new Set(['string', 'concatenated string', 'sliced string', 'number', 'code', 'hidden']);

/** The live heap by `type name`, after `gc` ran. */
export async function heapClasses(gc: () => void): Promise<Map<string, HeapClass>> {
  gc();
  gc();
  const chunks: string[] = [];
  for await (const chunk of getHeapSnapshot()) chunks.push(String(chunk));
  const snapshot = JSON.parse(chunks.join('')) as SnapshotJson;
  chunks.length = 0;
  const fields = snapshot.snapshot.meta.node_fields;
  const types = snapshot.snapshot.meta.node_types[0];
  const [typeAt, nameAt, sizeAt] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f)) as [
    number,
    number,
    number,
  ];
  const classes = new Map<string, HeapClass>();
  const { nodes, strings } = snapshot;
  for (let i = 0; i < nodes.length; i += fields.length) {
    const type = types[nodes[i + typeAt]!] ?? '?';
    const key = NAMELESS.has(type) ? type : `${type} ${strings[nodes[i + nameAt]!]}`;
    const entry = classes.get(key);
    if (entry) {
      entry.count += 1;
      entry.bytes += nodes[i + sizeAt]!;
    } else classes.set(key, { count: 1, bytes: nodes[i + sizeAt]! });
  }
  return classes;
}

/** What `after` holds more than `before`, per class, largest first. */
export function classGrowth(
  before: Map<string, HeapClass>,
  after: Map<string, HeapClass>,
): { name: string; count: number; bytes: number }[] {
  const rows = [...after].map(([name, a]) => {
    const b = before.get(name) ?? { count: 0, bytes: 0 };
    return { name, count: a.count - b.count, bytes: a.bytes - b.bytes };
  });
  return rows.sort((x, y) => y.bytes - x.bytes);
}
