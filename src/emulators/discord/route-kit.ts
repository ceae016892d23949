/** What the Discord route modules share: the request they serve and the lookups every message route starts with. */
import type { EmulatorRequest, HttpAnswer, PlatformRoute, StoredMessage } from '../core/index.js';
import type { BotUser } from './apps.js';
import { ChannelType, type ResolvedChannel, spaceOf } from './channels.js';
import { discordError } from './discord-errors.js';
import { type DiscordWorld, messageData } from './world.js';

export interface RouteParams {
  channel?: string;
  message?: string;
  /** Still percent-encoded, as in the path. */
  emoji?: string;
}

export interface RouteRequest {
  world: DiscordWorld;
  req: EmulatorRequest;
  params: RouteParams;
}

export type RouteFactory = (request: RouteRequest) => PlatformRoute;

/** The bot user making the call (only in `handle`: the first call of a token creates its bot). */
export const callerOf = ({ world, req }: RouteRequest): BotUser =>
  world.apps.botFor(req.headers.authorization);

export const pathChannel = ({ world, params }: RouteRequest): ResolvedChannel | null =>
  world.channels.resolve(params.channel ?? '', world.ctx.store);

/**
 * The record's `space` and `thread` for a call on a channel (the path id when
 * the channel is unknown). A thread's calls belong to the parent's
 * conversation but count against the thread's own buckets, as on Discord.
 */
export function whereabouts(request: RouteRequest, channel: ResolvedChannel | null) {
  if (!channel) return { space: request.params.channel ?? null, thread: null };
  if (channel.type !== ChannelType.PublicThread) return { space: channel.id, thread: null };
  return { space: spaceOf(channel), thread: channel.id, rateLimitSpace: channel.id };
}

/** A live message of that channel (a thread's messages belong to the thread channel, not its parent). */
export function messageIn(
  world: DiscordWorld,
  channel: ResolvedChannel,
  messageId: string,
): StoredMessage | null {
  const message = world.ctx.store.get(messageId);
  if (!message || message.deleted || messageData(message).channelId !== channel.id) return null;
  return message;
}

export type Lookup<T> = { ok: true; value: T } | { ok: false; answer: HttpAnswer };

/** The channel and message a `/channels/{c}/messages/{m}…` route acts on, or Discord's 10003 / 10008. */
export function channelAndMessage(
  request: RouteRequest,
  channel: ResolvedChannel | null,
): Lookup<{ channel: ResolvedChannel; message: StoredMessage }> {
  if (!channel) return { ok: false, answer: discordError('unknownChannel') };
  const message = messageIn(request.world, channel, request.params.message ?? '');
  if (!message) return { ok: false, answer: discordError('unknownMessage') };
  return { ok: true, value: { channel, message } };
}

/** A string body field for the record (`text` of a create or an edit), null when absent or not a string. */
export function bodyText(req: EmulatorRequest): string | null {
  const content = (req.body as { content?: unknown } | undefined)?.content;
  return typeof content === 'string' ? content : null;
}
