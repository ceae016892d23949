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
}
