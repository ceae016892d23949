/**
 * The `Space` and `Message` resources as the Chat API v1 returns them, built
 * from the emulator's state (fields from the v1 reference: `spaceType`,
 * `spaceThreadingState`, `thread.name`, `threadReply`, `clientAssignedMessageId` …).
 */
import type { StoredMessage } from '../core/index.js';
import type { GchatSpace } from './gchat-world.js';

/** What a message carries in the store's `data`. */
export interface GchatMessageData {
  /** The thread the message belongs to; a thread's first message too (the store's `thread` is null for it). */
  threadName: string;
  threadKey?: string;
  /** A reply inside an existing thread, not the message that started it. */
  threadReply: boolean;
  cardsV2?: unknown[];
  /** The message's `fallbackText` (shown where its cards cannot be). */
  fallbackText?: string;
  clientAssignedMessageId?: string;
  /** Sent with NOTIFICATION_TYPE_SILENT. */
  silent?: boolean;
}

export const messageData = (message: StoredMessage) => message.data as unknown as GchatMessageData;

const timestamp = (ms: number) => new Date(ms).toISOString();

export function spaceResource(space: GchatSpace): Record<string, unknown> {
  return {
    name: space.name,
    type: space.dm ? 'DM' : 'ROOM',
    spaceType: space.dm ? 'DIRECT_MESSAGE' : 'SPACE',
    singleUserBotDm: space.dm,
    threaded: !space.dm,
    spaceThreadingState: space.dm ? 'UNTHREADED_MESSAGES' : 'THREADED_MESSAGES',
    ...(space.dm ? {} : { displayName: space.id }),
    spaceHistoryState: 'HISTORY_ON',
    createTime: timestamp(space.createdAt),
  };
}

/** The short form of the space a message resource embeds. */
const embeddedSpace = (space: GchatSpace) => ({
  name: space.name,
  type: space.dm ? 'DM' : 'ROOM',
  spaceType: space.dm ? 'DIRECT_MESSAGE' : 'SPACE',
  ...(space.dm ? { singleUserBotDm: true } : {}),
});

export function messageResource(message: StoredMessage, space: GchatSpace): Record<string, unknown> {
  const data = messageData(message);
  return {
    name: message.id,
    sender: { name: message.author.id, type: message.author.kind === 'app' ? 'BOT' : 'HUMAN' },
    createTime: timestamp(message.createdAt),
    ...(message.updatedAt === null ? {} : { lastUpdateTime: timestamp(message.updatedAt) }),
    text: message.text,
    ...(data.cardsV2?.length ? { cardsV2: data.cardsV2 } : {}),
    ...(data.fallbackText === undefined ? {} : { fallbackText: data.fallbackText }),
    thread: { name: data.threadName, ...(data.threadKey === undefined ? {} : { threadKey: data.threadKey }) },
    space: embeddedSpace(space),
    argumentText: message.text,
    threadReply: data.threadReply,
    ...(data.clientAssignedMessageId === undefined
      ? {}
      : { clientAssignedMessageId: data.clientAssignedMessageId }),
    ...(data.silent ? { silent: true } : {}),
  };
}
