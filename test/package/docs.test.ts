/**
 * docs/ stays true to the code: docs/cli.md's config table has a row for
 * every key of the config's JSON Schema (docs/config.schema.json, generated
 * from src/config.ts) and no row the schema doesn't have, with the defaults
 * the schema gives; docs/events.md documents every run-event type the parser
 * accepts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configJsonSchema } from '../../src/config.js';
import { RUN_EVENT_TYPES } from '../../src/events/schema.js';
import { builtinPlatforms } from '../../src/platforms/all.js';
import { ROOT } from '../cli/cli.helpers.js';

const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

interface JsonSchema {
  properties?: Record<string, JsonSchema>;
  additionalProperties?: JsonSchema | boolean;
  default?: unknown;
}

/** What a record's keys are called in the docs. */
const PLACEHOLDERS: Record<string, string> = {
  spaces: '<space>',
  budgets: '<platform>',
  'visibility.filters.destinations': '<type>',
};

function leafKeys(schema: JsonSchema, path = ''): { key: string; default: unknown }[] {
  if (schema.properties) {
    return Object.entries(schema.properties).flatMap(([name, child]) =>
      leafKeys(child, path === '' ? name : `${path}.${name}`),
    );
  }
  const placeholder = PLACEHOLDERS[path];
  if (placeholder && typeof schema.additionalProperties === 'object') {
    return leafKeys(schema.additionalProperties, `${path}.${placeholder}`);
  }
  return [{ key: path, default: schema.default }];
}

describe('docs/cli.md: the config table', () => {
  const cli = read('docs/cli.md');
  const rows = new Map(
    [...cli.matchAll(/^\| `([a-z][A-Za-z.<>]*)` \| ([^|]*) \|/gm)].map((m) => [
      m[1] as string,
      m[2] as string,
    ]),
  );
  // `$schema` (for editors) has its own row, outside the dotted keys compared here.
  const keys = leafKeys(configJsonSchema(builtinPlatforms) as JsonSchema).filter((k) => k.key !== '$schema');

  it('has a row for every key of the schema, and none it does not have', () => {
    expect(keys.length).toBeGreaterThan(30);
    const configRows = [...rows.keys()].filter((key) => key.includes('.'));
    expect(configRows.sort()).toEqual(keys.map((k) => k.key).sort());
  });

  it('gives the defaults the schema gives', () => {
    for (const { key, default: value } of keys) {
      if (typeof value !== 'number' && typeof value !== 'string' && typeof value !== 'boolean') continue;
      expect(rows.get(key), key).toContain(`\`${value}\``);
    }
  });
});

describe('docs/events.md', () => {
  it('documents every run-event type the parser accepts', () => {
    const events = read('docs/events.md');
    for (const type of RUN_EVENT_TYPES) expect(events, type).toMatch(new RegExp(`^\\| \`${type}\` \\|`, 'm'));
  });
});
