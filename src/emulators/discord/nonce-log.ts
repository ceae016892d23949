/**
 * Create Message idempotency: with `nonce` and `enforce_nonce: true`, "if
 * another message was created by the same author with the same nonce, that
 * message will be returned and no new message will be created" — checked
 * "in the past few minutes" (discord-api-docs, Message → Create Message).
 */

/** "A few minutes" is unpublished; five is the emulator's choice. */
export const NONCE_WINDOW_MS = 5 * 60_000;

export interface NonceLog {
  /** The message created with this nonce by this author in this channel within the window, if any. */
  find(authorId: string, channelId: string, nonce: string): string | undefined;
  remember(authorId: string, channelId: string, nonce: string, messageId: string): void;
  clear(): void;
}

export function createNonceLog(now: () => number): NonceLog {
  let seen = new Map<string, { messageId: string; at: number }>();
  const key = (authorId: string, channelId: string, nonce: string) =>
    `${authorId}\u0000${channelId}\u0000${nonce}`;
  return {
    find(authorId, channelId, nonce) {
      const entry = seen.get(key(authorId, channelId, nonce));
      return entry && now() - entry.at < NONCE_WINDOW_MS ? entry.messageId : undefined;
    },
    remember(authorId, channelId, nonce, messageId) {
      seen.set(key(authorId, channelId, nonce), { messageId, at: now() });
    },
    clear() {
      seen = new Map();
    },
  };
}
