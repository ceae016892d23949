/** The config schema (docs/cli.md): defaults for `{}`, and errors that name the key and what was expected. */
import { describe, expect, it } from 'vitest';
import { ConfigError, resolveConfig } from '../src/config.js';
import { builtinPlatforms } from '../src/platforms/all.js';
import { spaceSettingsFor } from '../src/runtime.js';

describe('resolveConfig', () => {
  it('gives the reference spec defaults for an empty config', () => {
    const config = resolveConfig({});
    expect(config.visibility.threads).toBe(true);
    expect(config.visibility.threadLog).toEqual({
      maxToolPreview: 400,
      maxLogMessageChars: 7000,
      editDebounceMs: 1000,
      condenseStrategy: 'rollover',
    });
    expect(config.runtime).toMatchObject({ anchorCapacity: 50, maxTurnRestarts: 3, editRetryMs: 500 });
  });

  it('names the bad key and what was expected', () => {
    expect(() => resolveConfig({ visibility: { threadLog: { condenseStrategy: 'shuffle' } } })).toThrow(
      /visibility\.threadLog\.condenseStrategy: .*rollover/,
    );
    expect(() => resolveConfig({ visibility: { threadLog: { editDebounceMs: -1 } } })).toThrow(
      /visibility\.threadLog\.editDebounceMs/,
    );
    expect(() => resolveConfig({ spaces: { 'gchat:spaces/A': { threadsDisabled: 'yes' } } })).toThrow(
      ConfigError,
    );
  });

  it('refuses unknown keys inside known sections (a typo is not silently ignored)', () => {
    expect(() => resolveConfig({ visibility: { thread: false } })).toThrow(
      /visibility\.thread: unknown key "thread" \(did you mean "threads"\?\)/,
    );
  });

  it('refuses a filter that would lose the answer or names no event type', () => {
    expect(() =>
      resolveConfig({ visibility: { filters: { destinations: { answer: 'thread-log' } } } }),
    ).toThrow(/visibility\.filters: destinations\.answer: the answer is a message of its own/);
    expect(() => resolveConfig({ visibility: { filters: { destinations: { tool_cal: 'drop' } } } })).toThrow(
      /tool_cal/,
    );
  });

  it('resolves a space: its own threadsDisabled and dm over the global settings', () => {
    const config = resolveConfig({
      visibility: { threads: true },
      spaces: { 'slack:C1': { threadsDisabled: true, dm: true } },
    });
    expect(spaceSettingsFor(config, 'slack:C1').routing).toMatchObject({
      threads: true,
      threadsDisabled: true,
      dm: true,
    });
    expect(spaceSettingsFor(config, 'slack:C2').routing).toEqual({ threads: true, filters: {} });
  });
});

// Issue 22.8: an unknown key at any level of the config file is refused, naming its path and the nearest known key.
describe('unknown keys (issue 22.8)', () => {
  // The platform sections and budgets are checked against the registry the runtime or serve is given.
  const refusal = (input: unknown): string => {
    try {
      resolveConfig(input, builtinPlatforms);
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      return (error as Error).message;
    }
    throw new Error(`accepted ${JSON.stringify(input)}`);
  };

  it('refuses a misspelt top-level key (an "ingset" token would have left /v1/events open)', () => {
    expect(refusal({ ingset: { token: 's3cret-ingest-token-0123456789' } })).toContain(
      'ingset: unknown key "ingset" (did you mean "ingest"?)',
    );
    expect(refusal({ Visibility: {} })).toContain(
      'Visibility: unknown key "Visibility" (did you mean "visibility"?)',
    );
  });

  it('names the known keys when none is near', () => {
    const message = refusal({ approvers: ['U1'] });
    expect(message).toMatch(/approvers: unknown key "approvers" \(known: .*ingest.*\)/);
    expect(message).not.toContain('did you mean');
  });

  it('refuses unknown keys at every level, platform sections and records included', () => {
    expect(refusal({ ingest: { tokn: 'x' } })).toContain(
      'ingest.tokn: unknown key "tokn" (did you mean "token"?)',
    );
    expect(refusal({ visibility: { threadLog: { maxToolPreveiw: 100 } } })).toContain(
      'visibility.threadLog.maxToolPreveiw: unknown key "maxToolPreveiw" (did you mean "maxToolPreview"?)',
    );
    expect(refusal({ spaces: { 'gchat:spaces/A': { threadDisabled: true } } })).toContain(
      'spaces.gchat:spaces/A.threadDisabled: unknown key "threadDisabled" (did you mean "threadsDisabled"?)',
    );
    expect(refusal({ budgets: { slak: {} } })).toContain(
      'budgets.slak: unknown key "slak" (did you mean "slack"?)',
    );
    expect(refusal({ platforms: { gchatt: {} } })).toContain(
      'platforms.gchatt: unknown key "gchatt" (did you mean "gchat"?)',
    );
    expect(
      refusal({
        platforms: { gchat: { apiUrl: 'http://127.0.0.1:9', events: { audience: '1', jwks: 'x' } } },
      }),
    ).toContain('platforms.gchat.events.jwks: unknown key "jwks" (did you mean "jwksUrl"?)');
    expect(
      refusal({ actions: { webhook: { url: 'http://h.example', secret: 'abcdef', secert: 'x' } } }),
    ).toContain('actions.webhook.secert: unknown key "secert" (did you mean "secret"?)');
  });

  it('still accepts "$schema" and every documented key', () => {
    expect(() =>
      resolveConfig({ $schema: './docs/config.schema.json', ingest: { allowedHosts: ['a.example'] } }),
    ).not.toThrow();
  });
});

// Issue 22.8: a blank Google Chat events.audience would match no token's audience; refused at start.
describe('platforms.gchat.events.audience (issue 22.8)', () => {
  it('refuses a blank audience, naming the key', () => {
    for (const audience of [' ', '\t', '12 34']) {
      expect(() =>
        resolveConfig(
          { platforms: { gchat: { apiUrl: 'http://127.0.0.1:9', events: { audience } } } },
          builtinPlatforms,
        ),
      ).toThrow(/platforms\.gchat\.events\.audience: /);
    }
    expect(() =>
      resolveConfig(
        { platforms: { gchat: { apiUrl: 'http://127.0.0.1:9', events: { audience: '1234567890' } } } },
        builtinPlatforms,
      ),
    ).not.toThrow();
  });
});
