/**
 * Discord's message routes (discord-api-docs, Resources → Message): create,
 * get, edit, delete and the bot's own reaction, with the platform's errors
 * and the notification accounting of each call.
 */
import { addReaction, type PlatformReply, removeReaction } from '../core/index.js';
import { firedBroadMentions } from './allowed-mentions.js';
import { messageJson } from './api-objects.js';
import { ChannelType, isArchived, type ResolvedChannel, spaceOf } from './channels.js';
import { componentText, legacyFieldIssues } from './components.js';
import { discordError, invalidFormBody } from './discord-errors.js';
import { parseCreateMessage, parseEditMessage } from './request-bodies.js';
import {
  bodyText,
  callerOf,
  channelAndMessage,
  messageIn,
  pathChannel,
  type RouteFactory,
  whereabouts,
} from './route-kit.js';
import { countThreadMessage, setArchived } from './threads.js';
import {
  CREATE_SETTABLE_FLAGS,
  type DiscordMessageData,
  EDIT_SET_ONLY_FLAGS,
  EDIT_SETTABLE_FLAGS,
  MessageFlag,
  MessageType,
  messageData,
  threadData,
} from './world.js';

/**
 * Would a new message by `authorId` here push a notification? A guild
 * channel's and a DM's people get new messages; a thread's only reach its
 * members (the starter message's author and whoever posted in it).
 */
function reachesSomeone(channel: ResolvedChannel, authorId: string): boolean {
  if (channel.type === ChannelType.GuildText) return true;
  if (channel.type === ChannelType.DM) return channel.recipientId !== authorId;
  return threadData(channel.thread).members.some((member) => member !== authorId);
}

/** A message older than this takes no more edits (30046): Discord allows a few, unpublished; the emulator none. */
export const EDITABLE_AGE_MS = 60 * 60_000;

const isV2 = (flags: number) => (flags & MessageFlag.IsComponentsV2) !== 0;

/** What the call sent, as a person reads it: a Components V2 message's Text Displays, else the content. */
const visibleText = (flags: number, content: string, components: readonly unknown[]) =>
  isV2(flags) ? componentText(components).join('\n') : content;

const mentionFields = (mentions: string[]) => ({
  mentionEveryone: mentions.some((mention) => mention === '@everyone' || mention === '@here'),
  mentionRoles: mentions.flatMap((mention) => /^<@&(\d+)>$/.exec(mention)?.[1] ?? []),
});

export const createMessage: RouteFactory = (request) => {
  const channel = pathChannel(request);
  return {
    op: 'create',
    ...whereabouts(request, channel),
    text: bodyText(request.req),
    handle: (): PlatformReply => {
      const { world } = request;
      const bot = callerOf(request);
      if (!channel) return discordError('unknownChannel');
      const parsed = parseCreateMessage(request.req.body);
      if (!parsed.ok) return invalidFormBody(parsed.issues);
      const body = parsed.value;
      const content = body.content ?? '';
      const components = body.components?.components ?? [];
      if (content.trim() === '' && body.embeds.length === 0 && components.length === 0) {
        return discordError('emptyMessage');
      }

      let reference: DiscordMessageData['messageReference'];
      if (body.messageReference) {
        const target = messageIn(world, channel, body.messageReference.messageId);
        if (target && (body.messageReference.channelId ?? channel.id) === channel.id) {
          reference = { message_id: target.id, channel_id: channel.id };
        } else if (body.messageReference.failIfNotExists) {
          return invalidFormBody([
            {
              path: ['message_reference'],
              code: 'MESSAGE_REFERENCE_UNKNOWN_MESSAGE',
              message: 'Unknown message',
            },
          ]);
        }
      }

      const details = {
        flags: body.flags & CREATE_SETTABLE_FLAGS,
        allowedMentions: body.allowedMentions ?? null,
        ...(body.flags & ~CREATE_SETTABLE_FLAGS ? { flagsIgnored: body.flags & ~CREATE_SETTABLE_FLAGS } : {}),
        ...(body.nonce === undefined ? {} : { nonce: body.nonce, enforceNonce: body.enforceNonce }),
        ...(reference ? { messageReference: reference.message_id } : {}),
        ...(body.embeds.length > 0 ? { embeds: body.embeds.length } : {}),
      };
      if (body.nonce !== undefined && body.enforceNonce) {
        const earlier = world.nonces.find(bot.id, channel.id, body.nonce);
        const message = earlier === undefined ? undefined : world.ctx.store.get(earlier);
        if (message && !message.deleted) {
          return {
            status: 200,
            body: messageJson(world, message, bot.id),
            record: { messageId: message.id, details: { ...details, nonceReplay: true } },
          };
        }
      }

      // "The API will helpfully automatically unarchive a thread when sending a message in that thread."
      const unarchived =
        channel.type === ChannelType.PublicThread && setArchived(world, channel.thread, false);
      const shown = visibleText(details.flags, content, components);
      const mentions = firedBroadMentions(shown, body.allowedMentions);
      const id = world.newId();
      const data: DiscordMessageData = {
        channelId: channel.id,
        type: reference ? MessageType.Reply : MessageType.Default,
        flags: details.flags,
        embeds: body.embeds,
        ...mentionFields(mentions),
        reactions: [],
        ...(reference ? { messageReference: reference } : {}),
        ...(body.nonce === undefined ? {} : { nonce: body.nonce }),
        authorName: bot.username,
        components,
      };
      const message = world.ctx.store.create({
        id,
        space: spaceOf(channel),
        thread: channel.type === ChannelType.PublicThread ? channel.id : null,
        // The message's own text field: a Components V2 message has none (its text is in its components).
        text: content,
        author: { kind: 'app', id: bot.id },
        data: data as unknown as Record<string, unknown>,
      });
      if (body.nonce !== undefined && body.enforceNonce)
        world.nonces.remember(bot.id, channel.id, body.nonce, id);
      if (channel.type === ChannelType.PublicThread) {
        countThreadMessage(channel.thread, { id: bot.id, isPerson: false });
      }
      const silent = (details.flags & MessageFlag.SuppressNotifications) !== 0;
      return {
        status: 200,
        body: messageJson(world, message, bot.id),
        record: {
          messageId: id,
          text: shown,
          notifies: !silent && reachesSomeone(channel, bot.id),
          mentions,
          details: { ...details, ...(unarchived ? { unarchived } : {}) },
        },
      };
    },
  };
};

export const getMessage: RouteFactory = (request) => {
  const channel = pathChannel(request);
  return {
    op: 'other',
    ...whereabouts(request, channel),
    messageId: request.params.message ?? null,
    handle: () => {
      const bot = callerOf(request);
      const found = channelAndMessage(request, channel);
      if (!found.ok) return found.answer;
      return { status: 200, body: messageJson(request.world, found.value.message, bot.id) };
    },
  };
};

export const editMessage: RouteFactory = (request) => {
  const channel = pathChannel(request);
  return {
    op: 'update',
    ...whereabouts(request, channel),
    messageId: request.params.message ?? null,
    text: bodyText(request.req),
    handle: (): PlatformReply => {
      const { world } = request;
      const bot = callerOf(request);
      const found = channelAndMessage(request, channel);
      if (!found.ok) return found.answer;
      const { message } = found.value;
      if (message.author.id !== bot.id) return discordError('notAuthor');
      if (isArchived(found.value.channel)) return discordError('threadArchived');
      if (world.ctx.now() - message.createdAt > EDITABLE_AGE_MS) return discordError('editWindowClosed');
      const data = messageData(message);
      const wasV2 = isV2(data.flags);
      const parsed = parseEditMessage(request.req.body, wasV2);
      if (!parsed.ok) return invalidFormBody(parsed.issues);
      const body = parsed.value;

      // SUPPRESS_EMBEDS can change; IS_COMPONENTS_V2 can be set, never unset; any other flag stays as it is.
      const flags =
        body.flags === undefined
          ? data.flags
          : (data.flags & ~EDIT_SETTABLE_FLAGS) |
            (body.flags & EDIT_SETTABLE_FLAGS) |
            (body.flags & EDIT_SET_ONLY_FLAGS);
      const flagsIgnored = body.flags === undefined ? 0 : body.flags ^ flags;
      const current = wasV2 ? '' : message.text;
      const content = body.content === undefined ? current : (body.content ?? '');
      const embeds = body.embeds ?? data.embeds;
      const components = body.components?.components ?? data.components ?? [];
      if (isV2(flags)) {
        const legacy = legacyFieldIssues({ content, embeds: embeds.length });
        if (legacy.length > 0) return invalidFormBody(legacy);
      }
      if (content.trim() === '' && embeds.length === 0 && components.length === 0) {
        return discordError('emptyMessage');
      }
      const shown = visibleText(flags, content, components);
      // New content, components or allowed_mentions re-parse the mentions; without allowed_mentions, with the defaults.
      const reparsed =
        body.content !== undefined || body.components !== undefined || body.allowedMentions !== undefined;
      const mentions = reparsed ? firedBroadMentions(shown, body.allowedMentions) : [];
      world.ctx.store.edit(message.id, content, {
        flags,
        embeds,
        components,
        ...(reparsed ? mentionFields(mentions) : {}),
      });
      return {
        status: 200,
        body: messageJson(world, message, bot.id),
        record: {
          text: shown,
          // An edit never pushes a notification.
          notifies: false,
          mentions,
          details: {
            flags,
            allowedMentions: body.allowedMentions ?? null,
            ...(body.flags === undefined ? {} : { requestedFlags: body.flags }),
            ...(flagsIgnored ? { flagsIgnored } : {}),
          },
        },
      };
    },
  };
};

export const deleteMessage: RouteFactory = (request) => {
  const channel = pathChannel(request);
  return {
    op: 'delete',
    ...whereabouts(request, channel),
    messageId: request.params.message ?? null,
    handle: () => {
      const bot = callerOf(request);
      const found = channelAndMessage(request, channel);
      if (!found.ok) return found.answer;
      const { message } = found.value;
      if (isArchived(found.value.channel)) return discordError('threadArchived');
      // In a guild the bot may delete others' messages (Manage Messages); in a DM only its own.
      if (message.author.id !== bot.id && found.value.channel.type === ChannelType.DM) {
        return discordError('dmAction');
      }
      request.world.ctx.store.markDeleted(message.id);
      return { status: 204 };
    },
  };
};

/** A Unicode emoji (pictograph, flag, keycap) or a custom `name:id`. */
const UNICODE_EMOJI = /\p{Extended_Pictographic}|\p{Regional_Indicator}|\u20e3/u;
const CUSTOM_EMOJI = /^[\w~]{2,32}:\d{1,20}$/;

function decodeEmoji(encoded: string): string | null {
  let emoji: string;
  try {
    emoji = decodeURIComponent(encoded);
  } catch {
    return null;
  }
  return CUSTOM_EMOJI.test(emoji) || UNICODE_EMOJI.test(emoji) ? emoji : null;
}

export const addOwnReaction: RouteFactory = (request) => {
  const channel = pathChannel(request);
  const emoji = decodeEmoji(request.params.emoji ?? '');
  return {
    op: 'reaction',
    ...whereabouts(request, channel),
    messageId: request.params.message ?? null,
    details: { emoji: emoji ?? request.params.emoji ?? null },
    handle: () => {
      const bot = callerOf(request);
      const found = channelAndMessage(request, channel);
      if (!found.ok) return found.answer;
      if (isArchived(found.value.channel)) return discordError('threadArchived');
      if (emoji === null) return discordError('unknownEmoji');
      const data = messageData(found.value.message);
      const reaction = data.reactions.find((existing) => existing.emoji === emoji);
      if (!reaction) data.reactions.push({ emoji, users: [bot.id] });
      else if (!reaction.users.includes(bot.id)) reaction.users.push(bot.id);
      addReaction(found.value.message, { emoji, user: bot.id });
      return { status: 204 };
    },
  };
};

/** `DELETE …/reactions/{emoji}/@me`: the bot takes its own reaction back; 204 also when it had none (as Discord). */
export const removeOwnReaction: RouteFactory = (request) => {
  const channel = pathChannel(request);
  const emoji = decodeEmoji(request.params.emoji ?? '');
  return {
    op: 'reaction',
    ...whereabouts(request, channel),
    messageId: request.params.message ?? null,
    details: { emoji: emoji ?? request.params.emoji ?? null, reaction: 'remove' },
    handle: () => {
      const bot = callerOf(request);
      const found = channelAndMessage(request, channel);
      if (!found.ok) return found.answer;
      if (isArchived(found.value.channel)) return discordError('threadArchived');
      if (emoji === null) return discordError('unknownEmoji');
      const data = messageData(found.value.message);
      const reaction = data.reactions.find((existing) => existing.emoji === emoji);
      if (reaction) {
        reaction.users = reaction.users.filter((user) => user !== bot.id);
        if (reaction.users.length === 0) data.reactions.splice(data.reactions.indexOf(reaction), 1);
      }
      removeReaction(found.value.message, { emoji, user: bot.id });
      return { status: 204 };
    },
  };
};
