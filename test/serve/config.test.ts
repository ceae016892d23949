/**
 * The serve config (docs/cli.md): ingest/store/platforms/log defaults,
 * `"env:NAME"` secrets, errors that name the key, the surfaces it builds,
 * and the published JSON Schema kept up to date.
 */
import { describe, expect, it } from 'vitest';
import { configSchemaIsCurrent } from '../../scripts/config-schema.js';
import { ConfigError, configJsonSchema, loadConfig, resolveConfig } from '../../src/config.js';
import { builtinPlatforms } from '../../src/platforms/all.js';
import { createSurfaces } from '../../src/serve/surfaces.js';

describe('the serve sections of the config', () => {
  it('defaults ingest, store, platforms and log for an empty config', () => {
    const config = resolveConfig({}, builtinPlatforms);
    expect(config.ingest).toEqual({
      host: '127.0.0.1',
      port: 8787,
      bodyLimitBytes: 1_048_576,
      maxPendingBytes: 16_777_216,
      shutdownTimeoutMs: 10_000,
      headersTimeoutMs: 10_000,
      bodyTimeoutMs: 30_000,
      allowedHosts: [],
    });
    expect(config.store).toEqual({ path: ':memory:' });
    expect(config.platforms).toEqual({});
    expect(config.log).toEqual({ level: 'info' });
  });

  it('store.url selects the shared Postgres store (issue 23.1): path is left out, both are refused', () => {
    const url = 'postgres://turnlog@db.internal:5432/turnlog';
    const config = resolveConfig({ store: { url } }, builtinPlatforms);
    expect(config.store).toEqual({ url });
    // A resolved config resolves again to itself (createRuntime resolves what serve resolved).
    expect(resolveConfig(config, builtinPlatforms).store).toEqual({ url });
    expect(() => resolveConfig({ store: { url, path: 'turnlog.sqlite' } }, builtinPlatforms)).toThrow(
      'store: give either path (the SQLite file) or url (the shared Postgres store), not both',
    );
    expect(() => resolveConfig({ store: { url: 'mysql://db/turnlog' } }, builtinPlatforms)).toThrow(
      /store\.url: a postgres:\/\/user@host:port\/db URL/,
    );
    const secret = 'postgres://turnlog:pw@db:5432/turnlog';
    expect(loadConfig({ store: { url: 'env:TURNLOG_PG' } }, { TURNLOG_PG: secret }).store).toEqual({
      url: secret,
    });
    expect(() => loadConfig({ store: { url: 'env:TURNLOG_PG' } }, {})).toThrow(
      'store.url: environment variable TURNLOG_PG is not set',
    );
  });

  it('names every bad key and what was expected', () => {
    const attempt = () =>
      resolveConfig(
        {
          ingest: { port: 70_000, bodyLimitBytes: 0, hots: 'x' },
          platforms: { gchat: { apiUrl: 'ftp://example.com' }, teams: {} },
          log: { level: 'loud' },
        },
        builtinPlatforms,
      );
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(/ingest\.port: .*65535/);
    expect(attempt).toThrow(/ingest\.bodyLimitBytes: /);
    expect(attempt).toThrow(/ingest\.hots: unknown key "hots" \(did you mean "host"\?\)/);
    expect(attempt).toThrow(/platforms\.gchat\.apiUrl: an http\(s\) URL/);
    expect(attempt).toThrow(/platforms\.teams: unknown key "teams" \(known: gchat, slack, discord\)/);
    expect(attempt).toThrow(/log\.level: /);
  });

  it('accepts a "$schema" key at the root (editors use it)', () => {
    expect(() => resolveConfig({ $schema: './docs/config.schema.json' }, builtinPlatforms)).not.toThrow();
  });
});

describe('"env:NAME" secrets', () => {
  const config = {
    ingest: { token: 'env:TURNLOG_TOKEN' },
    platforms: { gchat: { credentials: 'env:GCHAT_KEY_FILE', apiUrl: 'http://127.0.0.1:9' } },
  };

  it('reads each from its environment variable', () => {
    const loaded = loadConfig(
      config,
      { TURNLOG_TOKEN: 't0k3n', GCHAT_KEY_FILE: '/etc/turnlog/key.json' },
      builtinPlatforms,
    );
    expect(loaded.ingest.token).toBe('t0k3n');
    expect(loaded.platforms.gchat?.credentials).toBe('/etc/turnlog/key.json');
    // The input is not changed in place.
    expect(config.ingest.token).toBe('env:TURNLOG_TOKEN');
  });

  it('keeps a literal secret as it is', () => {
    expect(loadConfig({ ingest: { token: 'plain-token' } }, {}, builtinPlatforms).ingest.token).toBe(
      'plain-token',
    );
  });

  it('names the key and the variable when it is unset or empty', () => {
    expect(() => loadConfig(config, { GCHAT_KEY_FILE: '' }, builtinPlatforms)).toThrow(
      'invalid turnlog config:\n' +
        '  ingest.token: environment variable TURNLOG_TOKEN is not set\n' +
        '  platforms.gchat.credentials: environment variable GCHAT_KEY_FILE is empty',
    );
  });

  it('refuses an "env:" reference that is not a variable name', () => {
    expect(() => resolveConfig({ platforms: { slack: { token: 'env:1-bad' } } }, builtinPlatforms)).toThrow(
      /platforms\.slack\.token: an "env:NAME" reference needs a variable name/,
    );
  });
});

describe('createSurfaces', () => {
  it('builds a Google Chat surface for platforms.gchat', () => {
    const surfaces = createSurfaces(
      resolveConfig({ platforms: { gchat: { apiUrl: 'http://127.0.0.1:9' } } }, builtinPlatforms).platforms,
      builtinPlatforms,
    );
    expect(Object.keys(surfaces)).toEqual(['gchat']);
    expect(surfaces.gchat?.platform).toBe('gchat');
  });

  it('builds a Slack surface for platforms.slack and a Discord one for platforms.discord, through the registry', () => {
    const surfaces = createSurfaces(
      resolveConfig(
        {
          platforms: {
            gchat: { apiUrl: 'http://127.0.0.1:9' },
            slack: { apiUrl: 'http://127.0.0.1:9', token: 'xoxb-1' },
            discord: { apiUrl: 'http://127.0.0.1:9', token: 'x' },
          },
        },
        builtinPlatforms,
      ).platforms,
      builtinPlatforms,
    );
    expect(Object.keys(surfaces)).toEqual(['gchat', 'slack', 'discord']);
    expect(surfaces.slack?.platform).toBe('slack');
    expect(surfaces.discord?.platform).toBe('discord');
  });

  it('refuses a Slack config without a token, naming the key', () => {
    expect(() =>
      resolveConfig({ platforms: { slack: { apiUrl: 'http://127.0.0.1:9' } } }, builtinPlatforms),
    ).toThrow(/platforms\.slack\.token/);
  });

  it('a Discord surface without a token is refused, naming the key', () => {
    expect(() => resolveConfig({ platforms: { discord: {} } }, builtinPlatforms)).toThrow(
      /platforms\.discord\.token/,
    );
  });

  it('needs at least one platform', () => {
    expect(() => createSurfaces({}, builtinPlatforms)).toThrow(/^platforms: configure at least one platform/);
  });
});

describe('docs/config.schema.json', () => {
  it('is the JSON Schema generated from the zod schema (run `npx tsx scripts/config-schema.ts` when this fails)', async () => {
    expect(await configSchemaIsCurrent()).toBe(true);
  });

  it('describes the serve keys with their defaults, for editors', () => {
    const schema = configJsonSchema(builtinPlatforms) as {
      properties: Record<string, { properties: Record<string, { default?: unknown; description?: string }> }>;
    };
    expect(schema.properties.ingest?.properties.port).toMatchObject({ default: 8787, type: 'integer' });
    expect(schema.properties.ingest?.properties.token?.description).toMatch(/env:NAME/);
    expect(schema.properties.store?.properties.path).toMatchObject({ default: ':memory:' });
    expect(Object.keys(schema.properties.platforms?.properties ?? {})).toEqual(['gchat', 'slack', 'discord']);
  });
});
