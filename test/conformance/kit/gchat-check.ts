/**
 * One recorded Google Chat exchange against the chat/v1 API as googleapis
 * ships it (gchat-spec.ts): the method exists, the query names only its
 * parameters, the JSON body matches its request type and a success its
 * response type. An error has Google's shape (cloud.google.com/apis/design/errors:
 * `{"error": {"code", "message", "status"}}`, `code` the HTTP status, `status`
 * its canonical name), which the discovery document does not describe.
 */
import { describeExchange, type Erratum, type Finding, jsonOrText, type SchemaChecker } from './check.js';
import type { GchatSpec } from './gchat-spec.js';
import type { Exchange } from './recording-proxy.js';

/** google.rpc.Code names by the HTTP status Google maps them to (the design guide's table). */
const CANONICAL: Record<number, readonly string[]> = {
  400: ['INVALID_ARGUMENT', 'FAILED_PRECONDITION', 'OUT_OF_RANGE'],
  401: ['UNAUTHENTICATED'],
  403: ['PERMISSION_DENIED'],
  404: ['NOT_FOUND'],
  409: ['ABORTED', 'ALREADY_EXISTS'],
  429: ['RESOURCE_EXHAUSTED'],
  499: ['CANCELLED'],
  500: ['INTERNAL', 'UNKNOWN', 'DATA_LOSS'],
  501: ['NOT_IMPLEMENTED'],
  503: ['UNAVAILABLE'],
  504: ['DEADLINE_EXCEEDED'],
};

export const GOOGLE_ERROR_SCHEMA = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message', 'status'],
      properties: {
        code: { type: 'integer' },
        message: { type: 'string' },
        status: { type: 'string' },
        details: { type: 'array', items: { type: 'object', required: ['@type'] } },
      },
    },
  },
} as const;

/** None found so far: the generated client and Google's docs agree on what was exercised. */
export const GCHAT_ERRATA: readonly Erratum[] = [];

export function checkGchatExchange(spec: GchatSpec, checker: SchemaChecker, x: Exchange): Finding[] {
  const exchange = describeExchange(x);
  const findings: Finding[] = [];
  const method = spec.find(x.method, x.path);
  const add = (part: Finding['part'], message: string) =>
    findings.push({ exchange, operation: method?.id ?? '?', part, message });
  if (!method) {
    add('operation', 'no such method in chat/v1');
    return findings;
  }
  for (const key of Object.keys(x.query)) if (!(key in method.query)) add('query', `${key}: not a parameter`);
  const sent = jsonOrText(x.requestBody);
  if (method.requestBody === undefined) {
    if (sent !== undefined) add('request', 'a body where the method takes none');
  } else {
    for (const m of checker.check(method.requestBody, sent)) add('request', m);
  }
  const answered = jsonOrText(x.responseBody);
  if (x.status < 300) {
    if (method.response !== undefined)
      for (const m of checker.check(method.response, answered)) add('response', m);
    return findings;
  }
  for (const m of checker.check(GOOGLE_ERROR_SCHEMA, answered)) add('response', m);
  const error = (answered as { error?: { code?: unknown; status?: unknown } } | undefined)?.error;
  if (error && error.code !== x.status)
    add('response', `error.code ${String(error.code)} is not the HTTP status`);
  const names = CANONICAL[x.status];
  if (error && names && !names.includes(String(error.status)))
    add(
      'response',
      `error.status ${String(error.status)} is not Google's for ${x.status} (${names.join(', ')})`,
    );
  if (!String(x.responseHeaders['content-type'] ?? '').startsWith('application/json'))
    add('headers', 'an error that is not application/json');
  return findings;
}
