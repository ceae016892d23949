/** What the Discord emulator keeps on stored messages and threads, and the flags it reads. */
import type { StoredMessage, StoredThread } from '../core/index.js';

/** Discord's message flags the emulator reads or sets (discord-api-docs, Message → Message Flags). */
export const MessageFlag = {
  SuppressEmbeds: 1 << 2,
  HasThread: 1 << 5,
  SuppressNotifications: 1 << 12,
  IsVoiceMessage: 1 << 13,
  IsComponentsV2: 1 << 15,
} as const;

/** "only SUPPRESS_EMBEDS, SUPPRESS_NOTIFICATIONS, IS_VOICE_MESSAGE, and IS_COMPONENTS_V2 can be set" on create. */
export const CREATE_SETTABLE_FLAGS =
  MessageFlag.SuppressEmbeds |
  MessageFlag.SuppressNotifications |
  MessageFlag.IsVoiceMessage |
  MessageFlag.IsComponentsV2;

/**
 * An edit may set or unset SUPPRESS_EMBEDS, and set — never unset —
 * IS_COMPONENTS_V2 (discord-api-docs, Message → Edit Message).
 */
export const EDIT_SETTABLE_FLAGS = MessageFlag.SuppressEmbeds;
export const EDIT_SET_ONLY_FLAGS = MessageFlag.IsComponentsV2;

export const MessageType = { Default: 0, Reply: 19 } as const;

export interface Reaction {
  /** `👍` or `name:id` for a custom emoji. */
  emoji: string;
  /** Who reacted (bot and person ids). */
  users: string[];
}

/** What the emulator keeps on a stored message besides the text. */
export interface DiscordMessageData {
  /** The channel the message is in: the thread channel for a thread message. */
  channelId: string;
  type: number;
  flags: number;
  embeds: Record<string, unknown>[];
  /** `@everyone`/`@here` parsed as pings (Discord's `mention_everyone`). */
  mentionEveryone: boolean;
  mentionRoles: string[];
  reactions: Reaction[];
  messageReference?: { message_id: string; channel_id: string };
  nonce?: string;
  authorName: string;
  /** Message components as sent (Action Rows; with IS_COMPONENTS_V2 the whole message). */
  components?: Record<string, unknown>[];
}

/** What the emulator keeps on a stored thread (a public thread channel started from a message). */
export interface DiscordThreadData {
  name: string;
  ownerId: string;
  archived: boolean;
  archiveTimestamp: number;
  autoArchiveDuration: number;
  createdAt: number;
  /** People in the thread (they get its notifications): the starter message's author and whoever posted. */
  members: string[];
  messageCount: number;
}

export const messageData = (message: StoredMessage) => message.data as unknown as DiscordMessageData;
export const threadData = (thread: StoredThread) => thread.data as unknown as DiscordThreadData;
