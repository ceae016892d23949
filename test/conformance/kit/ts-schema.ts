/**
 * TypeScript declarations → JSON Schema (2020-12), for the spec sources that
 * npm ships as types: googleapis's chat/v1.d.ts (generated from Google's
 * discovery document), @slack/web-api's response types, and the operation
 * table (`Paths`) of discord-api-spec. Only the type forms those files use
 * are handled; any other form throws, naming it, so a spec update that brings
 * a new form is seen instead of silently accepted.
 *
 * A declared name becomes a `$ref` into `$defs` (so recursive types work).
 * `resolveExternal` may answer for a name first (Discord's named schemas come
 * from its Zod export); a name found nowhere is any value.
 */
import { readFileSync } from 'node:fs';
import ts from 'typescript';

export type JsonSchema = Record<string, unknown> | boolean;

export interface Declarations {
  /** Interfaces and type aliases by name, namespaces flattened. */
  byName: Map<string, ts.InterfaceDeclaration | ts.TypeAliasDeclaration>;
  file: ts.SourceFile;
}

/** Reads a .ts/.d.ts file's interfaces and type aliases (inside namespaces too). */
export function readDeclarations(path: string): Declarations {
  return parseDeclarations(path, readFileSync(path, 'utf8'));
}

export function parseDeclarations(name: string, text: string): Declarations {
  const file = ts.createSourceFile(name, text, ts.ScriptTarget.ES2022, true);
  const byName = new Map<string, ts.InterfaceDeclaration | ts.TypeAliasDeclaration>();
  const visit = (node: ts.Node) => {
    if (ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node)) byName.set(node.name.text, node);
    else if (ts.isModuleDeclaration(node) || ts.isModuleBlock(node) || ts.isSourceFile(node))
      ts.forEachChild(node, visit);
  };
  visit(file);
  return { byName, file };
}

export interface Converter {
  /** The schema of a type node, its named types in {@link defs}. */
  schemaOf(node: ts.TypeNode): JsonSchema;
  /** `{$ref}` to a declared name (converted on first use). */
  refTo(name: string): JsonSchema;
  /** Every definition converted so far, for a root schema's `$defs`. */
  defs: Record<string, JsonSchema>;
}

export interface ConverterOptions {
  /** Objects without an index signature refuse other keys (a request Google refuses with "Unknown name"). */
  closed?: boolean;
}

export function createConverter(
  decls: Declarations[],
  resolveExternal: (name: string) => JsonSchema | undefined = () => undefined,
  options: ConverterOptions = {},
): Converter {
  const defs: Record<string, JsonSchema> = {};
  const find = (name: string) => {
    for (const d of decls) {
      const found = d.byName.get(name);
      if (found) return found;
    }
    return undefined;
  };

  const refTo = (name: string): JsonSchema => {
    if (!(name in defs)) {
      defs[name] = true; // placeholder first: a recursive type refers to itself
      // An external definition (Discord's Zod export) wins: it keeps the spec's patterns and ranges.
      const decl = find(name);
      defs[name] = resolveExternal(name) ?? (decl ? declarationSchema(decl) : true);
    }
    return { $ref: `#/$defs/${name}` };
  };

  const members = (list: ts.NodeArray<ts.TypeElement>): Record<string, unknown> => {
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    let additional: JsonSchema | undefined;
    for (const m of list) {
      if (ts.isPropertySignature(m) && m.type?.kind === ts.SyntaxKind.UndefinedKeyword) {
        // `subtype: undefined`: absent on the wire (JSON has no undefined).
        properties[propertyName(m.name)] = false;
      } else if (ts.isPropertySignature(m) && m.type) {
        const key = propertyName(m.name);
        properties[key] = schemaOf(m.type);
        if (!m.questionToken) required.push(key);
      } else if (ts.isIndexSignatureDeclaration(m)) {
        additional = schemaOf(m.type);
      } else if (ts.isMethodSignature(m) || ts.isCallSignatureDeclaration(m)) {
        // Functions are not data: no wire form to check.
      } else {
        throw new Error(`unsupported member ${ts.SyntaxKind[m.kind]} at ${where(m)}`);
      }
    }
    return {
      type: 'object',
      properties,
      ...(required.length ? { required } : {}),
      ...(additional === undefined
        ? options.closed
          ? { unevaluatedProperties: false }
          : {}
        : { additionalProperties: additional }),
    };
  };

  const declarationSchema = (decl: ts.InterfaceDeclaration | ts.TypeAliasDeclaration): JsonSchema => {
    if (ts.isTypeAliasDeclaration(decl)) return schemaOf(decl.type);
    const own = members(decl.members);
    const bases = (decl.heritageClauses ?? []).flatMap((h) =>
      h.types.map((t) => (ts.isIdentifier(t.expression) ? refTo(t.expression.text) : true)),
    );
    return bases.length ? { allOf: [...bases, own] } : own;
  };

  const schemaOf = (node: ts.TypeNode): JsonSchema => {
    switch (node.kind) {
      case ts.SyntaxKind.StringKeyword:
        return { type: 'string' };
      case ts.SyntaxKind.NumberKeyword:
        return { type: 'number' };
      case ts.SyntaxKind.BooleanKeyword:
        return { type: 'boolean' };
      case ts.SyntaxKind.AnyKeyword:
      case ts.SyntaxKind.UnknownKeyword:
      case ts.SyntaxKind.ObjectKeyword:
        return true;
      case ts.SyntaxKind.NeverKeyword:
      case ts.SyntaxKind.UndefinedKeyword:
        return false;
      case ts.SyntaxKind.NullKeyword:
        return { type: 'null' };
    }
    if (ts.isParenthesizedTypeNode(node)) return schemaOf(node.type);
    if (ts.isLiteralTypeNode(node)) return literal(node);
    if (ts.isArrayTypeNode(node)) return { type: 'array', items: schemaOf(node.elementType) };
    if (ts.isTupleTypeNode(node))
      return { type: 'array', prefixItems: node.elements.map((e) => schemaOf(e as ts.TypeNode)) };
    if (ts.isUnionTypeNode(node)) {
      // `T | undefined` on an optional property is the property's optionality, already said.
      const kept = node.types.filter((t) => t.kind !== ts.SyntaxKind.UndefinedKeyword);
      return kept.length === 1 ? schemaOf(kept[0]!) : { anyOf: kept.map(schemaOf) };
    }
    if (ts.isIntersectionTypeNode(node)) return { allOf: node.types.map(schemaOf) };
    if (ts.isTypeLiteralNode(node)) return members(node.members);
    if (ts.isTypeReferenceNode(node)) return reference(node);
    if (ts.isIndexedAccessTypeNode(node)) return indexed(node);
    throw new Error(`unsupported type ${ts.SyntaxKind[node.kind]} at ${where(node)}`);
  };

  const reference = (node: ts.TypeReferenceNode): JsonSchema => {
    const name = ts.isIdentifier(node.typeName) ? node.typeName.text : node.typeName.right.text;
    const args = node.typeArguments ?? [];
    if ((name === 'Array' || name === 'ReadonlyArray') && args[0])
      return { type: 'array', items: schemaOf(args[0]) };
    if (name === 'Record' && args[1]) return { type: 'object', additionalProperties: schemaOf(args[1]) };
    return refTo(name);
  };

  /** `Event['context']`: that property of a declared interface; any value when it is not one. */
  const indexed = (node: ts.IndexedAccessTypeNode): JsonSchema => {
    const target = node.objectType;
    const key = node.indexType;
    if (!ts.isTypeReferenceNode(target) || !ts.isLiteralTypeNode(key) || !ts.isStringLiteral(key.literal))
      return true;
    const decl = find(target.typeName.getText());
    const members = decl && ts.isInterfaceDeclaration(decl) ? decl.members : undefined;
    const member = members?.find(
      (m) =>
        ts.isPropertySignature(m) &&
        m.name &&
        propertyName(m.name) === (key.literal as ts.StringLiteral).text,
    );
    return member && ts.isPropertySignature(member) && member.type ? schemaOf(member.type) : true;
  };

  return { schemaOf, refTo, defs };
}

function literal(node: ts.LiteralTypeNode): JsonSchema {
  const l = node.literal;
  if (ts.isStringLiteral(l)) return { const: l.text };
  if (ts.isNumericLiteral(l)) return { const: Number(l.text) };
  if (l.kind === ts.SyntaxKind.TrueKeyword) return { const: true };
  if (l.kind === ts.SyntaxKind.FalseKeyword) return { const: false };
  if (l.kind === ts.SyntaxKind.NullKeyword) return { type: 'null' };
  if (ts.isPrefixUnaryExpression(l) && ts.isNumericLiteral(l.operand))
    return { const: -Number(l.operand.text) };
  throw new Error(`unsupported literal at ${where(node)}`);
}

function propertyName(name: ts.PropertyName): string {
  if (ts.isIdentifier(name) || ts.isStringLiteral(name) || ts.isNumericLiteral(name)) return name.text;
  throw new Error(`unsupported property name at ${where(name)}`);
}

function where(node: ts.Node): string {
  const file = node.getSourceFile();
  const { line } = file.getLineAndCharacterOfPosition(node.getStart());
  return `${file.fileName}:${line + 1}`;
}
