/**
 * The REST routes around the gateway:
 * - `GET /gateway/bot` (https://discord.com/developers/docs/events/gateway#get-gateway-bot):
 *   where to connect, one shard, the session start limit; 401 for a token
 *   Discord does not know;
 * - `GET /gateway` (https://discord.com/developers/docs/events/gateway#get-gateway): the URL only;
 * - `POST /interactions/{id}/{token}/callback`
 *   (https://discord.com/developers/docs/interactions/receiving-and-responding#create-interaction-response):
 *   the answer to an interaction, once, within its deadline (else 10062
 *   Unknown interaction; a second answer is 40060). It needs no bot token (the
 *   interaction token is the credential) and no rate limit counts it.
 */
import type { EmulatorRequest, HttpAnswer, PlatformRoute } from '../core/index.js';
import { discordError, invalidFormBody } from './discord-errors.js';
import { formIssue } from './form-errors.js';
import type { DiscordGateway } from './gateway.js';
import { CallbackType, EPHEMERAL_FLAG } from './gateway-payloads.js';
import type { DiscordWorld } from './world.js';

const GATEWAY_BOT = /^\/api\/v10\/gateway\/bot\/?$/;
const GATEWAY = /^\/api\/v10\/gateway\/?$/;
const CALLBACK = /^\/api\/v10\/interactions\/([^/]+)\/([^/]+)\/callback$/;

/** Sessions a bot may start per day, as Discord's default answer says. */
const SESSION_START_TOTAL = 1000;
const DAY_MS = 86_400_000;

const unknownInteraction: HttpAnswer = { status: 404, body: { code: 10062, message: 'Unknown interaction' } };
const alreadyAcknowledged: HttpAnswer = {
  status: 400,
  body: { code: 40060, message: 'Interaction has already been acknowledged.' },
};

const ANSWERED_TYPES: ReadonlySet<number> = new Set(Object.values(CallbackType));

/** The bot token of `Authorization: Bot <token>`; null when absent or another scheme. */
function botToken(req: EmulatorRequest): string | null {
  const match = /^Bot\s+(.+)$/.exec(req.headers.authorization ?? '');
  return match ? match[1]!.trim() : null;
}

export function matchGatewayRoute(req: EmulatorRequest, gateway: DiscordGateway): PlatformRoute | null {
  if (GATEWAY_BOT.test(req.path) && req.method === 'GET') {
    return {
      op: 'other',
      space: null,
      handle: () => {
        const token = botToken(req);
        if (token === null || !gateway.acceptsToken(token)) return discordError('unauthorized');
        const url = gateway.url();
        if (url === null) return { status: 503, body: { code: 0, message: 'the gateway is not attached' } };
        return {
          status: 200,
          body: {
            url,
            shards: 1,
            session_start_limit: {
              total: SESSION_START_TOTAL,
              remaining: SESSION_START_TOTAL - 1,
              reset_after: DAY_MS,
              max_concurrency: 1,
            },
          },
        };
      },
    };
  }
  if (GATEWAY.test(req.path) && req.method === 'GET') {
    return {
      op: 'other',
      space: null,
      rateLimited: false,
      handle: () => ({ status: 200, body: { url: gateway.url() } }),
    };
  }
  const callback = CALLBACK.exec(req.path);
  if (!callback || req.method !== 'POST') return null;
  const pending = gateway.interaction(callback[1]!);
  return {
    op: 'other',
    space: pending?.space ?? null,
    thread: pending?.thread ?? null,
    messageId: pending?.messageId ?? null,
    rateLimited: false,
    handle: () => {
      if (!pending || pending.token !== callback[2] || pending.state === 'expired') return unknownInteraction;
      if (pending.state === 'answered') return alreadyAcknowledged;
      const body = req.body as { type?: unknown; data?: { content?: unknown; flags?: unknown } } | undefined;
      const type = body?.type;
      if (typeof type !== 'number' || !ANSWERED_TYPES.has(type)) {
        return invalidFormBody([
          type === undefined ? formIssue.required(['type']) : formIssue.notInEnum(['type'], type),
        ]);
      }
      const content = typeof body?.data?.content === 'string' ? body.data.content : undefined;
      if (type === CallbackType.ChannelMessageWithSource && content === undefined) {
        return invalidFormBody([formIssue.required(['data', 'content'])]);
      }
      const flags = typeof body?.data?.flags === 'number' ? body.data.flags : 0;
      const ephemeral = (flags & EPHEMERAL_FLAG) !== 0;
      const withResponse = req.query.get('with_response') === 'true';
      const status = withResponse ? 200 : 204;
      gateway.answer(pending, {
        type,
        ephemeral,
        status,
        ...(type === CallbackType.ChannelMessageWithSource ? { content } : {}),
      });
      return {
        status,
        ...(withResponse
          ? {
              body: {
                interaction: {
                  id: pending.id,
                  type: 3,
                  response_message_loading: type === CallbackType.DeferredChannelMessageWithSource,
                  response_message_ephemeral: ephemeral,
                },
              },
            }
          : {}),
        record: {
          ...(content === undefined ? {} : { text: content }),
          // An ephemeral reply is seen only by the person who pressed: no notification.
          notifies: false,
          details: { interaction: pending.id, callbackType: type, ephemeral },
        },
      };
    },
  };
}

/**
 * Discord echoes every new message on the gateway, the bot's own included
 * (the bot tells them apart by `author`): a message created through REST is
 * dispatched as MESSAGE_CREATE once it exists (not for a nonce replay, which
 * created nothing).
 */
export function echoMessageCreate(
  route: PlatformRoute,
  world: DiscordWorld,
  gateway: DiscordGateway,
): PlatformRoute {
  return {
    ...route,
    handle(ctx) {
      const reply = route.handle(ctx);
      const id = reply.record?.messageId;
      if (reply.status < 300 && id && reply.record?.details?.nonceReplay !== true) {
        const message = world.ctx.store.get(id);
        if (message) void gateway.deliverMessage(world, message);
      }
      return reply;
    },
  };
}
