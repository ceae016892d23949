/**
 * The emulator's state as Discord API objects (discord-api-docs, Resources →
 * Message / Channel / User): what the official client parses.
 */
import type { StoredMessage } from '../core/index.js';
import { ChannelType, type ResolvedChannel } from './channels.js';
import { componentsJson } from './component-objects.js';
import { type DiscordWorld, messageData, threadData } from './world.js';

/** ISO 8601 with microseconds and an explicit offset, as Discord writes timestamps. */
export function discordTimestamp(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000+00:00');
}

export function userJson(id: string, username: string, bot: boolean) {
  return {
    id,
    username,
    discriminator: '0',
    global_name: null,
    avatar: null,
    ...(bot ? { bot: true } : {}),
    public_flags: 0,
    flags: 0,
    // The guild whose tag the user shows; none here (the spec requires the field, nullable).
    primary_guild: null,
  };
}

/** The newest message of a channel (a thread's messages count for the thread, not its parent). */
function lastMessageId(world: DiscordWorld, channelId: string, space: string): string | null {
  const messages = world.ctx.store.inSpace(space);
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index]!;
    if (messageData(message).channelId === channelId) return message.id;
  }
  return null;
}

export function channelJson(world: DiscordWorld, channel: ResolvedChannel) {
  switch (channel.type) {
    case ChannelType.GuildText:
      return {
        id: channel.id,
        type: channel.type,
        guild_id: world.guildId,
        name: channel.name,
        position: 0,
        parent_id: null,
        topic: null,
        nsfw: false,
        flags: 0,
        rate_limit_per_user: 0,
        permission_overwrites: [],
        last_message_id: lastMessageId(world, channel.id, channel.id),
      };
    case ChannelType.DM:
      return {
        id: channel.id,
        type: channel.type,
        flags: 0,
        last_message_id: lastMessageId(world, channel.id, channel.id),
        recipients: [userJson(channel.recipientId, channel.recipientId, false)],
      };
    case ChannelType.PublicThread: {
      const thread = threadData(channel.thread);
      return {
        id: channel.id,
        type: channel.type,
        guild_id: world.guildId,
        parent_id: channel.parentId,
        owner_id: thread.ownerId,
        name: thread.name,
        flags: 0,
        rate_limit_per_user: 0,
        last_message_id: lastMessageId(world, channel.id, channel.parentId),
        message_count: thread.messageCount,
        total_message_sent: thread.messageCount,
        member_count: thread.members.length,
        thread_metadata: {
          archived: thread.archived,
          archive_timestamp: discordTimestamp(thread.archiveTimestamp),
          auto_archive_duration: thread.autoArchiveDuration,
          locked: false,
          create_timestamp: discordTimestamp(thread.createdAt),
        },
      };
    }
  }
}

/** `{id: null, name: '👍'}` or `{id: '123', name: 'party'}` for `party:123`. */
function emojiJson(emoji: string) {
  const custom = /^(.+):(\d+)$/.exec(emoji);
  return custom ? { id: custom[2], name: custom[1] } : { id: null, name: emoji };
}

/**
 * A message as the API returns it; `viewerId` (the calling bot) decides each
 * reaction's `me`. A reply embeds the message it references, one level deep
 * (`nested` marks that inner copy).
 */
export function messageJson(
  world: DiscordWorld,
  message: StoredMessage,
  viewerId: string,
  nested = false,
): Record<string, unknown> {
  const data = messageData(message);
  const { store } = world.ctx;
  const thread = store.threadOfRoot(message.id);
  const threadChannel = thread
    ? channelJson(world, { type: ChannelType.PublicThread, id: thread.id, parentId: thread.space, thread })
    : undefined;
  const referenced = data.messageReference ? store.get(data.messageReference.message_id) : undefined;
  return {
    id: message.id,
    channel_id: data.channelId,
    author: userJson(message.author.id, data.authorName, message.author.kind === 'app'),
    // Empty on a Components V2 message: what it shows is in its components.
    content: message.text,
    timestamp: discordTimestamp(message.createdAt),
    edited_timestamp: message.updatedAt === null ? null : discordTimestamp(message.updatedAt),
    tts: false,
    mention_everyone: data.mentionEveryone,
    mentions: [],
    mention_roles: data.mentionRoles,
    attachments: [],
    embeds: data.embeds,
    pinned: false,
    type: data.type,
    flags: data.flags,
    components: componentsJson(data.components ?? []),
    ...(data.nonce === undefined ? {} : { nonce: data.nonce }),
    ...(data.reactions.length === 0
      ? {}
      : {
          reactions: data.reactions.map((reaction) => ({
            emoji: emojiJson(reaction.emoji),
            count: reaction.users.length,
            count_details: { burst: 0, normal: reaction.users.length },
            me: reaction.users.includes(viewerId),
            me_burst: false,
            burst_colors: [],
          })),
        }),
    ...(data.messageReference
      ? {
          message_reference: { type: 0, ...data.messageReference },
          ...(nested
            ? {}
            : {
                referenced_message:
                  referenced && !referenced.deleted ? messageJson(world, referenced, viewerId, true) : null,
              }),
        }
      : {}),
    ...(threadChannel ? { thread: threadChannel } : {}),
  };
}
