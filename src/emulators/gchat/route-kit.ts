/** What every Google Chat route shares: who is calling, and turning a GchatApiError into a recorded refusal. */
import { createHash } from 'node:crypto';
import type { HandlerContext, PlatformReply } from '../core/index.js';
import type { GchatWorld } from './gchat-world.js';
import { GchatApiError, notFound, permissionDenied } from './google-errors.js';

export interface GchatRouteDeps {
  world: GchatWorld;
  /** Refuse text over 4096 characters (the older limit) as well as messages over 32,000 bytes. */
  strict: boolean;
}

/**
 * The Chat app behind a request, as a `users/…` name: one app per credential
 * (Authorization header), `users/app` without one. An app may only edit and
 * delete its own messages.
 */
export function appUserFor(authorization: string | undefined): string {
  if (!authorization) return 'users/app';
  return `users/app-${createHash('sha256').update(authorization).digest('hex').slice(0, 12)}`;
}

/** Runs a route; a GchatApiError becomes Google's error answer, recorded as a call that changed nothing. */
export function answering(details: Record<string, unknown>, run: () => PlatformReply): PlatformReply {
  try {
    return run();
  } catch (error) {
    if (!(error instanceof GchatApiError)) throw error;
    return {
      ...error.toAnswer(),
      record: { notifies: false, mentions: [], details: { ...details, error: error.message } },
    };
  }
}

/** The live message a name addresses (a system name or `spaces/S/messages/client-…`) in `space`; 404 otherwise. */
export function liveMessage(ctx: HandlerContext, world: GchatWorld, space: string, name: string) {
  const message = ctx.store.get(world.resolveMessageName(name));
  if (!message || message.space !== space) throw notFound(`message ${JSON.stringify(name)}`);
  if (message.deleted) throw notFound(`message ${JSON.stringify(name)} (deleted)`);
  return message;
}

/** Refuses to touch a message that is not this app's own: a person's, or another app's. */
export function requireOwnMessage(
  message: { id: string; author: { kind: string; id: string } },
  app: string,
): void {
  if (message.author.kind !== 'app')
    throw permissionDenied(
      `${message.id} was posted by a person (${message.author.id}); an app can only change its own messages`,
    );
  if (message.author.id !== app)
    throw permissionDenied(`${message.id} belongs to another Chat app (${message.author.id})`);
}
