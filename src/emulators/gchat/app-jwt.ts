/**
 * How the emulator proves to an app that an event comes from "Google Chat":
 * the way Chat does for the "Project Number" authentication audience
 * (https://developers.google.com/workspace/chat/verify-requests-from-chat):
 * `Authorization: Bearer <JWT>`, RS256, `iss` chat@system.gserviceaccount.com,
 * `aud` the app's audience (the `secret` of `POST /_emulator/app`), `iat`/`exp`
 * an hour apart. The key pair is made once per emulator; its public half is
 * published as a JWK set at `GET /_emulator/jwks`, as Google publishes its
 * own at https://www.googleapis.com/service_accounts/v1/jwk/chat@system.gserviceaccount.com.
 */
import { createHash, generateKeyPairSync, type JsonWebKey, type KeyObject, sign } from 'node:crypto';

export const CHAT_TOKEN_ISSUER = 'chat@system.gserviceaccount.com';
/** Google's Chat tokens are valid for an hour. */
export const CHAT_TOKEN_LIFETIME_S = 3600;

export interface ChatSigningKey {
  kid: string;
  privateKey: KeyObject;
  /** The public key as a JWK (`kid`, `alg`, `use` included), as a JWK set lists it. */
  jwk: JsonWebKey & { kid: string; alg: 'RS256'; use: 'sig' };
}

/** A fresh RSA-2048 key pair; its `kid` is a hash of the public key, as Google's are opaque hex ids. */
export function createChatSigningKey(): ChatSigningKey {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const publicJwk = publicKey.export({ format: 'jwk' });
  const kid = createHash('sha1')
    .update(publicKey.export({ type: 'spki', format: 'der' }))
    .digest('hex');
  return { kid, privateKey, jwk: { ...publicJwk, kid, alg: 'RS256', use: 'sig' } };
}

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** A token for `audience`, issued at `nowMs` (or with other claims, for tests of refused tokens). */
export function signChatToken(
  key: Pick<ChatSigningKey, 'kid' | 'privateKey'>,
  claims: { audience: string; nowMs: number; issuer?: string; lifetimeS?: number },
): string {
  const iat = Math.floor(claims.nowMs / 1000);
  const header = base64url({ alg: 'RS256', kid: key.kid, typ: 'JWT' });
  const payload = base64url({
    iss: claims.issuer ?? CHAT_TOKEN_ISSUER,
    aud: claims.audience,
    iat,
    exp: iat + (claims.lifetimeS ?? CHAT_TOKEN_LIFETIME_S),
  });
  const signature = sign('sha256', Buffer.from(`${header}.${payload}`), key.privateKey).toString('base64url');
  return `${header}.${payload}.${signature}`;
}
