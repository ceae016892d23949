// Unit tests of the Discord emulator's pure parts: snowflakes, mention parsing, body validation.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { firedBroadMentions } from '../../../src/emulators/discord/allowed-mentions.js';
import { formErrorTree } from '../../../src/emulators/discord/form-errors.js';
import {
  parseCreateMessage,
  parseEditMessage,
  parseStartThread,
} from '../../../src/emulators/discord/request-bodies.js';
import {
  createSnowflakeGenerator,
  DISCORD_EPOCH_MS,
  isSnowflake,
  snowflakeTimestamp,
} from '../../../src/emulators/discord/snowflake.js';

describe('snowflakes', () => {
  it('encode the clock and strictly increase, even when the clock stands still or runs back', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: -10_000, max: 10_000 }), { minLength: 1, maxLength: 50 }),
        (steps) => {
          let now = Date.UTC(2025, 0, 1);
          const next = createSnowflakeGenerator(() => now);
          let previous = 0n;
          for (const step of steps) {
            now += step;
            const id = next();
            expect(isSnowflake(id)).toBe(true);
            expect(BigInt(id)).toBeGreaterThan(previous);
            previous = BigInt(id);
          }
        },
      ),
    );
    const at = Date.UTC(2025, 5, 1, 8, 30);
    expect(snowflakeTimestamp(createSnowflakeGenerator(() => at)())).toBe(at);
  });

  it('stay 17–20 digits with a simulated clock that starts at 0', () => {
    const id = createSnowflakeGenerator(() => 0)();
    expect(id).toMatch(/^\d{17,20}$/);
    expect(snowflakeTimestamp(id)).toBeGreaterThan(DISCORD_EPOCH_MS);
  });

  it('isSnowflake accepts 1–20 digits below 2^64 only', () => {
    expect(isSnowflake('80351110224678912')).toBe(true);
    expect(isSnowflake('18446744073709551615')).toBe(true);
    expect(isSnowflake('18446744073709551616')).toBe(false);
    expect(isSnowflake('12a')).toBe(false);
    expect(isSnowflake('')).toBe(false);
  });
});

describe('firedBroadMentions', () => {
  const text = 'hey @everyone, @here, <@&42> and <@7>';
  it('fires every broad mention when allowed_mentions is absent', () => {
    expect(firedBroadMentions(text, undefined)).toEqual(['@everyone', '@here', '<@&42>']);
  });
  it('fires none with parse: [] (or an empty object)', () => {
    expect(firedBroadMentions(text, { parse: [] })).toEqual([]);
    expect(firedBroadMentions(text, {})).toEqual([]);
  });
  it("fires @everyone/@here only with parse ['everyone'], a role with parse ['roles'] or its id", () => {
    expect(firedBroadMentions(text, { parse: ['everyone'] })).toEqual(['@everyone', '@here']);
    expect(firedBroadMentions(text, { parse: ['roles'] })).toEqual(['<@&42>']);
    expect(firedBroadMentions(text, { roles: ['42'] })).toEqual(['<@&42>']);
    expect(firedBroadMentions(text, { roles: ['43'], parse: ['users'] })).toEqual([]);
  });
});

describe('request bodies', () => {
  it('counts content length in code points', () => {
    expect(parseCreateMessage({ content: '😀'.repeat(2000) }).ok).toBe(true);
    const tooLong = parseCreateMessage({ content: '😀'.repeat(2001) });
    expect(tooLong).toEqual({
      ok: false,
      issues: [
        { path: ['content'], code: 'BASE_TYPE_MAX_LENGTH', message: 'Must be 2000 or fewer in length.' },
      ],
    });
  });

  it('names wrong types, bad references and mutually exclusive allowed_mentions', () => {
    const parsed = parseCreateMessage({
      content: 5,
      flags: 'loud',
      enforce_nonce: 'yes',
      message_reference: { message_id: 'abc' },
      allowed_mentions: { parse: ['roles'], roles: ['1'] },
      embeds: [1],
    });
    expect(parsed.ok).toBe(false);
    const codes = parsed.ok ? [] : parsed.issues.map((issue) => `${issue.path.join('.')}:${issue.code}`);
    expect(codes).toEqual([
      'content:BASE_TYPE_STRING',
      'flags:NUMBER_TYPE_COERCE',
      'allowed_mentions:MESSAGE_ALLOWED_MENTIONS_PARSE_EXCLUSIVE',
      'message_reference.message_id:NUMBER_TYPE_COERCE',
      'enforce_nonce:BASE_TYPE_BOOLEAN',
      'embeds.0:DICT_TYPE_CONVERT',
    ]);
  });

  it('refuses a body that is not an object at the root', () => {
    expect(parseCreateMessage(['x'])).toEqual({
      ok: false,
      issues: [
        { path: [], code: 'DICT_TYPE_CONVERT', message: 'Only dictionaries may be used in a DictType' },
      ],
    });
  });

  it('edit: absent fields stay, content null clears', () => {
    expect(parseEditMessage({}, false)).toEqual({ ok: true, value: {} });
    expect(parseEditMessage({ content: null, flags: 4 }, false)).toEqual({
      ok: true,
      value: { content: null, flags: 4 },
    });
  });

  it('start thread: name 1–100 characters required, auto_archive_duration from the documented set', () => {
    expect(parseStartThread({ name: 'x' })).toEqual({
      ok: true,
      value: { name: 'x', autoArchiveDuration: 4320 },
    });
    const bad = parseStartThread({ name: '', auto_archive_duration: 30 });
    expect(bad.ok ? [] : bad.issues.map((issue) => issue.code)).toEqual([
      'BASE_TYPE_BAD_LENGTH',
      'ENUM_TYPE_COERCE',
    ]);
  });
});

describe('formErrorTree', () => {
  it('nests issues by path, merging siblings and stacking errors on the same field', () => {
    expect(
      formErrorTree([
        { path: ['a', 0, 'b'], code: 'X', message: 'x' },
        { path: ['a', 0, 'b'], code: 'Y', message: 'y' },
        { path: ['a', 1], code: 'Z', message: 'z' },
        { path: [], code: 'R', message: 'r' },
      ]),
    ).toEqual({
      _errors: [{ code: 'R', message: 'r' }],
      a: {
        '0': {
          b: {
            _errors: [
              { code: 'X', message: 'x' },
              { code: 'Y', message: 'y' },
            ],
          },
        },
        '1': { _errors: [{ code: 'Z', message: 'z' }] },
      },
    });
  });
});
