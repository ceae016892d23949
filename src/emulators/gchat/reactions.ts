/**
 * Reactions (spaces.messages.reactions), as googleapis calls them:
 * - `POST   /v1/spaces/{space}/messages/{message}/reactions`             create: `{emoji: {unicode}}` → the Reaction
 * - `GET    /v1/spaces/{space}/messages/{message}/reactions`             list (`filter` is not read: every reaction)
 * - `DELETE /v1/spaces/{space}/messages/{message}/reactions/{reaction}`  delete
 *
 * A reaction is a write against the space's 60/min (op `reaction`) and
 * notifies no one. Google lets only user credentials react; the emulator
 * takes the app's own credentials too (the caller is named as the app's
 * `users/…`, type BOT), so a setup with user or delegated credentials can be
 * tested. Reacting twice with the same emoji is 409 ALREADY_EXISTS; custom
 * emoji are refused (400): only `emoji.unicode`.
 */
import { randomUUID } from 'node:crypto';
import {
  addReaction,
  type EmulatorRequest,
  type HandlerContext,
  type PlatformRoute,
  removeReaction,
} from '../core/index.js';
import { GchatApiError, invalidArgument, notFound } from './google-errors.js';
import { answering, appUserFor, type GchatRouteDeps, liveMessage } from './route-kit.js';

/** What the message keeps of its reactions (in `message.data`): Chat's resource names. */
interface GchatReaction {
  id: string;
  emoji: string;
  user: string;
}

const REACTIONS_KEY = 'gchatReactions';

const reactionsOf = (data: Record<string, unknown>): GchatReaction[] =>
  (data[REACTIONS_KEY] as GchatReaction[] | undefined) ?? [];

const resource = (messageName: string, reaction: GchatReaction) => ({
  name: `${messageName}/reactions/${reaction.id}`,
  user: { name: reaction.user, type: 'BOT' },
  emoji: { unicode: reaction.emoji },
});

/** One unicode emoji (a pictograph, flag or keycap), nothing else. */
const UNICODE_EMOJI =
  /^(?:\p{Extended_Pictographic}|\p{Regional_Indicator}|[#*0-9]\uFE0F?\u20E3)(?:\p{Extended_Pictographic}|\p{Emoji_Modifier}|\p{Regional_Indicator}|\u200D|\uFE0F)*$/u;

function emojiOf(body: unknown): string {
  const emoji = (body as { emoji?: { unicode?: unknown; customEmoji?: unknown } } | null)?.emoji;
  if (emoji?.customEmoji !== undefined) throw invalidArgument('Custom emoji are not available to this app.');
  const unicode = emoji?.unicode;
  if (typeof unicode !== 'string' || !UNICODE_EMOJI.test(unicode))
    throw invalidArgument(
      `Invalid reaction: emoji.unicode must be one unicode emoji, got ${JSON.stringify(unicode)}.`,
    );
  return unicode;
}

export function reactionsRoute(
  req: EmulatorRequest,
  space: string,
  messageName: string,
  reactionId: string | undefined,
  ctx: HandlerContext,
  deps: GchatRouteDeps,
): PlatformRoute | null {
  const { world } = deps;
  const target = world.resolveMessageName(messageName);
  const where = { space, messageId: target, thread: ctx.store.get(target)?.thread ?? null };
  if (reactionId === undefined && req.method === 'GET') {
    const details = { apiMethod: 'spaces.messages.reactions.list' };
    return {
      op: 'other',
      ...where,
      rateLimited: false,
      details,
      handle: () =>
        answering(details, () => {
          const message = liveMessage(ctx, world, space, messageName);
          return {
            status: 200,
            body: { reactions: reactionsOf(message.data).map((r) => resource(message.id, r)) },
          };
        }),
    };
  }
  if (reactionId === undefined && req.method === 'POST') {
    const details = { apiMethod: 'spaces.messages.reactions.create' };
    return {
      op: 'reaction',
      ...where,
      details,
      handle: () =>
        answering(details, () => {
          world.space(space, ctx.now());
          const message = liveMessage(ctx, world, space, messageName);
          const emoji = emojiOf(req.body);
          const user = appUserFor(req.headers.authorization);
          const list = reactionsOf(message.data);
          if (list.some((r) => r.emoji === emoji && r.user === user))
            throw new GchatApiError(409, `Reaction ${emoji} by ${user} already exists.`);
          const reaction: GchatReaction = { id: randomUUID(), emoji, user };
          message.data[REACTIONS_KEY] = [...list, reaction];
          addReaction(message, { emoji, user });
          return {
            status: 200,
            body: resource(message.id, reaction),
            record: {
              messageId: message.id,
              thread: message.thread,
              notifies: false,
              mentions: [],
              details: { ...details, emoji },
            },
          };
        }),
    };
  }
  if (reactionId !== undefined && req.method === 'DELETE') {
    const details = { apiMethod: 'spaces.messages.reactions.delete', reaction: 'remove' };
    return {
      op: 'reaction',
      ...where,
      details,
      handle: () =>
        answering(details, () => {
          world.space(space, ctx.now());
          const message = liveMessage(ctx, world, space, messageName);
          const list = reactionsOf(message.data);
          const found = list.find((r) => r.id === reactionId);
          if (!found) throw notFound(`reaction ${JSON.stringify(`${message.id}/reactions/${reactionId}`)}`);
          message.data[REACTIONS_KEY] = list.filter((r) => r !== found);
          removeReaction(message, { emoji: found.emoji, user: found.user });
          return {
            status: 200,
            body: {},
            record: {
              messageId: message.id,
              thread: message.thread,
              notifies: false,
              mentions: [],
              details: { ...details, emoji: found.emoji },
            },
          };
        }),
    };
  }
  return null;
}
