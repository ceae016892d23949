/** Stores a new message (the app's or a person's) in its thread, opening the thread when it is new. */
import type { HandlerContext, MessageAuthor, StoredMessage, StoredThread } from '../core/index.js';
import type { GchatThreadData, GchatWorld } from './gchat-world.js';
import { messageName, systemId, threadName } from './resource-names.js';
import type { GchatMessageData } from './resources.js';
import type { ThreadPlacement } from './threads.js';

export interface NewGchatMessage {
  space: string;
  author: MessageAuthor;
  text: string;
  cardsV2?: unknown[];
  fallbackText?: string;
  placement: ThreadPlacement;
  requestId?: string;
  clientAssignedMessageId?: string;
  silent?: boolean;
}

export const threadData = (thread: StoredThread) => thread.data as unknown as GchatThreadData;

export function postMessage(
  ctx: HandlerContext,
  world: GchatWorld,
  message: NewGchatMessage,
): { stored: StoredMessage; thread: StoredThread } {
  const { store } = ctx;
  const { placement, space } = message;
  const reply = placement.kind === 'reply';
  const threadId = reply ? placement.thread.id.split('/').pop()! : systemId(store.nextOrdinal());
  const name = reply
    ? messageName(space, threadId, systemId(store.nextOrdinal()))
    : messageName(space, threadId, threadId);
  const thread =
    placement.kind === 'reply'
      ? placement.thread
      : store.openThread({
          id: threadName(space, threadId),
          space,
          rootMessageId: name,
          data: {
            participants: [],
            ...(placement.threadKey === undefined ? {} : { threadKey: placement.threadKey }),
          } satisfies GchatThreadData,
        });
  const { threadKey } = threadData(thread);
  if (placement.kind === 'new' && threadKey !== undefined)
    world.rememberThreadKey(space, threadKey, thread.id);

  const data: GchatMessageData = {
    threadName: thread.id,
    threadReply: reply,
    ...(threadKey === undefined ? {} : { threadKey }),
    ...(message.cardsV2?.length ? { cardsV2: message.cardsV2 } : {}),
    ...(message.fallbackText === undefined ? {} : { fallbackText: message.fallbackText }),
    ...(message.clientAssignedMessageId === undefined
      ? {}
      : { clientAssignedMessageId: message.clientAssignedMessageId }),
    ...(message.silent ? { silent: true } : {}),
  };
  const stored = store.create({
    id: name,
    space,
    // The store's `thread` is null for a top-level message, as on every platform; `data.threadName` keeps its thread.
    thread: reply ? thread.id : null,
    text: message.text,
    author: message.author,
    ...(message.requestId === undefined ? {} : { idempotencyKey: message.requestId }),
    data: data as unknown as Record<string, unknown>,
  });
  if (message.clientAssignedMessageId !== undefined)
    world.rememberClientId(space, message.clientAssignedMessageId, name);
  if (message.author.kind === 'user') {
    const { participants } = threadData(thread);
    if (!participants.includes(message.author.id)) participants.push(message.author.id);
  }
  return { stored, thread };
}
