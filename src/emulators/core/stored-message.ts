/** A message as the emulators' store keeps it (shared by the store and the card view). */
export interface MessageAuthor {
  /** `app` for the bot's own messages (the only ones it may edit), `user` for a person's. */
  kind: 'app' | 'user';
  id: string;
}

export interface StoredMessage {
  id: string;
  /** The platform's own space id (`spaces/A`, a Slack or Discord channel id). */
  space: string;
  /** The thread the message is in (GChat thread name, Slack `thread_ts`, Discord thread channel id); null = top level. */
  thread: string | null;
  text: string;
  author: MessageAuthor;
  createdAt: number;
  updatedAt: number | null;
  edits: number;
  deleted: boolean;
  /** Create idempotency key (GChat `requestId`), unique per space. */
  idempotencyKey?: string;
  /** Platform extras echoed back in responses (cardsV2, blocks, flags, …). */
  data: Record<string, unknown>;
  /** Reactions on the message as a person sees them (`emoji` the unicode character), oldest first. */
  reactions?: StoredReaction[];
}

/** One reaction: the emoji (the unicode character, also on Slack) and who added it (the platform's user id). */
export interface StoredReaction {
  emoji: string;
  user: string;
}

/** Adds `user`'s `emoji` to the message; false when it was there already. */
export function addReaction(message: StoredMessage, reaction: StoredReaction): boolean {
  const list = message.reactions ?? [];
  if (list.some((r) => r.emoji === reaction.emoji && r.user === reaction.user)) return false;
  message.reactions = [...list, { emoji: reaction.emoji, user: reaction.user }];
  return true;
}

/** Removes `user`'s `emoji` from the message; false when it was not there. */
export function removeReaction(message: StoredMessage, reaction: StoredReaction): boolean {
  const list = message.reactions ?? [];
  const rest = list.filter((r) => !(r.emoji === reaction.emoji && r.user === reaction.user));
  if (rest.length === list.length) return false;
  message.reactions = rest;
  return true;
}
