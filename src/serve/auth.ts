/**
 * Bearer-token checks for the ingest API (docs/http-api.md) and the rule that
 * only a loopback listener may go without a token.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

/**
 * A check of an `Authorization` header against the token. Both sides are
 * hashed first, so `timingSafeEqual` always compares 32 bytes and the time
 * taken says nothing about the token's length or its common prefix with a guess.
 */
export function createBearerCheck(token: string): (authorization: string | undefined) => boolean {
  if (token.length === 0) throw new Error('createBearerCheck: the token must be a non-empty string');
  const expected = digest(token);
  return (authorization) => {
    const presented = authorization === undefined ? undefined : BEARER.exec(authorization)?.[1];
    // A missing token is still compared, so a request without one costs the same as a wrong one.
    const matches = timingSafeEqual(digest(presented ?? ''), expected);
    return presented !== undefined && matches;
  };
}

/** `localhost`, `127.0.0.0/8`, `::1` (and `::ffff:127.x.x.x`): reachable from this machine only. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (bare.toLowerCase() === 'localhost') return true;
  const family = isIP(bare);
  if (family === 4) return bare.startsWith('127.');
  if (family === 6) {
    const lower = bare.toLowerCase();
    return lower === '::1' || lower === '0:0:0:0:0:0:0:1' || lower.startsWith('::ffff:127.');
  }
  return false;
}
