/** The pieces behind the ingest API's auth and logs: bearer check, loopback rule, log-safe errors. */
import { describe, expect, it } from 'vitest';
import { createBearerCheck, isLoopbackHost } from '../../src/serve/auth.js';
import { loggableError } from '../../src/serve/logger.js';

describe('createBearerCheck', () => {
  const check = createBearerCheck('tok-123');

  it('accepts exactly "Bearer <token>" (scheme in any case)', () => {
    expect(check('Bearer tok-123')).toBe(true);
    expect(check('bearer tok-123')).toBe(true);
    expect(check('BEARER \ttok-123 ')).toBe(true);
  });

  it('refuses a missing, different, longer, shorter or differently-schemed token without throwing', () => {
    for (const header of [
      undefined,
      '',
      'Bearer',
      'Bearer ',
      'Bearer tok-124',
      'Bearer tok-1234',
      'Bearer t',
      'Basic tok-123',
      'tok-123',
      'Bearer tok-123 tok-123',
    ]) {
      expect(check(header), String(header)).toBe(false);
    }
  });

  it('refuses an empty token', () => {
    expect(() => createBearerCheck('')).toThrow(/non-empty/);
  });
});

describe('isLoopbackHost', () => {
  it('knows loopback addresses', () => {
    for (const host of [
      '127.0.0.1',
      '127.1.2.3',
      'localhost',
      'LOCALHOST',
      '::1',
      '[::1]',
      '0:0:0:0:0:0:0:1',
      '::ffff:127.0.0.1',
    ]) {
      expect(isLoopbackHost(host), host).toBe(true);
    }
  });

  it('treats every other host, wildcards included, as reachable from elsewhere', () => {
    for (const host of [
      '0.0.0.0',
      '::',
      '10.0.0.5',
      '192.168.1.2',
      'example.com',
      '127.example.com',
      '::ffff:10.0.0.1',
    ]) {
      expect(isLoopbackHost(host), host).toBe(false);
    }
  });
});

describe('loggableError', () => {
  it('elides quoted values (which may be event text) and keeps the rest', () => {
    expect(
      loggableError(`line 2: invalid JSON: Unexpected token 'h', "hello secret" is not valid JSON`),
    ).toBe(`line 2: invalid JSON: Unexpected token 'h', "…" is not valid JSON`);
    expect(loggableError('tool_result.ok: expected a boolean, got "a \\"quoted\\" word"')).toBe(
      'tool_result.ok: expected a boolean, got "…"',
    );
    expect(loggableError('unterminated "rest of the line')).toBe('unterminated "…');
    expect(loggableError('no quotes here')).toBe('no quotes here');
  });
});
