/**
 * Google Chat resource names as the surface reads them: turnlog's
 * `gchat:spaces/AAAA` space, and message and thread names inside it
 * (`spaces/AAAA/messages/…`, `spaces/AAAA/threads/…`).
 */
import { SurfaceError } from '../../surfaces/surface.js';

const PREFIX = 'gchat:';
/** Space ids as Google issues them: letters, digits, `-` and `_` (the descriptor's `spaceIdPattern`). */
export const SPACE_NAME = /^spaces\/[A-Za-z0-9_-]+$/;

/** `gchat:spaces/AAAA` → `spaces/AAAA`; anything else is an `invalid` error naming what was expected. */
export function gchatSpaceName(space: string): string {
  const name = space.startsWith(PREFIX) ? space.slice(PREFIX.length) : null;
  if (name === null || !SPACE_NAME.test(name)) {
    throw new SurfaceError(
      'invalid',
      `space ${JSON.stringify(space)} is not a Google Chat space: expected gchat:spaces/<id> (letters, digits, - and _)`,
    );
  }
  return name;
}

const isChild = (space: string, kind: 'messages' | 'threads', name: string): boolean => {
  const prefix = `${space}/${kind}/`;
  return name.startsWith(prefix) && name.length > prefix.length && !name.slice(prefix.length).includes('/');
};

/** Is `name` a message of `space` (`spaces/AAAA/messages/…`)? */
const isMessageOf = (space: string, name: string): boolean => isChild(space, 'messages', name);

/** Is `name` a thread of `space` (`spaces/AAAA/threads/…`)? */
export const isThreadOf = (space: string, name: string): boolean => isChild(space, 'threads', name);

/** A message name of `space`, or an `invalid` error saying what `what` should have been. */
export function requireMessageOf(space: string, name: string, what: string): string {
  if (!isMessageOf(space, name)) {
    throw new SurfaceError(
      'invalid',
      `${what} ${JSON.stringify(name)} is not a message of ${space}: expected ${space}/messages/<id>`,
    );
  }
  return name;
}
