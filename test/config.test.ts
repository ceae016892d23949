/** The config schema (docs/cli.md): defaults for `{}`, and errors that name the key and what was expected. */
import { describe, expect, it } from 'vitest';
import { ConfigError, resolveConfig } from '../src/config.js';
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
    expect(() => resolveConfig({ visibility: { thread: false } })).toThrow(/visibility: .*thread/);
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
