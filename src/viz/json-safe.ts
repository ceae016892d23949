/**
 * A small, JSON-safe copy of an arbitrary value for a trace line: actor refs
 * become `[actor <sessionId>]`, errors their name and message, functions and
 * symbols are dropped, cycles cut, and depth, breadth and string length are
 * bounded, so one huge event cannot make a huge (or a failing) trace line.
 */
export interface JsonSafeLimits {
  maxDepth: number;
  /** Items kept per array and keys per object. */
  maxItems: number;
  maxStringLength: number;
}

export const DEFAULT_JSON_SAFE_LIMITS: JsonSafeLimits = { maxDepth: 4, maxItems: 20, maxStringLength: 200 };

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

export function toJsonSafe(value: unknown, limits: JsonSafeLimits = DEFAULT_JSON_SAFE_LIMITS): JsonValue {
  return copy(value, limits, 0, new WeakSet());
}

function copy(value: unknown, limits: JsonSafeLimits, depth: number, seen: WeakSet<object>): JsonValue {
  if (value === null || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
  if (typeof value === 'string') return truncate(value, limits.maxStringLength);
  if (typeof value === 'bigint') return value.toString();
  if (typeof value !== 'object') return null; // undefined, functions and symbols have no JSON form
  if (isActorRef(value)) return `[actor ${value.sessionId}]`;
  if (value instanceof Error)
    return { name: value.name, message: truncate(value.message, limits.maxStringLength) };
  if (seen.has(value)) return '[circular]';
  if (depth >= limits.maxDepth) return Array.isArray(value) ? '[array]' : '[object]';
  seen.add(value);
  const result = Array.isArray(value)
    ? copyArray(value, limits, depth, seen)
    : copyObject(value, limits, depth, seen);
  seen.delete(value);
  return result;
}

function copyArray(
  items: unknown[],
  limits: JsonSafeLimits,
  depth: number,
  seen: WeakSet<object>,
): JsonValue[] {
  const kept = items.slice(0, limits.maxItems).map((item) => copy(item, limits, depth + 1, seen));
  if (items.length > limits.maxItems) kept.push(`… ${items.length - limits.maxItems} more`);
  return kept;
}

function copyObject(
  object: object,
  limits: JsonSafeLimits,
  depth: number,
  seen: WeakSet<object>,
): { [key: string]: JsonValue } {
  // Like JSON.stringify, fields without a JSON form are left out (in arrays they become null).
  const entries = Object.entries(object).filter(
    ([, v]) => v !== undefined && typeof v !== 'function' && typeof v !== 'symbol',
  );
  const result: { [key: string]: JsonValue } = {};
  for (const [key, v] of entries.slice(0, limits.maxItems)) result[key] = copy(v, limits, depth + 1, seen);
  if (entries.length > limits.maxItems) result['…'] = `${entries.length - limits.maxItems} more keys`;
  return result;
}

function isActorRef(value: object): value is { sessionId: string } {
  return (
    typeof (value as { sessionId?: unknown }).sessionId === 'string' &&
    typeof (value as { send?: unknown }).send === 'function'
  );
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length - max} more chars)`;
}
