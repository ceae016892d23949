/**
 * Discord ids turnlog derives: the channel behind a space id
 * (`discord:<channel id>`) and the create `nonce` behind a client id
 * (https://discord.com/developers/docs/resources/message#create-message:
 * `nonce` up to 25 characters; with `enforce_nonce` a repeat within a few
 * minutes returns the message the first one made).
 */
import { createHash } from 'node:crypto';
import { SurfaceError } from '../../surfaces/surface.js';

/** The platform part of a Discord space: a channel id (snowflake digits). */
export const DISCORD_SPACE_ID = /^\d{1,20}$/;

export const MAX_NONCE_CHARS = 25;

/** The channel id of `discord:<id>`, or `invalid` naming what is wrong. */
export function channelOf(space: string): string {
  const id = space.startsWith('discord:') ? space.slice('discord:'.length) : undefined;
  if (id === undefined || !DISCORD_SPACE_ID.test(id)) {
    throw new SurfaceError(
      'invalid',
      `space ${JSON.stringify(space)} is not a Discord channel: expected discord:<channel id digits>`,
    );
  }
  return id;
}

/** A Discord id (channel, thread, message) from the runtime, checked before it goes in a URL. */
export function snowflake(id: string, what: string): string {
  if (!DISCORD_SPACE_ID.test(id)) {
    throw new SurfaceError('invalid', `${what} ${JSON.stringify(id)} is not a Discord id (snowflake digits)`);
  }
  return id;
}

/** A stable 25-character nonce for a client id (sha256, base64url): the same on every retry and restart. */
export function nonceFor(clientId: string): string {
  if (clientId === '') throw new SurfaceError('invalid', 'a client id must not be empty');
  return createHash('sha256').update(clientId).digest('base64url').slice(0, MAX_NONCE_CHARS);
}
