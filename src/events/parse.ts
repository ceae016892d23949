import type { z } from 'zod';
import type { PlatformRegistry } from '../registry/registry.js';
import { jsonErrorOf } from './json-error.js';
import { RUN_EVENT_TYPES, type RunEvent, type RunEventType, runEventSchemaFor } from './schema.js';

/**
 * Run-event parsing at the ingest boundary (docs/events.md). Never throws:
 * every input yields an event or an error that says where and what is wrong,
 * e.g. `tool_result.ok: expected a boolean, got "yes"`.
 */
export type ParseResult = { ok: true; event: RunEvent } | { ok: false; error: string };

export interface RejectedLine {
  /** NDJSON: the 1-based line number. JSON array body: the 0-based index of the item. */
  line: number;
  error: string;
}

export interface ParsedEvents {
  events: RunEvent[];
  rejected: RejectedLine[];
}

/** Scopes without a `turnId` are only `inbound` and events a subagent emitted without one. */
const TURN_ID_OPTIONAL = new Set<string>(['inbound']);

export interface ParseOptions {
  /**
   * The platforms whose spaces are accepted, each space checked against its
   * platform's own id pattern. Default: any platform-prefixed space.
   */
  platforms?: PlatformRegistry;
}

type SchemaByType = Map<string, z.ZodType<RunEvent>>;
const schemasByRegistry = new WeakMap<PlatformRegistry, SchemaByType>();
let anyPlatformSchemas: SchemaByType | undefined;

function schemasOf(platforms: PlatformRegistry | undefined): SchemaByType {
  let schemas = platforms === undefined ? anyPlatformSchemas : schemasByRegistry.get(platforms);
  if (schemas === undefined) {
    schemas = new Map(
      runEventSchemaFor(platforms).options.map((schema) => [
        schema.shape.type.value,
        schema as z.ZodType<RunEvent>,
      ]),
    );
    if (platforms === undefined) anyPlatformSchemas = schemas;
    else schemasByRegistry.set(platforms, schemas);
  }
  return schemas;
}

/** One event: a JSON text, or a value already parsed from JSON. */
export function parseRunEvent(json: unknown, opts: ParseOptions = {}): ParseResult {
  const schemas = schemasOf(opts.platforms);
  if (typeof json !== 'string') return validateSafely(json, schemas, opts.platforms);
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (err) {
    return { ok: false, error: `invalid JSON: ${jsonErrorOf(err)}` };
  }
  return validateSafely(value, schemas, opts.platforms);
}

/** NDJSON: one event per line; blank lines are skipped; line numbers are 1-based. */
export function parseRunEvents(ndjson: string, opts: ParseOptions = {}): ParsedEvents {
  const result: ParsedEvents = { events: [], rejected: [] };
  const lines = ndjson.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (line.trim() === '') continue;
    collect(result, parseRunEvent(line, opts), i + 1, `line ${i + 1}`);
  }
  return result;
}

/**
 * A JSON body: an array of events (each rejected item reported with its
 * 0-based index as `line`) or a single event object.
 */
export function parseRunEventBatch(value: unknown, opts: ParseOptions = {}): ParsedEvents {
  const schemas = schemasOf(opts.platforms);
  const result: ParsedEvents = { events: [], rejected: [] };
  if (Array.isArray(value)) {
    value.forEach((item, index) => {
      // An item is already parsed: a string item is a wrong value, not JSON text to parse again.
      collect(result, validateSafely(item, schemas, opts.platforms), index, `index ${index}`);
    });
  } else if (isObject(value)) {
    collect(result, validateSafely(value, schemas, opts.platforms), 0, 'body');
  } else {
    result.rejected.push({
      line: 0,
      error: `body: expected a JSON array of run events or one event object, got ${describeValue(value)}`,
    });
  }
  return result;
}

function collect(result: ParsedEvents, parsed: ParseResult, line: number, where: string): void {
  if (parsed.ok) result.events.push(parsed.event);
  else result.rejected.push({ line, error: `${where}: ${parsed.error}` });
}

function validateSafely(
  value: unknown,
  schemas: SchemaByType,
  platforms: PlatformRegistry | undefined,
): ParseResult {
  try {
    const result = validate(value, schemas);
    if (!result.ok) return result;
    const problem = platformProblem(result.event, platforms);
    return problem === undefined ? result : { ok: false, error: problem };
  } catch (err) {
    // A value built in code may have throwing getters or proxies: rejected, never thrown.
    return { ok: false, error: `could not read the event: ${errorMessage(err)}` };
  }
}

/** What the event's platform cannot show: a `question` with more options than a card has buttons. */
function platformProblem(event: RunEvent, platforms: PlatformRegistry | undefined): string | undefined {
  if (event.type !== 'question' || platforms === undefined) return undefined;
  const platform = platforms.forSpace(event.space);
  const max = platform.capabilities.maxButtons;
  if (max === undefined || event.options.length <= max) return undefined;
  return `question.options: ${event.options.length} options; ${platform.displayName} shows at most ${max} buttons on a card`;
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : typeof err === 'string' ? err : 'unknown error';
}

function validate(value: unknown, schemaByType: SchemaByType): ParseResult {
  if (!isObject(value)) {
    return { ok: false, error: `expected a JSON object (one run event), got ${describeValue(value)}` };
  }
  const type = value.type;
  const known = RUN_EVENT_TYPES.join(', ');
  if (type === undefined) return { ok: false, error: `missing "type" (one of: ${known})` };
  const schema = typeof type === 'string' ? schemaByType.get(type) : undefined;
  if (schema === undefined) {
    return { ok: false, error: `unknown type ${describeValue(type)}; known types: ${known}` };
  }
  const parsed = schema.safeParse(value);
  if (parsed.success) return { ok: true, event: parsed.data };
  const errors = parsed.error.issues.map((issue) => describeIssue(type as RunEventType, value, issue));
  return { ok: false, error: errors.join('; ') };
}

function describeIssue(type: RunEventType, event: unknown, issue: z.core.$ZodIssue): string {
  const got = valueAt(event, issue.path);
  if (issue.path.length === 1 && issue.path[0] === 'turnId' && got === undefined) {
    return TURN_ID_OPTIONAL.has(type)
      ? `${type}: turnId must be a non-empty string when given`
      : `${type}: missing turnId (required on ${type} events)`;
  }
  const field = `${type}${formatPath(issue.path)}`;
  const expected = describeExpected(issue);
  if (got === undefined) return `${field}: missing (expected ${expected})`;
  return `${field}: expected ${expected}, got ${describeValue(got)}`;
}

function describeExpected(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      return article(
        issue.expected === 'int' ? 'integer' : issue.expected === 'record' ? 'object' : issue.expected,
      );
    case 'too_small':
      if (issue.origin === 'array') return issue.message;
      if (issue.origin === 'string') {
        return issue.minimum === 1 ? 'a non-empty string' : `a string of at least ${issue.minimum} chars`;
      }
      return `a number ${issue.inclusive ? '>=' : '>'} ${issue.minimum}`;
    case 'too_big':
      if (issue.origin === 'string') return `a string of at most ${issue.maximum} chars`;
      return `a number ${issue.inclusive ? '<=' : '<'} ${issue.maximum}`;
    case 'invalid_union':
      return UNION_EXPECTED[issue.path.length > 0 ? String(issue.path[0]) : ''] ?? issue.message;
    case 'invalid_value':
      return `one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    default:
      return issue.message;
  }
}

/** What a union field takes, by its top-level field name (zod only says "Invalid input"). */
const UNION_EXPECTED: Readonly<Record<string, string>> = {
  options: 'a non-empty string or an object {label, selectedLabel?, value?}',
};

function article(noun: string): string {
  return /^[aeiou]/.test(noun) ? `an ${noun}` : `a ${noun}`;
}

function formatPath(path: readonly PropertyKey[]): string {
  return path
    .map((segment) =>
      typeof segment === 'number'
        ? `[${segment}]`
        : typeof segment === 'string' && /^[A-Za-z_$][\w$]*$/.test(segment)
          ? `.${segment}`
          : `[${JSON.stringify(String(segment))}]`,
    )
    .join('');
}

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let at: unknown = value;
  for (const segment of path) {
    if (at === null || typeof at !== 'object') return undefined;
    at = (at as Record<PropertyKey, unknown>)[segment];
  }
  return at;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A short, safe rendering of what was received: `"yes"`, `42`, `null`, `an array`. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);
    case 'number':
    case 'boolean':
      return String(value);
    case 'undefined':
      return 'nothing';
    case 'object':
      return 'an object';
    default:
      return `a ${typeof value}`;
  }
}
