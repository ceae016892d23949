/**
 * The emulated spaces' messages and threads, platform-neutral. Platform
 * modules choose the ids (in their own format, from `nextOrdinal()`) and keep
 * whatever else they need on `data`; the store keeps what a person would see.
 */
import type { EmulatedMessage } from '../types.js';
import { messageView } from './card-view.js';
import type { MessageAuthor, StoredMessage } from './stored-message.js';

export type { MessageAuthor, StoredMessage } from './stored-message.js';

export interface NewMessage {
  id: string;
  space: string;
  thread?: string | null;
  text: string;
  author: MessageAuthor;
  idempotencyKey?: string;
  data?: Record<string, unknown>;
}

/** A thread as a platform tracks it (a Discord thread channel, a GChat thread, a Slack `thread_ts`). */
export interface StoredThread {
  id: string;
  space: string;
  /** The message the thread hangs off, when it has one. */
  rootMessageId: string | null;
  data: Record<string, unknown>;
}

export interface MessageStore {
  /** A fresh number for building ids; never repeats, not even across `clear()`, so a stale id can't alias a new message. */
  nextOrdinal(): number;
  /** Stores a new message; throws when the id (or the idempotency key in that space) is taken. */
  create(message: NewMessage): StoredMessage;
  /** The message with that id (deleted ones included), or undefined. */
  get(id: string): StoredMessage | undefined;
  /** The message created in `space` with that idempotency key, or undefined. */
  findByIdempotencyKey(space: string, key: string): StoredMessage | undefined;
  /** Replaces the text (and merges `data`), counting one edit; throws when the message is unknown or deleted. */
  edit(id: string, text: string, data?: Record<string, unknown>): StoredMessage;
  /** Marks the message deleted (a person or the app removed it); throws when unknown. */
  markDeleted(id: string): StoredMessage;
  /** Every message of the space (deleted ones included) in creation order. */
  inSpace(space: string): StoredMessage[];
  /** Registers a thread; throws when the id is taken. */
  openThread(thread: {
    id: string;
    space: string;
    rootMessageId?: string | null;
    data?: Record<string, unknown>;
  }): StoredThread;
  getThread(id: string): StoredThread | undefined;
  /** The thread that hangs off that message, if one was opened. */
  threadOfRoot(rootMessageId: string): StoredThread | undefined;
  /** `GET /_emulator/messages` view of a space. */
  view(space: string): EmulatedMessage[];
  /** Forgets messages and threads. */
  clear(): void;
}

export function createMessageStore(now: () => number): MessageStore {
  // Indexed by id, by space and by idempotency key / thread root so large runs (benchmarks) stay linear.
  let messages = new Map<string, StoredMessage>();
  let bySpace = new Map<string, StoredMessage[]>();
  let byIdempotencyKey = new Map<string, StoredMessage>();
  let threads = new Map<string, StoredThread>();
  let threadByRoot = new Map<string, StoredThread>();
  let ordinal = 0;
  const keyOf = (space: string, key: string) => `${space}\u0000${key}`;

  const live = (id: string): StoredMessage => {
    const message = messages.get(id);
    if (!message) throw new Error(`unknown message ${JSON.stringify(id)}`);
    return message;
  };

  const store: MessageStore = {
    nextOrdinal: () => {
      ordinal += 1;
      return ordinal;
    },
    create(message) {
      if (messages.has(message.id))
        throw new Error(`message id ${JSON.stringify(message.id)} already exists`);
      if (
        message.idempotencyKey !== undefined &&
        store.findByIdempotencyKey(message.space, message.idempotencyKey)
      ) {
        throw new Error(
          `idempotency key ${JSON.stringify(message.idempotencyKey)} is already used in ${message.space}`,
        );
      }
      const stored: StoredMessage = {
        id: message.id,
        space: message.space,
        thread: message.thread ?? null,
        text: message.text,
        author: message.author,
        createdAt: now(),
        updatedAt: null,
        edits: 0,
        deleted: false,
        ...(message.idempotencyKey === undefined ? {} : { idempotencyKey: message.idempotencyKey }),
        data: message.data ?? {},
      };
      messages.set(stored.id, stored);
      const spaceMessages = bySpace.get(stored.space);
      if (spaceMessages) spaceMessages.push(stored);
      else bySpace.set(stored.space, [stored]);
      if (stored.idempotencyKey !== undefined) {
        byIdempotencyKey.set(keyOf(stored.space, stored.idempotencyKey), stored);
      }
      return stored;
    },
    get: (id) => messages.get(id),
    findByIdempotencyKey: (space, key) => byIdempotencyKey.get(keyOf(space, key)),
    edit(id, text, data) {
      const message = live(id);
      if (message.deleted) throw new Error(`message ${JSON.stringify(id)} is deleted`);
      message.text = text;
      message.updatedAt = now();
      message.edits += 1;
      if (data) Object.assign(message.data, data);
      return message;
    },
    markDeleted(id) {
      const message = live(id);
      message.deleted = true;
      return message;
    },
    inSpace: (space) => [...(bySpace.get(space) ?? [])],
    openThread(thread) {
      if (threads.has(thread.id)) throw new Error(`thread id ${JSON.stringify(thread.id)} already exists`);
      const stored: StoredThread = {
        id: thread.id,
        space: thread.space,
        rootMessageId: thread.rootMessageId ?? null,
        data: thread.data ?? {},
      };
      threads.set(stored.id, stored);
      if (stored.rootMessageId !== null) threadByRoot.set(stored.rootMessageId, stored);
      return stored;
    },
    getThread: (id) => threads.get(id),
    threadOfRoot: (rootMessageId) => threadByRoot.get(rootMessageId),
    view: (space) => store.inSpace(space).map((message) => messageView(message)),
    clear() {
      messages = new Map();
      bySpace = new Map();
      byIdempotencyKey = new Map();
      threads = new Map();
      threadByRoot = new Map();
    },
  };
  return store;
}
