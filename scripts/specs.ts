/**
 * `npm run specs` compares the platform specs installed from npm (the
 * packages test/conformance reads: discord-api-spec, googleapis's chat/v1,
 * @slack/web-api's types) with test/fixtures/specs/manifest.json — package,
 * version, license, sha256 of each file read, and a fingerprint of each
 * checked operation — and says what changed: which files, and which
 * operations' schemas. Exits 1 when something did. `--write` records what is
 * installed (after updating a package and rerunning test/conformance).
 */
import { readFile, writeFile } from 'node:fs/promises';
import {
  compareSources,
  installedSources,
  MANIFEST_FILE,
  type Manifest,
} from '../test/conformance/kit/sources.js';

async function main(argv: string[]): Promise<number> {
  const installed = await installedSources();
  if (argv.includes('--write')) {
    await writeFile(MANIFEST_FILE, `${JSON.stringify(installed, null, 2)}\n`);
    process.stdout.write(`wrote ${MANIFEST_FILE}\n`);
    return 0;
  }
  const recorded = JSON.parse(await readFile(MANIFEST_FILE, 'utf8')) as Manifest;
  const changes = compareSources(recorded, installed);
  if (changes.length === 0) {
    const versions = Object.values(installed).map((s) => `${s.package}@${s.version}`);
    process.stdout.write(`specs as recorded: ${versions.join(', ')}\n`);
    return 0;
  }
  process.stdout.write(`${changes.join('\n')}\nrerun test/conformance, then \`npm run specs -- --write\`\n`);
  return 1;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`specs: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(2);
  },
);
