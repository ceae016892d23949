// The platform registry: the one place config, budget, serve, the event schema and render read platform facts.
import { describe, expect, it } from 'vitest';
import { budgetDefaults, DEFAULT_MARGIN_FRACTION } from '../../src/budget/config.js';
import { resolveConfig } from '../../src/config.js';
import { SPACE_PATTERN } from '../../src/events/schema.js';
import { builtinPlatforms } from '../../src/platforms/all.js';
import { createPlatformRegistry } from '../../src/registry/registry.js';

import { neutralizeBroadMentions } from '../../src/render/mentions.js';
import { rateChannel } from '../../src/runtime/posting.js';
import { createSurfaces } from '../../src/serve/surfaces.js';
import { matrixPlatform } from './matrix/platform.js';

describe('platform registry', () => {
  it('holds the built-ins, and finds a space’s platform by its prefix', () => {
    expect(builtinPlatforms.ids).toEqual(['gchat', 'slack', 'discord']);
    expect(builtinPlatforms.forSpace('discord:123').id).toBe('discord');
    expect(() => builtinPlatforms.forSpace('teams:x')).toThrow(
      'space "teams:x" has no platform prefix (gchat:, slack:, discord:)',
    );
    expect(() => builtinPlatforms.require('teams')).toThrow(
      'unknown platform "teams" (gchat, slack or discord)',
    );
  });

  it('checks a space against its platform’s own pattern, and says what a space looks like', () => {
    expect(builtinPlatforms.checkSpace('gchat:spaces/AAAA')).toBeUndefined();
    expect(builtinPlatforms.checkSpace('gchat:AAAA')).toBe(
      'a platform-prefixed space: gchat:spaces/AAAA, slack:C0123ABCD or discord:<channel id digits>',
    );
    expect(builtinPlatforms.spacePattern.test('slack:C0123ABCD')).toBe(true);
    expect(builtinPlatforms.spacePattern.test('slack:c0123')).toBe(false);
    // Issue 21.1: the core's own pattern knows no platform, only the `<id>:` prefix.
    expect(SPACE_PATTERN.test('slack:c0123')).toBe(true);
    expect(SPACE_PATTERN.test('C0123')).toBe(false);
  });

  it('adds a platform with with(); a duplicate or a bad id is refused by name', () => {
    const registry = builtinPlatforms.with(matrixPlatform);
    expect(registry.ids).toEqual(['gchat', 'slack', 'discord', 'matrix']);
    expect(builtinPlatforms.get('matrix')).toBeUndefined();
    expect(() => registry.with(matrixPlatform)).toThrow('platform matrix is registered twice');
    expect(() => createPlatformRegistry([{ ...matrixPlatform, id: 'Ma trix' }])).toThrow(/must be lowercase/);
  });

  it('is what budget defaults, rate channels and mention forms read', () => {
    expect(budgetDefaults('discord', builtinPlatforms)).toEqual({
      platform: 'discord',
      marginFraction: DEFAULT_MARGIN_FRACTION,
      ...builtinPlatforms.require('discord').budget,
    });
    expect(budgetDefaults('matrix', builtinPlatforms.with(matrixPlatform))).toMatchObject({
      ratePerMinute: 600,
    });
    expect(rateChannel('discord:1', 't9', builtinPlatforms)).toBe('discord:1#t9');
    expect(rateChannel('slack:C1', 't9', builtinPlatforms)).toBe('slack:C1');
    const registry = builtinPlatforms.with(matrixPlatform);
    expect(neutralizeBroadMentions('hi @room', 'matrix', registry)).toBe('hi @\u200Broom');
    expect(() => neutralizeBroadMentions('hi', 'matrix', builtinPlatforms)).toThrow(
      /unknown platform "matrix"/,
    );
  });

  it('gives the config its platforms section and serve its surfaces', () => {
    expect(() => resolveConfig({ platforms: { teams: {} } }, builtinPlatforms)).toThrow(
      /platforms\.teams: unknown key "teams"/,
    );
    const surfaces = createSurfaces(
      { matrix: { homeserver: 'http://127.0.0.1:9' } } as never,
      builtinPlatforms.with(matrixPlatform),
    );
    expect(surfaces.matrix?.platform).toBe('matrix');
    expect(() => createSurfaces({ matrix: {} } as never, builtinPlatforms)).toThrow(
      /platforms\.matrix: unknown platform/,
    );
  });
});
