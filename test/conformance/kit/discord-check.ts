/**
 * One recorded Discord exchange against Discord's OpenAPI spec
 * (discord-api-spec) and its rate-limit docs: the operation is in the spec,
 * path parameters, query and JSON body match it, the answer matches the
 * schema for its status, a 204 has no body, and a 429 carries the headers
 * Discord sends (discord.com/developers/docs/topics/rate-limits: `Retry-After`
 * and `X-RateLimit-Scope`; a per-route one also `X-RateLimit-Limit`,
 * `-Remaining`, `-Reset`, `-Reset-After` and `-Bucket`, which @discordjs/rest
 * reads to pace itself; a global one `X-RateLimit-Global`).
 */
import {
  describeExchange,
  type Erratum,
  type Finding,
  jsonOrText,
  responseFor,
  type SchemaChecker,
} from './check.js';
import type { OperationTable } from './discord-spec.js';
import type { Exchange } from './recording-proxy.js';

const API_PREFIX = '/api/v10';
const BUCKET_HEADERS = [
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'x-ratelimit-reset-after',
  'x-ratelimit-bucket',
];

export const DISCORD_ERRATA: readonly Erratum[] = [
  {
    id: 'discord-429-code',
    says: "The spec's RatelimitedResponse extends Error, so `code` is required on a 429's body; Discord's docs list `code` as optional (\"an error code for some limits\") and their example 429 has none.",
    source:
      'https://discord.com/developers/docs/topics/rate-limits#exceeding-a-rate-limit-rate-limit-response-structure',
    matches: (f) =>
      f.part === 'response' && / → 429$/.test(f.exchange) && /required property 'code'/.test(f.message),
  },
];

export function checkDiscordExchange(table: OperationTable, checker: SchemaChecker, x: Exchange): Finding[] {
  const exchange = describeExchange(x);
  const findings: Finding[] = [];
  const add = (operation: string, part: Finding['part'], message: string) =>
    findings.push({ exchange, operation, part, message });
  if (!x.path.startsWith(`${API_PREFIX}/`)) {
    add('?', 'operation', `not under ${API_PREFIX}`);
    return findings;
  }
  const found = table.find(x.method, x.path.slice(API_PREFIX.length));
  if (!found) {
    add('?', 'operation', 'no such operation in the spec');
    return findings;
  }
  const { operation, params } = found;
  const name = operation.operationId ?? `${operation.method} ${operation.template}`;
  for (const [param, value] of Object.entries(params)) {
    const schema = operation.pathParams[param];
    for (const m of schema === undefined ? [] : checker.check(schema, value))
      add(name, 'path', `${param} ${m}`);
  }
  for (const key of Object.keys(x.query)) {
    if (!operation.query || !(key in operation.query.properties))
      add(name, 'query', `${key}: not a parameter`);
  }
  for (const key of operation.query?.required ?? []) {
    if (!(key in x.query)) add(name, 'query', `${key}: required`);
  }
  const sent = jsonOrText(x.requestBody);
  if (operation.requestBody === undefined) {
    if (sent !== undefined) add(name, 'request', 'a body where the spec takes none');
  } else if (sent !== undefined) {
    for (const m of checker.check(operation.requestBody, sent)) add(name, 'request', m);
  }
  const schema = responseFor(operation.responses, x.status);
  const answered = jsonOrText(x.responseBody);
  if (schema === undefined) add(name, 'response', `status ${x.status} is not one the spec lists`);
  else if (x.status === 204) {
    if (answered !== undefined) add(name, 'response', 'a 204 with a body');
  } else for (const m of checker.check(schema, answered)) add(name, 'response', m);
  if (x.status === 429) {
    const global = x.responseHeaders['x-ratelimit-global'] === 'true';
    const needed = ['retry-after', 'x-ratelimit-scope', ...(global ? [] : BUCKET_HEADERS)];
    for (const header of needed) {
      if (x.responseHeaders[header] === undefined) add(name, 'headers', `429 without ${header}`);
    }
  }
  if (x.status >= 400 && !String(x.responseHeaders['content-type'] ?? '').startsWith('application/json'))
    add(name, 'headers', 'an error that is not application/json');
  return findings;
}
