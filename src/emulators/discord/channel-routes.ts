/**
 * Discord's channel, thread and user routes the emulator serves
 * (discord-api-docs, Resources → Channel / Message / User): get a channel,
 * start a thread from a message, archive or rename a thread, the current
 * bot user and opening a DM.
 */
import { channelJson, userJson } from './api-objects.js';
import { ChannelType } from './channels.js';
import { discordError, invalidFormBody } from './discord-errors.js';
import { parseCreateDm, parseModifyThread, parseStartThread } from './request-bodies.js';
import { callerOf, messageIn, pathChannel, type RouteFactory, whereabouts } from './route-kit.js';
import { openThreadOn, setArchived, threadChannel } from './threads.js';
import { threadData } from './world.js';

export const getChannel: RouteFactory = (request) => {
  const channel = pathChannel(request);
  return {
    op: 'other',
    ...whereabouts(request, channel),
    handle: () => {
      if (!channel) return discordError('unknownChannel');
      return { status: 200, body: channelJson(request.world, channel) };
    },
  };
};

/**
 * Modify Channel, for threads only: `archived` (what a moderator's or
 * person's "Close Thread" does) and `name`. The bot has no Manage Channels
 * permission on other channels.
 */
export const modifyChannel: RouteFactory = (request) => {
  const channel = pathChannel(request);
  const archived = (request.req.body as { archived?: unknown } | undefined)?.archived;
  return {
    op: 'other',
    ...whereabouts(request, channel),
    ...(typeof archived === 'boolean' ? { details: { archived } } : {}),
    handle: () => {
      if (!channel) return discordError('unknownChannel');
      if (channel.type !== ChannelType.PublicThread) return discordError('missingPermissions');
      const parsed = parseModifyThread(request.req.body);
      if (!parsed.ok) return invalidFormBody(parsed.issues);
      const thread = threadData(channel.thread);
      // "Requires the thread to have archived set to false or be set to false in the request."
      if (thread.archived && parsed.value.archived !== false) return discordError('threadArchived');
      if (parsed.value.archived !== undefined)
        setArchived(request.world, channel.thread, parsed.value.archived);
      if (parsed.value.name !== undefined) thread.name = parsed.value.name;
      return { status: 200, body: channelJson(request.world, channel) };
    },
  };
};

/** Start Thread from Message: the thread's id is the message's id; guild text channels only. */
export const startThread: RouteFactory = (request) => {
  const channel = pathChannel(request);
  return {
    op: 'thread',
    ...whereabouts(request, channel),
    thread: request.params.message ?? null,
    messageId: request.params.message ?? null,
    handle: () => {
      const { world } = request;
      const bot = callerOf(request);
      if (!channel) return discordError('unknownChannel');
      if (channel.type !== ChannelType.GuildText) return discordError('wrongChannelType');
      const parsed = parseStartThread(request.req.body);
      if (!parsed.ok) return invalidFormBody(parsed.issues);
      const starter = messageIn(world, channel, request.params.message ?? '');
      if (!starter) return discordError('unknownMessage');
      if (world.ctx.store.threadOfRoot(starter.id)) return discordError('threadExists');
      const thread = openThreadOn(world, starter, {
        ownerId: bot.id,
        ownerIsPerson: false,
        name: parsed.value.name,
        autoArchiveDuration: parsed.value.autoArchiveDuration,
      });
      return {
        status: 201,
        body: channelJson(world, threadChannel(thread)),
        record: {
          details: { name: parsed.value.name, autoArchiveDuration: parsed.value.autoArchiveDuration },
        },
      };
    },
  };
};

export const getCurrentUser: RouteFactory = (request) => ({
  op: 'other',
  space: null,
  handle: () => {
    const bot = callerOf(request);
    // Get Current User answers the private fields too (the spec's UserPIIResponse).
    return {
      status: 200,
      body: { ...userJson(bot.id, bot.username, true), mfa_enabled: false, locale: 'en-US' },
    };
  },
});

/** Create DM: the DM channel with that person (the same one on every call). */
export const createDm: RouteFactory = (request) => ({
  op: 'other',
  space: null,
  handle: () => {
    const parsed = parseCreateDm(request.req.body);
    if (!parsed.ok) return invalidFormBody(parsed.issues);
    const { world } = request;
    const dm = world.channels.openDm(parsed.value.recipientId, world.newId);
    return { status: 200, body: channelJson(world, dm), record: { space: dm.id } };
  },
});

/**
 * Trigger Typing Indicator: 204; the person sees "… is typing" for about
 * 10 s or until the bot's next message (discord-api-docs, Channel → Trigger
 * Typing Indicator). Recorded as `other` with `details.typing`.
 */
export const triggerTyping: RouteFactory = (request) => {
  const channel = pathChannel(request);
  return {
    op: 'other',
    ...whereabouts(request, channel),
    details: { typing: true },
    handle: () => {
      if (!channel) return discordError('unknownChannel');
      return { status: 204 };
    },
  };
};
