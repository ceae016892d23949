/**
 * The Discord PlatformHandler: routes `/api/v10/…` onto the emulator's store,
 * posts a person's messages for `/_emulator/inbound` (and dispatches them on
 * the gateway), presses buttons for `/_emulator/click`, and words the core's
 * errors (faults, 429s, unknown routes) Discord's way.
 */
import {
  EmulatorInputError,
  type HandlerContext,
  type InboundInput,
  type PlatformHandler,
} from '../core/index.js';
import { createAppDirectory } from './apps.js';
import {
  ChannelType,
  createChannelRegistry,
  DEFAULT_PERSON_ID,
  type DiscordChannelSeed,
  type ResolvedChannel,
} from './channels.js';
import { componentButtons, componentText } from './components.js';
import { createDiscordErrorResponse } from './error-response.js';
import { createDiscordGateway, type DiscordGateway, type DiscordGatewayOptions } from './gateway.js';
import { echoMessageCreate, matchGatewayRoute } from './gateway-routes.js';
import { createNonceLog } from './nonce-log.js';
import { MAX_THREAD_NAME_CHARS } from './request-bodies.js';
import { messageIn } from './route-kit.js';
import { matchDiscordRoute } from './route-table.js';
import { createSnowflakeGenerator } from './snowflake.js';
import { countThreadMessage, DEFAULT_AUTO_ARCHIVE_MINUTES, openThreadOn, setArchived } from './threads.js';
import { type DiscordMessageData, type DiscordWorld, MessageType, messageData } from './world.js';

export interface DiscordHandlerOptions {
  now: () => number;
  strict: boolean;
  channels: readonly DiscordChannelSeed[];
  /** The gateway (docs/emulators.md, "Discord gateway"). */
  gateway?: DiscordGatewayOptions;
}

export interface DiscordHandler extends PlatformHandler {
  /** The world the routes see, over the core's store and clock. */
  worldOf(ctx: HandlerContext): DiscordWorld;
  readonly gateway: DiscordGateway;
}

/** The thread a person's message goes in: an existing one, or one the person starts on that message. */
function threadForInbound(world: DiscordWorld, channel: ResolvedChannel, input: InboundInput, user: string) {
  const threadId = input.threadId!;
  if (channel.type === ChannelType.DM) {
    throw new EmulatorInputError(
      `Discord DMs have no threads: leave out threadId for DM channel ${channel.id}`,
    );
  }
  const existing = world.ctx.store.getThread(threadId);
  if (existing) {
    if (existing.space !== channel.id) {
      throw new EmulatorInputError(`thread ${threadId} is in channel ${existing.space}, not ${channel.id}`);
    }
    return existing;
  }
  const starter = messageIn(world, channel, threadId);
  if (!starter) {
    throw new EmulatorInputError(`no message ${threadId} in channel ${channel.id} to start a thread on`, 404);
  }
  return openThreadOn(world, starter, {
    ownerId: user,
    ownerIsPerson: true,
    name: [...starter.text].slice(0, MAX_THREAD_NAME_CHARS).join('') || 'thread',
    autoArchiveDuration: DEFAULT_AUTO_ARCHIVE_MINUTES,
  });
}

export function createDiscordHandler(opts: DiscordHandlerOptions): DiscordHandler {
  const newId = createSnowflakeGenerator(opts.now);
  const channels = createChannelRegistry(opts.strict);
  for (const seed of opts.channels) channels.declare(seed);
  const apps = createAppDirectory(newId);
  const nonces = createNonceLog(opts.now);
  const guildId = newId();
  const worldOf = (ctx: HandlerContext): DiscordWorld => ({
    ctx,
    channels,
    apps,
    nonces,
    guildId,
    strict: opts.strict,
    newId,
  });

  const gateway = createDiscordGateway(opts.gateway);

  return {
    worldOf,
    gateway,
    match(req, ctx) {
      const world = worldOf(ctx);
      const gatewayRoute = matchGatewayRoute(req, gateway);
      if (gatewayRoute) return gatewayRoute;
      const route = matchDiscordRoute(req, world);
      return route?.op === 'create' ? echoMessageCreate(route, world, gateway) : route;
    },
    inbound(input, ctx) {
      const world = worldOf(ctx);
      const channel = channels.resolve(input.space, ctx.store);
      if (!channel) {
        throw opts.strict
          ? new EmulatorInputError(`unknown channel ${input.space}: declare it with the channels option`, 404)
          : new EmulatorInputError(
              `space ${JSON.stringify(input.space)} is not a Discord channel id (snowflake digits)`,
            );
      }
      if (channel.type === ChannelType.PublicThread) {
        throw new EmulatorInputError(
          `${input.space} is a thread: post in it with {space: "${channel.parentId}", threadId: "${channel.id}"}`,
        );
      }
      const user = input.user ?? DEFAULT_PERSON_ID;
      const thread = input.threadId === undefined ? undefined : threadForInbound(world, channel, input, user);
      if (thread) setArchived(world, thread, false);
      const id = newId();
      const data: DiscordMessageData = {
        channelId: thread?.id ?? channel.id,
        type: MessageType.Default,
        flags: 0,
        embeds: [],
        mentionEveryone: false,
        mentionRoles: [],
        reactions: [],
        authorName: user,
      };
      ctx.store.create({
        id,
        space: channel.id,
        thread: thread?.id ?? null,
        text: input.text,
        author: { kind: 'user', id: user },
        data: data as unknown as Record<string, unknown>,
      });
      if (thread) countThreadMessage(thread, { id: user, isPerson: true });
      // A Discord thread's id is its starter message's id: a reply to this message would go in thread `id`.
      return { messageId: id, threadId: thread?.id ?? id };
    },
    errorResponse: createDiscordErrorResponse(opts.now),
    // `GET /_emulator/messages`: a components message's Text Display lines and its buttons, as a person sees them.
    messageContent(message) {
      const components = messageData(message).components ?? [];
      if (components.length === 0) return undefined;
      return { lines: componentText(components), buttons: componentButtons(components, { withLinks: true }) };
    },
    reset: () => nonces.clear(),
    attach: (server, ctx) => gateway.attach(server, worldOf(ctx), ctx.url),
    detach: () => gateway.detach(),
    deliverInbound: (message, ctx) => gateway.deliverMessage(worldOf(ctx), message),
    click: (input, ctx) => gateway.click(worldOf(ctx), input),
    endpoints: {
      'GET gateway': () => ({
        status: 200,
        body: { url: gateway.url(), connections: gateway.connections(), sessions: gateway.sessions() },
      }),
    },
  };
}
