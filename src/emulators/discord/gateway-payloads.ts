/**
 * What the emulator's gateway sends, as Discord shapes it
 * (https://discord.com/developers/docs/events/gateway-events): the opcodes,
 * close codes and intents it reads, and the READY, GUILD_CREATE,
 * CHANNEL_CREATE/THREAD_CREATE, MESSAGE_CREATE and INTERACTION_CREATE bodies
 * discord.js's `Client` parses.
 */
import type { StoredMessage } from '../core/index.js';
import { channelJson, discordTimestamp, messageJson, userJson } from './api-objects.js';
import type { BotUser } from './apps.js';
import { ChannelType, type ResolvedChannel } from './channels.js';
import type { DiscordWorld } from './world.js';

/** https://discord.com/developers/docs/topics/opcodes-and-status-codes#gateway-gateway-opcodes */
export const GatewayOp = {
  Dispatch: 0,
  Heartbeat: 1,
  Identify: 2,
  PresenceUpdate: 3,
  VoiceStateUpdate: 4,
  Resume: 6,
  Reconnect: 7,
  RequestGuildMembers: 8,
  InvalidSession: 9,
  Hello: 10,
  HeartbeatAck: 11,
} as const;

/** https://discord.com/developers/docs/topics/opcodes-and-status-codes#gateway-gateway-close-event-codes */
export const GatewayClose = {
  UnknownError: 4000,
  UnknownOpcode: 4001,
  DecodeError: 4002,
  NotAuthenticated: 4003,
  AuthenticationFailed: 4004,
  AlreadyAuthenticated: 4005,
  InvalidShard: 4010,
  InvalidApiVersion: 4012,
  InvalidIntents: 4013,
  DisallowedIntents: 4014,
} as const;

/** https://discord.com/developers/docs/events/gateway#gateway-intents (the ones the emulator honours). */
export const Intent = {
  Guilds: 1 << 0,
  GuildMessages: 1 << 9,
  DirectMessages: 1 << 12,
  MessageContent: 1 << 15,
} as const;

/** Intents an app must switch on in the developer portal (Bot → Privileged Gateway Intents). */
export const PRIVILEGED_INTENTS = (1 << 1) | (1 << 8) | Intent.MessageContent;

/** Every intent bit Discord defines (0–25 without the gaps is close enough: unknown bits are 4013). */
export const KNOWN_INTENTS = (1 << 26) - 1;

/** An interaction's type and a button's component type (discord-api-docs, Interactions / Components). */
export const InteractionType = { MessageComponent: 3 } as const;
export const ButtonComponentType = 2;

/** Interaction callback types the emulator answers (https://discord.com/developers/docs/interactions/receiving-and-responding#interaction-response-object-interaction-callback-type). */
export const CallbackType = {
  ChannelMessageWithSource: 4,
  DeferredChannelMessageWithSource: 5,
  DeferredUpdateMessage: 6,
} as const;

export const EPHEMERAL_FLAG = 1 << 6;

/** Permissions an app and a member have in the emulated guild: all the text ones (a decimal string, as Discord sends). */
const ALL_TEXT_PERMISSIONS = '2248473465835073';

export function readyPayload(opts: {
  bot: BotUser;
  guildId: string;
  sessionId: string;
  resumeUrl: string;
  shard: [number, number];
}) {
  return {
    v: 10,
    user: { ...userJson(opts.bot.id, opts.bot.username, true), verified: true, mfa_enabled: false, flags: 0 },
    guilds: [{ id: opts.guildId, unavailable: true }],
    session_id: opts.sessionId,
    resume_gateway_url: opts.resumeUrl,
    shard: opts.shard,
    // A bot's application id is its user id.
    application: { id: opts.bot.id, flags: 0 },
  };
}

/**
 * The one emulated guild, as GUILD_CREATE sends it. Its channels reach a
 * session one by one (CHANNEL_CREATE / THREAD_CREATE before their first
 * event), since in non-strict mode any snowflake is a channel.
 */
export function guildCreatePayload(world: DiscordWorld, bot: BotUser, at: number) {
  const joined = discordTimestamp(at);
  return {
    id: world.guildId,
    name: 'turnlog emulator',
    icon: null,
    splash: null,
    discovery_splash: null,
    owner_id: bot.id,
    afk_channel_id: null,
    afk_timeout: 300,
    verification_level: 0,
    default_message_notifications: 1,
    explicit_content_filter: 0,
    roles: [
      {
        id: world.guildId,
        name: '@everyone',
        color: 0,
        hoist: false,
        icon: null,
        unicode_emoji: null,
        position: 0,
        permissions: ALL_TEXT_PERMISSIONS,
        managed: false,
        mentionable: false,
        flags: 0,
      },
    ],
    emojis: [],
    features: [],
    mfa_level: 0,
    application_id: null,
    system_channel_id: null,
    system_channel_flags: 0,
    rules_channel_id: null,
    vanity_url_code: null,
    description: null,
    banner: null,
    premium_tier: 0,
    preferred_locale: 'en-US',
    public_updates_channel_id: null,
    nsfw_level: 0,
    premium_progress_bar_enabled: false,
    safety_alerts_channel_id: null,
    stickers: [],
    joined_at: joined,
    large: false,
    unavailable: false,
    member_count: 2,
    voice_states: [],
    members: [memberJson(bot.id, bot.username, true, joined)],
    channels: [],
    threads: [],
    presences: [],
    stage_instances: [],
    guild_scheduled_events: [],
    soundboard_sounds: [],
  };
}

export function memberJson(id: string, username: string, bot: boolean, joinedAt: string) {
  return {
    user: userJson(id, username, bot),
    nick: null,
    avatar: null,
    roles: [],
    joined_at: joinedAt,
    premium_since: null,
    deaf: false,
    mute: false,
    flags: 0,
    pending: false,
    permissions: ALL_TEXT_PERMISSIONS,
  };
}

/** The channels a session must know before an event in `channel`: a thread's parent first. */
export function channelsToAnnounce(world: DiscordWorld, channel: ResolvedChannel): ResolvedChannel[] {
  if (channel.type === ChannelType.DM) return [];
  if (channel.type === ChannelType.GuildText) return [channel];
  const parent = world.channels.resolve(channel.parentId, world.ctx.store);
  return [...(parent ? [parent] : []), channel];
}

/** CHANNEL_CREATE or THREAD_CREATE for a guild channel the session has not seen yet. */
export function announcement(world: DiscordWorld, channel: ResolvedChannel) {
  const body = channelJson(world, channel);
  return channel.type === ChannelType.PublicThread
    ? { t: 'THREAD_CREATE', d: { ...body, newly_created: false } }
    : { t: 'CHANNEL_CREATE', d: body };
}

/** The channel a stored message is in (a thread message's is the thread channel); null when unknown. */
export function channelOfMessage(world: DiscordWorld, message: StoredMessage): ResolvedChannel | null {
  const channelId = (message.data as { channelId?: string }).channelId ?? message.space;
  return world.channels.resolve(channelId, world.ctx.store);
}

/**
 * MESSAGE_CREATE's body: the message plus the gateway's extra fields
 * (`guild_id`, `member`, `mentions`, `channel_type`). Without the
 * MESSAGE_CONTENT intent a guild message arrives with empty content, as on
 * Discord (DMs keep theirs).
 */
export function messageCreatePayload(
  world: DiscordWorld,
  message: StoredMessage,
  channel: ResolvedChannel,
  viewer: BotUser,
  withContent: boolean,
) {
  const body = messageJson(world, message, viewer.id);
  const inGuild = channel.type !== ChannelType.DM;
  const author = body.author as { id: string; username: string; bot?: boolean };
  return {
    ...body,
    ...(inGuild && !withContent ? { content: '', embeds: [], components: [] } : {}),
    ...(inGuild
      ? {
          guild_id: world.guildId,
          member: (({ user: _user, ...member }) => member)(
            memberJson(author.id, author.username, author.bot === true, discordTimestamp(message.createdAt)),
          ),
        }
      : {}),
    mentions: [],
    channel_type: channel.type,
  };
}

/** INTERACTION_CREATE's body for a press of the button `customId` on `message` by `person`. */
export function buttonInteractionPayload(opts: {
  world: DiscordWorld;
  id: string;
  token: string;
  app: BotUser;
  message: StoredMessage;
  channel: ResolvedChannel;
  customId: string;
  person: string;
  at: number;
}) {
  const { world, channel } = opts;
  const inGuild = channel.type !== ChannelType.DM;
  const person = userJson(opts.person, opts.person, false);
  return {
    id: opts.id,
    application_id: opts.app.id,
    type: InteractionType.MessageComponent,
    token: opts.token,
    version: 1,
    data: { custom_id: opts.customId, component_type: ButtonComponentType },
    channel: channelJson(world, channel),
    channel_id: channel.id,
    message: messageJson(world, opts.message, opts.app.id),
    ...(inGuild
      ? {
          guild_id: world.guildId,
          guild_locale: 'en-US',
          member: memberJson(opts.person, opts.person, false, discordTimestamp(opts.at)),
        }
      : { user: person }),
    app_permissions: ALL_TEXT_PERMISSIONS,
    locale: 'en-US',
    entitlements: [],
    // https://discord.com/developers/docs/interactions/receiving-and-responding#interaction-object-authorizing-integration-owners-object
    authorizing_integration_owners: inGuild ? { '0': world.guildId } : { '1': opts.person },
    context: inGuild ? 0 : 1,
    attachment_size_limit: 10 * 1024 * 1024,
  };
}
