/**
 * Validating recorded exchanges with ajv against one spec's definitions, and
 * sorting what fails into violations and known errata (a spec contradicted by
 * the platform's own docs or SDK: reported, not failed).
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { Exchange } from './recording-proxy.js';
import type { JsonSchema } from './ts-schema.js';

export type Part = 'operation' | 'path' | 'query' | 'request' | 'response' | 'headers';

export interface Finding {
  /** `PATCH /api/v10/channels/…/messages/… → 200` */
  exchange: string;
  /** The spec's operation (`update_message`, `chat.update`, `spaces.messages.patch`) when known. */
  operation: string;
  part: Part;
  /** ajv's instance path and message, or what is missing. */
  message: string;
}

export interface Erratum {
  id: string;
  /** What the spec says, what the platform does, and where the platform says so. */
  says: string;
  source: string;
  matches(finding: Finding): boolean;
}

export interface Sorted {
  violations: Finding[];
  errata: { erratum: string; finding: Finding }[];
}

export function sortFindings(findings: Finding[], errata: readonly Erratum[]): Sorted {
  const sorted: Sorted = { violations: [], errata: [] };
  for (const finding of findings) {
    const erratum = errata.find((e) => e.matches(finding));
    if (erratum) sorted.errata.push({ erratum: erratum.id, finding });
    else sorted.violations.push(finding);
  }
  return sorted;
}

/** One spec's definitions, compiled once; a schema is validated against them as a fragment of one document. */
export interface SchemaChecker {
  /** ajv's errors as `path: message` lines; empty when `value` conforms. */
  check(schema: JsonSchema, value: unknown): string[];
}

export function createChecker(id: string, defs: Record<string, JsonSchema>): SchemaChecker {
  // strict off: the converted specs carry keywords ajv's strict mode rejects (`format` on integers, OpenAPI's own).
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  addFormats.default(ajv);
  // The definitions are one document, compiled once; a fragment points into it by the document's id.
  ajv.addSchema({ $id: id, $defs: defs });
  const compiled = new Map<JsonSchema, ValidateFunction>();
  return {
    check(schema, value) {
      let validate = compiled.get(schema);
      if (!validate) {
        const rooted = JSON.parse(JSON.stringify(asObject(schema)).replaceAll('"#/$defs/', `"${id}#/$defs/`));
        validate = ajv.compile(rooted);
        compiled.set(schema, validate);
      }
      return validate(value) ? [] : (validate.errors ?? []).map(describe);
    },
  };
}

function asObject(schema: JsonSchema): Record<string, unknown> {
  if (schema === true) return {};
  return schema === false ? { not: {} } : schema;
}

function describe(error: ErrorObject): string {
  const where = error.instancePath === '' ? '(root)' : error.instancePath;
  const extra =
    error.keyword === 'required'
      ? ''
      : error.keyword === 'additionalProperties'
        ? ` (${String(error.params.additionalProperty)})`
        : '';
  return `${where}: ${error.message ?? error.keyword}${extra}`;
}

export function describeExchange(x: Exchange): string {
  return `${x.method} ${x.path} → ${x.status}`;
}

export function jsonOrText(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The response schema for a status: exact (`429`), else its class (`4XX`), else `default`. */
export function responseFor(responses: Record<string, JsonSchema>, status: number): JsonSchema | undefined {
  return responses[String(status)] ?? responses[`${String(status)[0]}XX`] ?? responses.default;
}

/** Findings grouped by operation, part and message, with how many exchanges had each: what a failure shows. */
export function summarize(findings: Finding[]): string[] {
  const counts = new Map<string, number>();
  for (const f of findings) {
    const key = `${f.operation} ${f.part}: ${f.message}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].map(([key, n]) => `${key} (×${n})`);
}
