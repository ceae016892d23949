/**
 * Google Chat resource names: `spaces/{space}`, `spaces/{space}/messages/{message}`,
 * `spaces/{space}/threads/{thread}`, and the ids the emulator assigns.
 *
 * System-assigned ids look like Google's: a message in thread `T` is named
 * `spaces/S/messages/T.M`, and a thread's first message is `T.T` (as in the
 * reference's example `spaces/AAAAAAAAAAA/messages/BBBBBBBBBBB.BBBBBBBBBBB`).
 */

/** Space ids as Google issues them (and as turnlog's `gchat:spaces/…` accepts). */
const SPACE_ID = /^[A-Za-z0-9_-]+$/;

/**
 * A client-assigned message id (the create call's `messageId`): `client-`,
 * then lowercase letters, digits and hyphens, 63 characters at most.
 */
export const CLIENT_MESSAGE_ID = /^client-[a-z0-9-]*$/;
export const CLIENT_MESSAGE_ID_MAX_CHARS = 63;

export const spaceName = (spaceId: string) => `spaces/${spaceId}`;

/** The space id of `spaces/{space}`, or null when `name` is not a space name. */
export function parseSpaceName(name: string): string | null {
  if (!name.startsWith('spaces/')) return null;
  const id = name.slice('spaces/'.length);
  return SPACE_ID.test(id) ? id : null;
}

export const isValidSpaceId = (id: string) => SPACE_ID.test(id);

export function isValidClientMessageId(id: string): boolean {
  return id.length <= CLIENT_MESSAGE_ID_MAX_CHARS && CLIENT_MESSAGE_ID.test(id);
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const ID_LENGTH = 11;

/** An 11-character id in Google's style from a never-repeating ordinal (`AAAAAAAAAAB`, …). */
export function systemId(ordinal: number): string {
  let rest = ordinal;
  let id = '';
  while (rest > 0) {
    id = ALPHABET[rest % ALPHABET.length]! + id;
    rest = Math.floor(rest / ALPHABET.length);
  }
  return id.padStart(ID_LENGTH, 'A');
}

export const threadName = (space: string, threadId: string) => `${space}/threads/${threadId}`;

/** The system name of a message in thread `threadId` of `space`. */
export const messageName = (space: string, threadId: string, messageId: string) =>
  `${space}/messages/${threadId}.${messageId}`;
