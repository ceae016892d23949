// spec: docs/events.md "user-supplied text cannot mention a channel or everyone on any platform";
// docs/architecture.md "User-supplied text can never ping a channel (`<!channel>`, `@everyone`, `<users/all>`)".
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { broadMentionsFor, detectBroadMentions } from '../../src/emulators/core/mentions.js';
import type { Platform } from '../../src/emulators/types.js';
import { builtinPlatforms } from '../../src/platforms/all.js';
import { MENTION_BREAK, neutralizeBroadMentions } from '../../src/render/mentions.js';

const PLATFORMS: Platform[] = ['gchat', 'slack', 'discord'];
const withoutBreaks = (text: string) => text.replaceAll(MENTION_BREAK, '');

/** Text made of mention fragments, so the generator often assembles a live mention. */
const mentionish = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        '<',
        '>',
        '!',
        '@',
        '&',
        '^',
        '|',
        '/',
        'users/',
        'users/all',
        'USERS/',
        'all',
        'channel',
        'here',
        'everyone',
        'subteam^',
        'S0123',
        '123',
        ' ',
        '\n',
        MENTION_BREAK,
        '<users/all>',
        '<!channel>',
        '<!here|here>',
        '@everyone',
        '<@&42>',
      ),
      fc.string({ maxLength: 4 }),
    ),
    { maxLength: 30 },
  )
  .map((parts) => parts.join(''));

describe('neutralizeBroadMentions', () => {
  it.each([
    ['gchat', 'ping <users/all> now'],
    ['slack', 'ping <!channel> and <!here|here> and <!everyone>'],
    ['slack', 'team <!subteam^S0123|devs>'],
    ['discord', 'ping @everyone and @here and <@&987654321>'],
  ] as const)('%s: %j no longer pings and reads the same', (platform, text) => {
    expect(broadMentionsFor(platform, text).length).toBeGreaterThan(0);
    const out = neutralizeBroadMentions(text, platform, builtinPlatforms);
    expect(detectBroadMentions(out)).toEqual([]);
    expect(withoutBreaks(out)).toBe(text);
  });

  it('gchat: breaks a person mention (<users/…>), which only Google Chat parses', () => {
    expect(neutralizeBroadMentions('<users/42>', 'gchat', builtinPlatforms)).toBe(
      `<${MENTION_BREAK}users/42>`,
    );
    expect(neutralizeBroadMentions('<users/42>', 'discord', builtinPlatforms)).toBe('<users/42>');
  });

  it('leaves text without mentions untouched', () => {
    const text = 'Read(src/app.ts) — a < b, x@example.com, <b>html</b>';
    for (const platform of PLATFORMS)
      expect(neutralizeBroadMentions(text, platform, builtinPlatforms)).toBe(text);
  });

  it('property: no output of any input holds a live broad mention, on any platform', () => {
    fc.assert(
      fc.property(fc.oneof(mentionish, fc.string()), fc.constantFrom(...PLATFORMS), (text, platform) => {
        expect(detectBroadMentions(neutralizeBroadMentions(text, platform, builtinPlatforms))).toEqual([]);
      }),
      { numRuns: 2000 },
    );
  });

  it('property: only zero-width spaces are added (the text reads the same)', () => {
    fc.assert(
      fc.property(mentionish, fc.constantFrom(...PLATFORMS), (text, platform) => {
        expect(withoutBreaks(neutralizeBroadMentions(text, platform, builtinPlatforms))).toBe(
          withoutBreaks(text),
        );
      }),
      { numRuns: 1000 },
    );
  });

  it('is linear: a megabyte of mention openers is done at once', () => {
    const text = '<!'.repeat(250_000) + '<users/'.repeat(50_000) + '@'.repeat(100_000);
    const out = neutralizeBroadMentions(text, 'slack', builtinPlatforms);
    expect(out.length).toBe(text.length + 250_000);
  });

  it('refuses an unknown platform by name', () => {
    expect(() => neutralizeBroadMentions('x', 'teams' as Platform, builtinPlatforms)).toThrow(
      /unknown platform "teams"/,
    );
  });
});
