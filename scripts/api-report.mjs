// `npm run api` (update) and `npm run api:check` (fail on any difference):
// the API report of each package entry (etc/<entry>.api.md), made by
// @microsoft/api-extractor from the built declarations in dist/ (`npm run
// build` first). A change to the public API shows as a diff of these files.
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CompilerState, Extractor, ExtractorConfig } from '@microsoft/api-extractor';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ENTRIES = ['index', 'gchat', 'slack', 'discord', 'emulators', 'testing'];
const local = process.argv.includes('--local');
mkdirSync(`${ROOT}temp/api`, { recursive: true });
mkdirSync(`${ROOT}etc`, { recursive: true });

let failed = 0;
/** One TypeScript program over every entry's declarations, shared by the six reports (not one each). */
let compilerState;
for (const entry of ENTRIES) {
  const report = `${entry === 'index' ? 'turnlog' : `turnlog-${entry}`}.api.md`;
  const config = ExtractorConfig.prepare({
    configObject: {
      projectFolder: ROOT,
      mainEntryPointFilePath: `<projectFolder>/dist/src/${entry}.d.ts`,
      compiler: { tsconfigFilePath: '<projectFolder>/tsconfig.build.json' },
      apiReport: {
        enabled: true,
        reportFileName: report,
        reportFolder: '<projectFolder>/etc/',
        reportTempFolder: '<projectFolder>/temp/api/',
      },
      docModel: { enabled: false },
      dtsRollup: { enabled: false },
      tsdocMetadata: { enabled: false },
      messages: {
        // The report is the point; TSDoc style and missing release tags are not checked here.
        extractorMessageReporting: {
          default: { logLevel: 'none' },
          'ae-missing-release-tag': { logLevel: 'none' },
          'ae-forgotten-export': { logLevel: 'none' },
        },
        tsdocMessageReporting: { default: { logLevel: 'none' } },
        compilerMessageReporting: { default: { logLevel: 'warning' } },
      },
    },
    configObjectFullPath: `${ROOT}api-extractor.json`,
    packageJsonFullPath: `${ROOT}package.json`,
  });
  compilerState ??= CompilerState.create(config, {
    additionalEntryPoints: ENTRIES.map((e) => `${ROOT}dist/src/${e}.d.ts`),
  });
  const result = Extractor.invoke(config, { localBuild: local, showVerboseMessages: false, compilerState });
  if (!result.succeeded || (!local && result.apiReportChanged)) {
    failed += 1;
    console.error(
      `etc/${report}: ${result.apiReportChanged ? 'the API changed: review the diff, then run `npm run api`' : `${result.errorCount} errors`}`,
    );
  }
}
process.exit(failed === 0 ? 0 : 1);
