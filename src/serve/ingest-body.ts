/**
 * One `POST /v1/events` body → one `runtime.ingestBatch` of its events (docs/http-api.md).
 * NDJSON is split into lines (1-based line numbers); a JSON array is ingested
 * item by item (0-based index as `line`); a JSON object is one event (`line` 0).
 * Every event goes through `ingestBatch`, which accepts or refuses each on
 * its own (keeping each refused one as a dead letter) and applies the
 * accepted ones in one pass; what is refused before reaching it (a body that is empty or not
 * JSON, a string where an event object should be) goes to `deadLetter`.
 */

import { jsonErrorOf } from '../events/json-error.js';
import type { RejectedLine } from '../events/parse.js';
import { describeValue } from '../events/parse.js';
import { jsonDepth, MAX_JSON_DEPTH, redactRawText } from '../events/scrub.js';
import type { IngestResult } from '../runtime.js';

export type BodyFormat = 'ndjson' | 'json';

export const NDJSON_TYPES = ['application/x-ndjson', 'application/ndjson'] as const;
export const JSON_TYPE = 'application/json';

export interface BodyIngestOutcome {
  accepted: number;
  rejected: RejectedLine[];
  /** Set when the body as a whole is unusable (empty, not JSON, not an array or object): nothing was ingested. */
  bodyError?: string;
}

/** `application/x-ndjson; charset=utf-8` → `ndjson`; unknown or missing → undefined. */
export function bodyFormatOf(contentType: string | undefined): BodyFormat | undefined {
  const mediaType = contentType?.split(';', 1)[0]?.trim().toLowerCase();
  if (mediaType === undefined) return undefined;
  if ((NDJSON_TYPES as readonly string[]).includes(mediaType)) return 'ndjson';
  if (mediaType === JSON_TYPE) return 'json';
  return undefined;
}

export interface BodyIngestDeps {
  /** One result per input, in order (`Runtime.ingestBatch`). */
  ingestBatch(inputs: readonly unknown[]): IngestResult[];
  /** Keeps what was refused before it reached `ingest`. */
  deadLetter(reason: string, payload: string): void;
}

export function ingestBody(text: string, format: BodyFormat, deps: BodyIngestDeps): BodyIngestOutcome {
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const outcome = format === 'ndjson' ? ingestNdjson(body, deps) : ingestJson(body, deps);
  if (outcome.bodyError !== undefined) deps.deadLetter(outcome.bodyError, body);
  return outcome;
}

const EMPTY_BODY = 'empty body: send run events as NDJSON lines, a JSON array or one JSON object';

function ingestNdjson(body: string, { ingestBatch }: BodyIngestDeps): BodyIngestOutcome {
  const outcome: BodyIngestOutcome = { accepted: 0, rejected: [] };
  const lines = body.split('\n');
  const inputs: string[] = [];
  const lineNumbers: number[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] ?? '').replace(/\r$/, '');
    if (line.trim() === '') continue;
    inputs.push(line);
    lineNumbers.push(i + 1);
  }
  if (inputs.length === 0) return { ...outcome, bodyError: EMPTY_BODY };
  ingestBatch(inputs).forEach((result, n) => {
    const line = lineNumbers[n] as number;
    count(outcome, result, line, `line ${line}`);
  });
  return outcome;
}

function ingestJson(body: string, { ingestBatch, deadLetter }: BodyIngestDeps): BodyIngestOutcome {
  const outcome: BodyIngestOutcome = { accepted: 0, rejected: [] };
  if (body.trim() === '') return { ...outcome, bodyError: EMPTY_BODY };
  // An array's items are one level down: checked before parsing, so no item is applied when one is too deep.
  if (jsonDepth(body, MAX_JSON_DEPTH + 1) > MAX_JSON_DEPTH + 1) {
    return {
      ...outcome,
      bodyError: `body: JSON nested deeper than ${MAX_JSON_DEPTH} levels in an event (refused before parsing; nothing applied)`,
    };
  }
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (error) {
    return { ...outcome, bodyError: `body: invalid JSON: ${jsonErrorOf(error)}` };
  }
  if (Array.isArray(value)) {
    if (value.length === 0) return { ...outcome, bodyError: EMPTY_BODY };
    const items: unknown[] = [];
    const indexes: number[] = [];
    const byIndex = new Map<number, IngestResult>();
    value.forEach((item, index) => {
      // `ingest` reads a string as JSON text; an array item is already parsed, so a string is a wrong value.
      if (typeof item === 'string') {
        const error = `expected a JSON object (one run event), got ${describeValue(redactRawText(item))}`;
        deadLetter(error, JSON.stringify(item));
        byIndex.set(index, { ok: false, error });
      } else {
        items.push(item);
        indexes.push(index);
      }
    });
    const results = items.length > 0 ? ingestBatch(items) : [];
    results.forEach((result, n) => {
      byIndex.set(indexes[n] as number, result);
    });
    for (let index = 0; index < value.length; index++) {
      count(outcome, byIndex.get(index) as IngestResult, index, `index ${index}`);
    }
  } else if (typeof value === 'object' && value !== null) {
    count(outcome, ingestBatch([value])[0] as IngestResult, 0, 'body');
  } else {
    outcome.bodyError = `body: expected a JSON array of run events or one event object, got ${describeValue(value)}`;
  }
  return outcome;
}

function count(outcome: BodyIngestOutcome, result: IngestResult, line: number, where: string): void {
  if (result.ok) outcome.accepted++;
  else outcome.rejected.push({ line, error: `${where}: ${result.error}` });
}
