/**
 * Google Chat token verification (src/platforms/gchat/intake-jwt.ts): the keys
 * are fetched from `jwksUrl` and cached for the answer's max-age; a token
 * naming an unknown kid fetches again early (a rotation), at most once a
 * minute; a key endpoint that fails makes the request unverifiable (503), not
 * forged. Time is the verifier's `now` (a simulated clock); token times are
 * real, as google-auth-library checks them against the wall clock.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import {
  type ChatSigningKey,
  createChatSigningKey,
  signChatToken,
} from '../../../src/emulators/gchat/app-jwt.js';
import {
  ChatKeysUnavailableError,
  ChatTokenError,
  createChatTokenVerifier,
} from '../../../src/platforms/gchat/intake-jwt.js';

const AUDIENCE = '42';

/** A key endpoint serving `document()`, counting fetches. */
async function startKeys(document: () => { status: number; body: unknown; cacheControl?: string }) {
  let fetches = 0;
  const server: Server = createServer((_req, res) => {
    fetches++;
    const { status, body, cacheControl } = document();
    res.writeHead(status, {
      'content-type': 'application/json',
      ...(cacheControl ? { 'cache-control': cacheControl } : {}),
    });
    res.end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/keys`, fetches: () => fetches };
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

const jwks = (...keys: ChatSigningKey[]) => ({ keys: keys.map((k) => k.jwk) });
const bearer = (key: ChatSigningKey) =>
  `Bearer ${signChatToken(key, { audience: AUDIENCE, nowMs: Date.now() })}`;

describe('Google Chat token verifier: keys', () => {
  it('caches the keys for their max-age; an unknown kid fetches again at most once a minute (a rotation is picked up)', async () => {
    const first = createChatSigningKey();
    const second = createChatSigningKey();
    let published = [first];
    const keys = await startKeys(() => ({
      status: 200,
      body: jwks(...published),
      cacheControl: 'public, max-age=3600',
    }));
    const clock = new SimulatedClock();
    const verifier = createChatTokenVerifier({
      audience: AUDIENCE,
      jwksUrl: keys.url,
      now: () => clock.now(),
    });

    await expect(verifier.verify(bearer(first))).resolves.toMatchObject({ aud: AUDIENCE });
    await verifier.verify(bearer(first));
    expect(keys.fetches()).toBe(1);

    // Google rotates: a token under the new kid within the minute is refused without a fetch…
    published = [first, second];
    await expect(verifier.verify(bearer(second))).rejects.toThrow(/unknown kid/);
    expect(keys.fetches()).toBe(1);
    // …and after it, the unknown kid fetches the keys again.
    clock.increment(60_000);
    await expect(verifier.verify(bearer(second))).resolves.toMatchObject({ aud: AUDIENCE });
    expect(keys.fetches()).toBe(2);

    // The cache expires with the max-age even when every kid is known.
    clock.increment(3600_000);
    await verifier.verify(bearer(first));
    expect(keys.fetches()).toBe(3);
  });

  it("takes keys as {kid: PEM} too (the form of Google's x509 endpoint)", async () => {
    const key = createChatSigningKey();
    const { createPublicKey } = await import('node:crypto');
    const pem = createPublicKey({ key: key.jwk, format: 'jwk' }).export({ type: 'spki', format: 'pem' });
    const keys = await startKeys(() => ({ status: 200, body: { [key.kid]: pem } }));
    const verifier = createChatTokenVerifier({ audience: AUDIENCE, jwksUrl: keys.url, now: () => 0 });
    await expect(verifier.verify(bearer(key))).resolves.toMatchObject({
      iss: 'chat@system.gserviceaccount.com',
    });
  });

  it('a key endpoint that fails or serves no key makes requests unverifiable (not forged), retried at most every 10 s; known keys outlive a failed refresh', async () => {
    const key = createChatSigningKey();
    let answer: { status: number; body: unknown; cacheControl?: string } = {
      status: 500,
      body: { error: 'down' },
    };
    const keys = await startKeys(() => answer);
    const clock = new SimulatedClock();
    const verifier = createChatTokenVerifier({
      audience: AUDIENCE,
      jwksUrl: keys.url,
      now: () => clock.now(),
    });
    await expect(verifier.verify(bearer(key))).rejects.toThrow(ChatKeysUnavailableError);
    await expect(verifier.verify(bearer(key))).rejects.toThrow(/answered HTTP 500/);
    expect(keys.fetches()).toBe(1);
    answer = { status: 200, body: { keys: [] } };
    clock.increment(10_000);
    await expect(verifier.verify(bearer(key))).rejects.toThrow(/unreadable: no RSA key/);
    expect(keys.fetches()).toBe(2);
    answer = { status: 200, body: jwks(key), cacheControl: 'max-age=60' };
    clock.increment(10_000);
    await expect(verifier.verify(bearer(key))).resolves.toMatchObject({ aud: AUDIENCE });

    // Expired cache, endpoint down again: the known key still verifies.
    answer = { status: 503, body: {} };
    clock.increment(60_000);
    await expect(verifier.verify(bearer(key))).resolves.toMatchObject({ aud: AUDIENCE });
    expect(keys.fetches()).toBe(4);
  });

  it('refuses tokens that are not Chat tokens for this app, naming why', async () => {
    const key = createChatSigningKey();
    const keys = await startKeys(() => ({ status: 200, body: jwks(key) }));
    const verifier = createChatTokenVerifier({ audience: AUDIENCE, jwksUrl: keys.url, now: () => 0 });
    const refusal = async (authorization: string | undefined) => {
      const error = await verifier.verify(authorization).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ChatTokenError);
      return (error as Error).message;
    };
    const nowMs = Date.now();
    expect(await refusal(undefined)).toMatch(/no Authorization header/);
    expect(await refusal('Basic abc')).toMatch(/not "Bearer <JWT>"/);
    expect(await refusal('Bearer not-a-jwt')).toMatch(/not a JWT/);
    expect(
      await refusal(
        `Bearer ${signChatToken(key, { audience: AUDIENCE, nowMs, issuer: 'someone@example.com' })}`,
      ),
    ).toMatch(/issuer is not chat@system\.gserviceaccount\.com/);
    expect(await refusal(`Bearer ${signChatToken(key, { audience: 'other', nowMs })}`)).toMatch(
      /wrong audience/,
    );
    expect(
      await refusal(`Bearer ${signChatToken(key, { audience: AUDIENCE, nowMs: nowMs - 2 * 3600_000 })}`),
    ).toBe('expired');
    expect(
      await refusal(`Bearer ${signChatToken(key, { audience: AUDIENCE, nowMs: nowMs + 3600_000 })}`),
    ).toMatch(/not valid yet/);
    expect(
      await refusal(`Bearer ${signChatToken(key, { audience: AUDIENCE, nowMs, lifetimeS: 3 * 86_400 })}`),
    ).toMatch(/exp too far/);
  });
});
