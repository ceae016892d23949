/**
 * `npx tsx scripts/config-schema.ts` writes docs/config.schema.json from the
 * zod config schema (src/config.ts), formatted by biome as `npm run lint`
 * expects; `--check` exits 1 when the committed file says something else.
 */
import { execFileSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { configJsonSchema } from '../src/config.js';
import { builtinPlatforms } from '../src/platforms/all.js';

export const CONFIG_SCHEMA_FILE = fileURLToPath(new URL('../docs/config.schema.json', import.meta.url));
const BIOME = fileURLToPath(new URL('../node_modules/.bin/biome', import.meta.url));

/** Does the file hold the schema the zod schema generates (formatting aside)? */
export async function configSchemaIsCurrent(): Promise<boolean> {
  const committed = await readFile(CONFIG_SCHEMA_FILE, 'utf8').catch(() => 'null');
  return isDeepStrictEqual(JSON.parse(committed), configJsonSchema(builtinPlatforms));
}

async function main(argv: string[]): Promise<number> {
  if (argv.includes('--check')) {
    if (await configSchemaIsCurrent()) return 0;
    process.stderr.write('docs/config.schema.json is stale: run `npx tsx scripts/config-schema.ts`\n');
    return 1;
  }
  await writeFile(CONFIG_SCHEMA_FILE, `${JSON.stringify(configJsonSchema(builtinPlatforms), null, 2)}\n`);
  execFileSync(BIOME, ['format', '--write', CONFIG_SCHEMA_FILE], { stdio: 'ignore' });
  process.stdout.write('wrote docs/config.schema.json\n');
  return 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.exitCode = await main(process.argv.slice(2));
}
