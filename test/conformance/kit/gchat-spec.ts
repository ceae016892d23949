/**
 * Google Chat's API as googleapis ships it, generated from Google's discovery
 * document (chat/v1): the methods (HTTP method, URL template, path
 * parameters) from build/src/apis/chat/v1.js, each method's parameters,
 * request body and response type from v1.d.ts, and the `Schema$*` types
 * turned into JSON Schema by ts-schema.ts.
 *
 * What the generated client drops, and so is not checked: the discovery
 * document's parameter `pattern`s (a `{+name}` is matched by the resource's
 * own path, `spaces/*` `/messages/*`, as Google's resource names go), enum
 * values (typed as plain strings), and formats (`google-datetime`, int64 as
 * string).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { createConverter, type JsonSchema, readDeclarations } from './ts-schema.js';

export const googleapisDir = fileURLToPath(new URL('../../../node_modules/googleapis/', import.meta.url));
export const chatClientJs = join(googleapisDir, 'build/src/apis/chat/v1.js');
export const chatClientTypes = join(googleapisDir, 'build/src/apis/chat/v1.d.ts');

export interface GchatMethod {
  /** `spaces.messages.create` */
  id: string;
  httpMethod: string;
  /** `/v1/{+parent}/messages` */
  template: string;
  pathParams: string[];
  /** Every query parameter the method takes (the standard ones included). */
  query: Record<string, JsonSchema>;
  requestBody: JsonSchema | undefined;
  response: JsonSchema | undefined;
}

export interface GchatSpec {
  methods: GchatMethod[];
  /**
   * Closed: an object has only the fields the API defines. Google refuses a
   * request with another ("Unknown name"), and its answers are what the
   * discovery document describes, so an emulator's extra field is made up.
   */
  defs: Record<string, JsonSchema>;
  find(httpMethod: string, path: string): GchatMethod | undefined;
}

const lowerFirst = (s: string) => s[0]!.toLowerCase() + s.slice(1);
const upperFirst = (s: string) => s[0]!.toUpperCase() + s.slice(1);

/** `Spaces$Messages` + `create` → its URL template, HTTP method and path parameters, read from the client's code. */
function readMethods(js: string): Omit<GchatMethod, 'query' | 'requestBody' | 'response'>[] {
  const found: Omit<GchatMethod, 'query' | 'requestBody' | 'response'>[] = [];
  const classes = js.split(/\n\s*class Resource\$/).slice(1);
  for (const body of classes) {
    const resource = /^(\S+) \{/.exec(body)?.[1];
    if (!resource) continue;
    const method =
      /\n {8}(\w+)\(paramsOrCallback[\s\S]*?url: \(rootUrl \+ '([^']+)'\)[\s\S]*?method: '(\w+)'[\s\S]*?pathParams: \[([^\]]*)\]/g;
    for (const m of body.matchAll(method)) {
      found.push({
        id: [...resource.split('$').map(lowerFirst), m[1]!].join('.'),
        template: m[2]!,
        httpMethod: m[3]!,
        pathParams: [...m[4]!.matchAll(/'(\w+)'/g)].map((p) => p[1]!),
      });
    }
  }
  return found;
}

/** The response type of `Resource$X.method(params?, options?)`: `Promise<GaxiosResponseWithHTTP2<Schema$Y>>`. */
function responseTypes(file: ts.SourceFile): Map<string, string> {
  const types = new Map<string, string>();
  const visit = (node: ts.Node) => {
    if (ts.isClassDeclaration(node) && node.name?.text.startsWith('Resource$')) {
      const resource = node.name.text.slice('Resource$'.length);
      for (const member of node.members) {
        if (!ts.isMethodDeclaration(member) || !member.type || !ts.isIdentifier(member.name)) continue;
        const schema = /GaxiosResponseWithHTTP2<(Schema\$\w+|\{\})>/.exec(member.type.getText())?.[1];
        if (schema) types.set(`${resource}.${member.name.text}`, schema);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return types;
}

export function loadGchatSpec(): GchatSpec {
  const decls = readDeclarations(chatClientTypes);
  const converter = createConverter([decls], undefined, { closed: true });
  const responses = responseTypes(decls.file);
  const methods: GchatMethod[] = readMethods(readFileSync(chatClientJs, 'utf8')).map((m) => {
    const parts = m.id.split('.');
    const resource = parts.slice(0, -1).map(upperFirst).join('$');
    const params = decls.byName.get(`Params$Resource$${resource}$${upperFirst(parts.at(-1)!)}`);
    const query: Record<string, JsonSchema> = {};
    let requestBody: JsonSchema | undefined;
    const collect = (decl: ts.Node | undefined) => {
      if (!decl || !ts.isInterfaceDeclaration(decl)) return;
      for (const h of decl.heritageClauses ?? [])
        for (const t of h.types)
          if (ts.isIdentifier(t.expression)) collect(decls.byName.get(t.expression.text));
      for (const member of decl.members) {
        if (!ts.isPropertySignature(member) || !member.type) continue;
        const name = (member.name as ts.Identifier | ts.StringLiteral).text;
        if (name === 'requestBody') requestBody = converter.schemaOf(member.type);
        else if (!m.pathParams.includes(name)) query[name] = converter.schemaOf(member.type);
      }
    };
    collect(params);
    const responseName = responses.get(`${resource}.${parts.at(-1)}`);
    const response =
      responseName === undefined ? undefined : responseName === '{}' ? true : converter.refTo(responseName);
    return { ...m, query, requestBody, response };
  });
  const matchers = methods.map((method) => ({ method, regex: templateRegex(method) }));
  return {
    methods,
    defs: converter.defs,
    find(httpMethod, path) {
      return matchers.find((m) => m.method.httpMethod === httpMethod && m.regex.test(path))?.method;
    },
  };
}

/**
 * A method's path as a regex. `{+name}` is the resource's own name
 * (`spaces.messages` → `spaces/[^/]+/messages/[^/]+`), `{+parent}` its
 * collection's parent (`spaces/[^/]+`), as Google's resource names go.
 */
function templateRegex(method: Omit<GchatMethod, 'query' | 'requestBody' | 'response'>): RegExp {
  const collections = method.id.split('.').slice(0, -1);
  const own = collections.map((c) => `${c}/[^/]+`);
  const shape: Record<string, string> = { name: own.join('/'), parent: own.slice(0, -1).join('/') };
  const source = method.template
    .split(/(\{\+?\w+\})/)
    .map((part) => {
      const param = /^\{\+?(\w+)\}$/.exec(part)?.[1];
      if (param === undefined) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      return shape[param] ?? '[^/]+';
    })
    .join('');
  return new RegExp(`^${source}$`);
}
