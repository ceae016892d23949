/**
 * Verifying that a request to the Chat app's endpoint comes from Google Chat
 * (https://developers.google.com/workspace/chat/verify-requests-from-chat,
 * "Project Number" authentication audience): `Authorization: Bearer <JWT>`,
 * RS256, issued by `chat@system.gserviceaccount.com`, audience = the Chat
 * app's Cloud project number, signed by a key Google publishes.
 *
 * The check itself is google-auth-library's `verifySignedJwtWithCertsAsync`
 * (signature, `iat`/`exp` with its 5 min clock skew, issuer, audience). The
 * keys are fetched here and cached: until the answer's `max-age` (bounded),
 * and again early for a token naming an unknown `kid` (Google rotated), at
 * most once a minute, so a stream of forged kids cannot make turnlog hammer
 * Google's key endpoint.
 */
import { createPublicKey, type JsonWebKey } from 'node:crypto';
import { OAuth2Client } from 'google-auth-library';

/** The `iss` of every token Chat sends. */
export const CHAT_ISSUER = 'chat@system.gserviceaccount.com';

/**
 * Google's keys for that issuer as a JWK set. The same keys are published as
 * X.509 certificates at
 * https://www.googleapis.com/service_accounts/v1/metadata/x509/chat@system.gserviceaccount.com
 * (the URL Google's samples fetch); `jwksUrl` takes either form.
 */
export const GOOGLE_CHAT_JWKS_URL =
  'https://www.googleapis.com/service_accounts/v1/jwk/chat@system.gserviceaccount.com';

const DEFAULT_MAX_AGE_MS = 60 * 60_000;
const MIN_MAX_AGE_MS = 60_000;
const MAX_MAX_AGE_MS = 6 * 60 * 60_000;
/** Least time between two fetches caused by an unknown `kid`. */
const MIN_REFETCH_MS = 60_000;
/** After a failed fetch, requests wait this long before another is tried (they get the same error). */
const FAILURE_BACKOFF_MS = 10_000;
const FETCH_TIMEOUT_MS = 10_000;

/** The request does not carry a token Google Chat signed for this app: answer 401. */
export class ChatTokenError extends Error {
  override readonly name = 'ChatTokenError';
}

/** Google's keys could not be read: the request cannot be verified now (answer 503, Chat retries). */
export class ChatKeysUnavailableError extends Error {
  override readonly name = 'ChatKeysUnavailableError';
}

export interface ChatTokenVerifierOptions {
  /** The Chat app's project number ("Authentication audience": Project Number). */
  audience: string;
  /** Default GOOGLE_CHAT_JWKS_URL. */
  jwksUrl?: string;
  /** Epoch ms, for the key cache. */
  now: () => number;
}

export interface ChatTokenVerifier {
  /** Resolves with the token's claims; throws ChatTokenError (401) or ChatKeysUnavailableError (503). */
  verify(authorization: string | undefined): Promise<Record<string, unknown>>;
}

type Certs = Record<string, string>;

/** A JWK set (`{keys: [...]}`) or a `{kid: PEM certificate}` map, as PEM strings by `kid`. */
export function certsFromKeyDocument(document: unknown): Certs {
  if (typeof document !== 'object' || document === null) throw new Error('not a JSON object');
  const keys = (document as { keys?: unknown }).keys;
  const certs: Certs = {};
  if (Array.isArray(keys)) {
    for (const key of keys as (JsonWebKey & { kid?: unknown })[]) {
      if (typeof key?.kid !== 'string' || key.kty !== 'RSA') continue;
      certs[key.kid] = createPublicKey({ key, format: 'jwk' }).export({
        type: 'spki',
        format: 'pem',
      }) as string;
    }
  } else {
    for (const [kid, pem] of Object.entries(document)) {
      if (typeof pem === 'string' && pem.includes('-----BEGIN ')) certs[kid] = pem;
    }
  }
  if (Object.keys(certs).length === 0)
    throw new Error('no RSA key in it (expected a JWK set or {kid: certificate})');
  return certs;
}

/** google-auth-library's message (which quotes the whole token) → a short reason that does not. */
function reasonOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const reasons: [RegExp, string][] = [
    [/^Wrong number of segments/, 'not a JWT (expected three dot-separated parts)'],
    [/^Can't parse token/, 'not a JWT (unreadable header or payload)'],
    [/^No pem found/, 'signed with a key Google Chat does not publish (unknown kid)'],
    [/^Invalid token signature/, 'bad signature'],
    [/^No issue time/, 'no iat'],
    [/^No expiration time/, 'no exp'],
    [/field using invalid format/, 'iat or exp is not a number'],
    [/^Expiration time too far/, 'exp too far in the future'],
    [/^Token used too early/, 'not valid yet (iat in the future)'],
    [/^Token used too late/, 'expired'],
    [/^Invalid issuer/, `issuer is not ${CHAT_ISSUER}`],
    [/^Wrong recipient/, 'wrong audience (not this Chat app; check platforms.gchat.events.audience)'],
  ];
  return reasons.find(([pattern]) => pattern.test(message))?.[1] ?? 'invalid token';
}

function maxAgeMs(cacheControl: string | null): number {
  const seconds = /max-age=(\d+)/.exec(cacheControl ?? '')?.[1];
  if (seconds === undefined) return DEFAULT_MAX_AGE_MS;
  return Math.min(MAX_MAX_AGE_MS, Math.max(MIN_MAX_AGE_MS, Number(seconds) * 1000));
}

export function createChatTokenVerifier(options: ChatTokenVerifierOptions): ChatTokenVerifier {
  const jwksUrl = options.jwksUrl ?? GOOGLE_CHAT_JWKS_URL;
  const client = new OAuth2Client();
  let cache: { certs: Certs; fetchedAt: number; expiresAt: number } | undefined;
  let fetching: Promise<Certs> | undefined;
  let failure: { at: number; error: ChatKeysUnavailableError } | undefined;

  async function fetchCerts(): Promise<Certs> {
    let response: Response;
    try {
      response = await fetch(jwksUrl, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
    } catch (error) {
      throw new ChatKeysUnavailableError(
        `could not fetch Google Chat's keys from ${jwksUrl}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    if (!response.ok) {
      throw new ChatKeysUnavailableError(`Google Chat's keys at ${jwksUrl} answered HTTP ${response.status}`);
    }
    let certs: Certs;
    try {
      certs = certsFromKeyDocument(await response.json());
    } catch (error) {
      throw new ChatKeysUnavailableError(
        `Google Chat's keys at ${jwksUrl} are unreadable: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    const fetchedAt = options.now();
    cache = { certs, fetchedAt, expiresAt: fetchedAt + maxAgeMs(response.headers.get('cache-control')) };
    return certs;
  }

  /**
   * One fetch at a time: concurrent requests share it. A failed fetch is not
   * retried for FAILURE_BACKOFF_MS; meanwhile keys already known stay in use
   * (stale beats refusing every event while Google's endpoint is down).
   */
  async function refresh(): Promise<Certs> {
    if (failure !== undefined && options.now() - failure.at < FAILURE_BACKOFF_MS) {
      if (cache !== undefined) return cache.certs;
      throw failure.error;
    }
    fetching ??= fetchCerts().finally(() => {
      fetching = undefined;
    });
    try {
      const certs = await fetching;
      failure = undefined;
      return certs;
    } catch (error) {
      if (!(error instanceof ChatKeysUnavailableError)) throw error;
      failure = { at: options.now(), error };
      if (cache !== undefined) return cache.certs;
      throw error;
    }
  }

  async function certsFor(kid: string | undefined): Promise<Certs> {
    const now = options.now();
    if (cache === undefined || now >= cache.expiresAt) return refresh();
    if (kid !== undefined && !(kid in cache.certs) && now - cache.fetchedAt >= MIN_REFETCH_MS)
      return refresh();
    return cache.certs;
  }

  return {
    async verify(authorization) {
      const token = /^Bearer +(\S+)$/i.exec(authorization ?? '')?.[1];
      if (token === undefined) {
        throw new ChatTokenError(
          authorization === undefined
            ? 'no Authorization header (Google Chat sends "Bearer <JWT>")'
            : 'the Authorization header is not "Bearer <JWT>"',
        );
      }
      let header: { alg?: unknown; kid?: unknown };
      try {
        header = JSON.parse(
          Buffer.from(token.split('.')[0] ?? '', 'base64url').toString('utf8'),
        ) as typeof header;
      } catch {
        throw new ChatTokenError('not a JWT (unreadable header)');
      }
      // google-auth-library checks the signature with RSA-SHA256 whatever `alg` says; refuse any other claim outright.
      if (header?.alg !== 'RS256')
        throw new ChatTokenError(`alg ${JSON.stringify(header?.alg)} is not RS256`);
      const certs = await certsFor(typeof header.kid === 'string' ? header.kid : undefined);
      try {
        const ticket = await client.verifySignedJwtWithCertsAsync(token, certs, options.audience, [
          CHAT_ISSUER,
        ]);
        return (ticket.getPayload() ?? {}) as Record<string, unknown>;
      } catch (error) {
        throw new ChatTokenError(reasonOf(error));
      }
    },
  };
}
