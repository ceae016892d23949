/**
 * Idempotency ids from turnlog's deterministic client id: Google Chat's
 * `requestId` (a repeated create returns the message it made) and a
 * client-assigned `messageId` (`client-…`), both stable across retries,
 * crashes and restarts.
 */
import { createHash } from 'node:crypto';
import { SurfaceError } from '../../surfaces/surface.js';

/** Kept as is when short and plain (readable in Google's logs); hashed otherwise. */
const PLAIN_REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

const digest = (clientId: string): string => createHash('sha256').update(clientId).digest('hex');

function requireClientId(clientId: string): void {
  if (clientId === '') throw new SurfaceError('invalid', 'a client id must not be empty');
}

/** The `requestId` for a create: the client id itself when plain, else `turnlog-<sha256 prefix>`. */
export function requestIdFor(clientId: string): string {
  requireClientId(clientId);
  return PLAIN_REQUEST_ID.test(clientId) ? clientId : `turnlog-${digest(clientId).slice(0, 48)}`;
}

/**
 * The client-assigned message id for a create: `client-<40 hex chars of sha256(clientId)>`, 47 characters
 * (Google allows `client-` + lowercase letters, digits and hyphens, 63 at most).
 */
export function clientMessageIdFor(clientId: string): string {
  requireClientId(clientId);
  return `client-${digest(clientId).slice(0, 40)}`;
}
