/**
 * Discord's OpenAPI spec as npm ships it (discord-api-spec, generated from
 * github.com/discord/discord-api-spec): the operation table from its `Paths`
 * type (path templates, path and query parameters, request body and the
 * response type per status) and the schemas from its Zod export, turned into
 * JSON Schema 2020-12 for ajv (the Zod export keeps the spec's snowflake
 * patterns, integer ranges and required fields, which the types lose).
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import * as z from 'zod';
import { createConverter, type JsonSchema, readDeclarations } from './ts-schema.js';

export interface SpecOperation {
  method: string;
  /** `/channels/{channel_id}/messages` */
  template: string;
  /** From the spec's response comments (`create_message`), when it has one. */
  operationId: string | undefined;
  pathParams: Record<string, JsonSchema>;
  /** `null` when the spec says the operation takes no query (`query?: never`). */
  query: { properties: Record<string, JsonSchema>; required: string[] } | null;
  requestBody: JsonSchema | undefined;
  /** By status key as the spec gives it: `200`, `204`, `429`, `4XX`. */
  responses: Record<string, JsonSchema>;
}

export interface OperationTable {
  operations: SpecOperation[];
  defs: Record<string, JsonSchema>;
  /** The operation a request is for, and its path parameters; undefined when the spec has none. */
  find(
    method: string,
    path: string,
  ): { operation: SpecOperation; params: Record<string, string> } | undefined;
}

/** The package's own folder (its `exports` resolve neither `.` for require nor package.json). */
export const discordSpecDir = fileURLToPath(
  new URL('../../../node_modules/discord-api-spec/', import.meta.url),
);
export const discordSpecTypes = join(discordSpecDir, 'build', 'discord-api-spec.ts');

/**
 * Every schema of the Zod export as JSON Schema, by the spec's name
 * (`MessageResponse`), referring to each other as `#/$defs/<name>`.
 */
async function zodDefinitions(): Promise<Record<string, JsonSchema>> {
  const specifier = 'discord-api-spec/zod';
  const module = (await import(specifier)) as Record<string, unknown>;
  const registry = z.registry<{ id: string }>();
  for (const [key, value] of Object.entries(module)) {
    if (key.endsWith('Schema') && typeof value === 'object' && value !== null && '_zod' in value)
      registry.add(value as z.ZodType, { id: key.slice(0, -'Schema'.length) });
  }
  const { schemas } = z.toJSONSchema(registry, {
    target: 'draft-2020-12',
    // Input: what the spec accepts, unknown keys included (the spec's objects are open).
    io: 'input',
    cycles: 'ref',
    unrepresentable: 'any',
    uri: (id) => `#/$defs/${id}`,
  });
  const defs: Record<string, JsonSchema> = {};
  for (const [name, schema] of Object.entries(schemas)) {
    const { $id: _id, $schema: _schema, ...rest } = schema as Record<string, unknown>;
    defs[name] = dropDateTimePatterns(rest) as JsonSchema;
  }
  return defs;
}

/**
 * The spec says `format: date-time` (RFC 3339); Zod writes its own regex
 * beside it, which refuses the offset form Discord sends
 * (`2025-01-01T12:00:00.000000+00:00`). The format is the spec's: ajv-formats
 * checks it; the regex goes.
 */
function dropDateTimePatterns(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(dropDateTimePatterns);
  if (typeof value !== 'object' || value === null) return value;
  const entries = Object.entries(value).map(([k, v]) => [k, dropDateTimePatterns(v)] as const);
  const object = Object.fromEntries(entries) as Record<string, unknown>;
  if (object.format === 'date-time') delete object.pattern;
  return object;
}

export async function loadDiscordSpec(): Promise<OperationTable> {
  const zodDefs = await zodDefinitions();
  const decls = readDeclarations(discordSpecTypes);
  const converter = createConverter([decls], (name) => zodDefs[name]);
  const paths = decls.byName.get('Paths');
  if (!paths || !ts.isInterfaceDeclaration(paths)) throw new Error('discord-api-spec: no Paths interface');
  const operations: SpecOperation[] = [];
  for (const pathMember of paths.members) {
    const template = memberName(pathMember);
    for (const methodMember of objectMembers(pathMember)) {
      const method = memberName(methodMember).toUpperCase();
      const parts = Object.fromEntries(objectMembers(methodMember).map((m) => [memberName(m), m]));
      const parameters = Object.fromEntries(objectMembers(parts.parameters!).map((m) => [memberName(m), m]));
      const pathParams = Object.fromEntries(
        objectMembers(parameters.path!).map((m) => [memberName(m), converter.schemaOf(typeOf(m))]),
      );
      const queryMembers = objectMembers(parameters.query!);
      const query =
        typeOf(parameters.query!).kind === ts.SyntaxKind.NeverKeyword
          ? null
          : {
              properties: Object.fromEntries(
                queryMembers.map((m) => [memberName(m), converter.schemaOf(typeOf(m))]),
              ),
              required: queryMembers.filter((m) => !m.questionToken).map(memberName),
            };
      const body = typeOf(parts.requestBody!);
      const responses: Record<string, JsonSchema> = {};
      let operationId: string | undefined;
      for (const r of objectMembers(parts.responses!)) {
        responses[memberName(r)] = converter.schemaOf(typeOf(r));
        operationId ??= /response for (\w+)/.exec(
          ts
            .getJSDocCommentsAndTags(r)
            .map((d) => d.getText())
            .join(' '),
        )?.[1];
      }
      operations.push({
        method,
        template,
        operationId,
        pathParams,
        query,
        requestBody: body.kind === ts.SyntaxKind.UndefinedKeyword ? undefined : converter.schemaOf(body),
        responses,
      });
    }
  }
  const matchers = operations.map((operation) => ({ operation, ...templateMatcher(operation.template) }));
  return {
    operations,
    // The Zod export's definitions refer to each other directly: all of them go in.
    defs: { ...zodDefs, ...converter.defs },
    find(method, path) {
      // A literal segment beats a parameter (`/users/@me` over `/users/{user_id}`): fewest parameters first.
      const hits = matchers
        .filter((m) => m.operation.method === method)
        .map((m) => ({ m, match: m.regex.exec(path) }))
        .filter((h) => h.match !== null)
        .sort((a, b) => a.m.names.length - b.m.names.length);
      const hit = hits[0];
      if (!hit) return undefined;
      const params = Object.fromEntries(
        hit.m.names.map((n, i) => [n, decodeURIComponent(hit.match![i + 1]!)]),
      );
      return { operation: hit.m.operation, params };
    },
  };
}

function templateMatcher(template: string): { regex: RegExp; names: string[] } {
  const names: string[] = [];
  const source = template
    .split('/')
    .map((segment) => {
      const param = /^\{(\w+)\}$/.exec(segment);
      if (!param) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(param[1]!);
      return '([^/]+)';
    })
    .join('/');
  return { regex: new RegExp(`^${source}$`), names };
}

function memberName(m: ts.TypeElement): string {
  const name = m.name;
  if (name && (ts.isIdentifier(name) || ts.isStringLiteral(name))) return name.text;
  throw new Error('discord-api-spec: a member without a plain name');
}

function typeOf(m: ts.TypeElement): ts.TypeNode {
  if (ts.isPropertySignature(m) && m.type) return m.type;
  throw new Error(`discord-api-spec: ${memberName(m)} has no type`);
}

/** The members of a property whose type is an object literal; none for `never` or `undefined`. */
function objectMembers(m: ts.TypeElement): ts.TypeElement[] {
  const type = typeOf(m);
  return ts.isTypeLiteralNode(type) ? [...type.members] : [];
}
