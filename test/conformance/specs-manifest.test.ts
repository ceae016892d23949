// Issue 27.1: the specs the suite reads are the ones test/fixtures/specs/manifest.json names (package,
// version, license, sha256 of each file, a fingerprint of each checked operation), and a change is
// said by file and by operation — what `npm run specs` prints after an update.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { compareSources, installedSources, MANIFEST_FILE, type Manifest } from './kit/sources.js';

let installed: Manifest;
beforeAll(async () => {
  installed = await installedSources();
}, 60_000);

describe('the spec manifest', () => {
  it('matches what is installed: packages pinned in package.json, files and operations unchanged', () => {
    const recorded = JSON.parse(readFileSync(MANIFEST_FILE, 'utf8')) as Manifest;
    expect(compareSources(recorded, installed)).toEqual([]);
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    expect(pkg.devDependencies['discord-api-spec']).toBe(recorded.discord.version);
    expect(pkg.dependencies.googleapis).toBe(recorded.gchat.version);
    expect(pkg.dependencies['@slack/web-api']).toBe(recorded.slack.version);
    expect(pkg.dependencies['@slack/bolt']).toBe(recorded.slackBolt.version);
    expect(pkg.devDependencies['@slack/types']).toBe(recorded.slackTypes.version);
  });

  it('says which file, which operation and which version changed', () => {
    const recorded: Manifest = structuredClone(installed);
    recorded.discord.version = '10.0.1';
    recorded.discord.files['build/discord-api-spec.ts'] = '0'.repeat(64);
    recorded.discord.operations.update_message = '0'.repeat(64);
    delete recorded.slack.operations['chat.update'];
    expect(compareSources(recorded, installed)).toEqual([
      `discord (discord-api-spec): version 10.0.1 → ${installed.discord.version}`,
      'discord (discord-api-spec): build/discord-api-spec.ts changed',
      'discord (discord-api-spec): operation update_message changed',
      'slack (@slack/web-api): operation chat.update is new',
    ]);
  });
});
