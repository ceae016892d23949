/**
 * Unknown config keys named with the key a person most likely meant: a
 * misspelt section (`"ingset": {"token": …}`) must never start serve
 * silently without it (issue 22.8).
 */

/** The zod internals this reads: every schema has `_zod.def` with its `type`. */
interface SchemaDef {
  type: string;
  innerType?: Walkable;
  in?: Walkable;
  shape?: Record<string, Walkable>;
  keyType?: Walkable;
  valueType?: Walkable;
  entries?: Record<string, unknown>;
}
interface Walkable {
  _zod: { def: SchemaDef };
}

/** Wrappers that hold one schema (a default, an optional, …). */
const WRAPPERS = new Set(['default', 'prefault', 'optional', 'nullable', 'readonly', 'catch', 'nonoptional']);

function unwrap(schema: Walkable): Walkable {
  let at = schema;
  for (let i = 0; i < 32; i++) {
    const def = at._zod.def;
    const next = WRAPPERS.has(def.type) ? def.innerType : def.type === 'pipe' ? def.in : undefined;
    if (next === undefined) return at;
    at = next;
  }
  return at;
}

/** The keys an object (or a record keyed by an enum) at `path` of `schema` knows; [] when none is known. */
export function knownKeysAt(schema: unknown, path: readonly PropertyKey[]): string[] {
  let at = unwrap(schema as Walkable);
  for (const key of path) {
    const def = at._zod.def;
    const next =
      def.type === 'object' ? def.shape?.[String(key)] : def.type === 'record' ? def.valueType : undefined;
    if (next === undefined) return [];
    at = unwrap(next);
  }
  const def = at._zod.def;
  if (def.type === 'object') return Object.keys(def.shape ?? {});
  if (def.type === 'record' && def.keyType !== undefined) {
    const keys = unwrap(def.keyType)._zod.def;
    if (keys.type === 'enum') return Object.keys(keys.entries ?? {});
  }
  return [];
}

/** Optimal string alignment distance: edits, with a swap of two neighbours counted as one. */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    const row: number[] = [i];
    for (let j = 1; j <= b.length; j++) {
      if (i === 0) {
        row.push(j);
        continue;
      }
      const above = rows[i - 1] as number[];
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(
        (above[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (above[j - 1] as number) + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, ((rows[i - 2] as number[])[j - 2] as number) + 1);
      }
      row.push(best);
    }
    rows.push(row);
  }
  return (rows[a.length] as number[])[b.length] as number;
}

/**
 * The known key nearest to `key` (case aside), when it is near enough to be
 * a slip: at most a third of the longer name's letters apart (at least 1),
 * or one name a prefix of the other (`jwks` for `jwksUrl`).
 */
export function nearestKey(key: string, known: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  const lower = key.toLowerCase();
  for (const name of known) {
    const candidate = name.toLowerCase();
    const distance = editDistance(lower, candidate);
    const near =
      distance <= Math.max(1, Math.floor(Math.max(lower.length, candidate.length) / 3)) ||
      (lower.length >= 3 && (candidate.startsWith(lower) || lower.startsWith(candidate)));
    if (near && (best === undefined || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}

/** One line per unknown key: its path, and the key meant (or the keys known there). */
export function unknownKeyLines(
  schema: unknown,
  path: readonly PropertyKey[],
  keys: readonly string[],
): string[] {
  const known = knownKeysAt(schema, path);
  return keys.map((key) => {
    const where = [...path.map(String), key].join('.');
    const meant = nearestKey(key, known);
    const hint =
      meant !== undefined
        ? ` (did you mean "${meant}"?)`
        : known.length > 0
          ? ` (known: ${known.join(', ')})`
          : '';
    return `${where}: unknown key "${key}"${hint}`;
  });
}
