/** toJsonSafe: small, JSON-safe copies of trace payloads. */
import { describe, expect, it } from 'vitest';
import { createActor, createMachine } from 'xstate';
import { toJsonSafe } from '../../src/viz/json-safe.js';

const limits = { maxDepth: 2, maxItems: 3, maxStringLength: 5 };

describe('toJsonSafe', () => {
  it('keeps plain JSON values as they are', () => {
    const value = { a: 1, b: 'x', c: [true, null], d: { e: 2 } };
    expect(toJsonSafe(value)).toEqual(value);
  });

  it('names actor refs by session id instead of serialising them', () => {
    const actor = createActor(createMachine({ id: 'm', initial: 'a', states: { a: {} } }));
    expect(toJsonSafe({ replyTo: actor })).toEqual({ replyTo: `[actor ${actor.sessionId}]` });
  });

  it('turns errors into name and message, numbers that JSON cannot hold and bigints into strings', () => {
    expect(toJsonSafe({ e: new TypeError('boom'), n: Number.NaN, i: -Infinity, b: 10n })).toEqual({
      e: { name: 'TypeError', message: 'boom' },
      n: 'NaN',
      i: '-Infinity',
      b: '10',
    });
  });

  it('drops fields without a JSON form, and makes them null in arrays, as JSON.stringify does', () => {
    expect(toJsonSafe({ f: () => 1, s: Symbol('x'), u: undefined, k: 1 })).toEqual({ k: 1 });
    expect(toJsonSafe([() => 1, undefined, 2])).toEqual([null, null, 2]);
  });

  it('cuts cycles but copies a shared (non-cyclic) object each time', () => {
    const shared = { v: 1 };
    const cyclic: Record<string, unknown> = { shared, again: shared };
    cyclic.self = cyclic;
    expect(toJsonSafe(cyclic)).toEqual({ shared: { v: 1 }, again: { v: 1 }, self: '[circular]' });
  });

  it('bounds depth, items, keys and string length, saying how much was left out', () => {
    expect(toJsonSafe({ deep: { deeper: { deepest: 1 } } }, limits)).toEqual({
      deep: { deeper: '[object]' },
    });
    expect(toJsonSafe([1, 2, 3, 4, 5], limits)).toEqual([1, 2, 3, '… 2 more']);
    expect(toJsonSafe({ a: 1, b: 2, c: 3, d: 4 }, limits)).toEqual({ a: 1, b: 2, c: 3, '…': '1 more keys' });
    expect(toJsonSafe('abcdefgh', limits)).toBe('abcde… (3 more chars)');
  });
});
