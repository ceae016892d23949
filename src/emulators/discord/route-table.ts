/**
 * Which Discord v10 route a request is. The emulator serves
 * `/api/v10/<route>` (where `@discordjs/rest` with `api: url + '/api'`
 * sends it); ids in the path must be snowflakes (else 50035), a known path
 * with another method is 405, anything else the core's 404.
 */
import type { EmulatorRequest, PlatformReply, PlatformRoute } from '../core/index.js';
import {
  createDm,
  getChannel,
  getCurrentUser,
  modifyChannel,
  startThread,
  triggerTyping,
} from './channel-routes.js';
import { discordError, invalidFormBody } from './discord-errors.js';
import { formIssue } from './form-errors.js';
import {
  addOwnReaction,
  createMessage,
  deleteMessage,
  editMessage,
  getMessage,
  removeOwnReaction,
} from './message-routes.js';
import { rateLimitHeaders } from './rate-limit-headers.js';
import type { RouteFactory, RouteParams } from './route-kit.js';
import { isSnowflake } from './snowflake.js';
import type { DiscordWorld } from './world.js';

export const API_PREFIX = '/api/v10';

interface RouteSpec {
  /** Anchored; each `([^/]+)` captures the next of `params`. */
  path: RegExp;
  params: (keyof RouteParams)[];
  methods: Record<string, RouteFactory>;
}

const ROUTES: RouteSpec[] = [
  // The client percent-encodes `@me` in user routes (`/users/%40me`), not in reaction routes.
  { path: /^\/users\/(?:@|%40)me$/, params: [], methods: { GET: getCurrentUser } },
  { path: /^\/users\/(?:@|%40)me\/channels$/, params: [], methods: { POST: createDm } },
  { path: /^\/channels\/([^/]+)$/, params: ['channel'], methods: { GET: getChannel, PATCH: modifyChannel } },
  { path: /^\/channels\/([^/]+)\/messages$/, params: ['channel'], methods: { POST: createMessage } },
  { path: /^\/channels\/([^/]+)\/typing$/, params: ['channel'], methods: { POST: triggerTyping } },
  {
    path: /^\/channels\/([^/]+)\/messages\/([^/]+)$/,
    params: ['channel', 'message'],
    methods: { GET: getMessage, PATCH: editMessage, DELETE: deleteMessage },
  },
  {
    path: /^\/channels\/([^/]+)\/messages\/([^/]+)\/threads$/,
    params: ['channel', 'message'],
    methods: { POST: startThread },
  },
  {
    path: /^\/channels\/([^/]+)\/messages\/([^/]+)\/reactions\/([^/]+)\/(?:@|%40)me$/,
    params: ['channel', 'message', 'emoji'],
    methods: { PUT: addOwnReaction, DELETE: removeOwnReaction },
  },
];

const ID_FIELDS = { channel: 'channel_id', message: 'message_id' } as const;

/** A route that answers the same whatever the state (405, a bad path id); recorded as `other`. */
const fixedAnswer = (space: string | null, answer: PlatformReply): PlatformRoute => ({
  op: 'other',
  space,
  handle: () => answer,
});

/** Every answer of a handled call carries the bucket's `X-RateLimit-*` headers, as on Discord. */
function withRateLimitHeaders(route: PlatformRoute, world: DiscordWorld): PlatformRoute {
  return {
    ...route,
    handle: (ctx) => {
      const reply = route.handle(ctx);
      if (!ctx.rateLimit) return reply;
      return { ...reply, headers: { ...rateLimitHeaders(ctx.rateLimit, world.ctx.now()), ...reply.headers } };
    },
  };
}

/** Strict mode: Discord answers a request without `Authorization` with 401 before anything else. */
function requiringAuthorization(
  route: PlatformRoute,
  world: DiscordWorld,
  req: EmulatorRequest,
): PlatformRoute {
  if (!world.strict || req.headers.authorization) return route;
  return { ...route, handle: () => discordError('unauthorized') };
}

export function matchDiscordRoute(req: EmulatorRequest, world: DiscordWorld): PlatformRoute | null {
  if (!req.path.startsWith(`${API_PREFIX}/`)) return null;
  const path = req.path.slice(API_PREFIX.length);
  for (const spec of ROUTES) {
    const match = spec.path.exec(path);
    if (!match) continue;
    const params: RouteParams = {};
    spec.params.forEach((name, index) => {
      params[name] = match[index + 1]!;
    });
    const badIds = (['channel', 'message'] as const).filter(
      (name) => params[name] !== undefined && !isSnowflake(params[name]),
    );
    const factory = spec.methods[req.method];
    let route: PlatformRoute;
    if (!factory) route = fixedAnswer(params.channel ?? null, discordError('methodNotAllowed'));
    else if (badIds.length > 0) {
      route = fixedAnswer(
        null,
        invalidFormBody(badIds.map((name) => formIssue.notSnowflake([ID_FIELDS[name]], params[name]))),
      );
    } else route = factory({ world, req, params });
    return withRateLimitHeaders(requiringAuthorization(route, world, req), world);
  }
  return null;
}
