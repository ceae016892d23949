/**
 * The reads: `GET /v1/spaces/{space}` (spaces.get; the space is created on
 * first use, so it always exists) and `GET /v1/spaces/{space}/messages/{message}`
 * (spaces.messages.get; 404 NOT_FOUND once deleted).
 *
 * Reads count against no rate limit: the emulator's defaults are Google's
 * message-write quotas; reads have quotas of their own (900/min per space,
 * 3000/min per project) that turnlog's few reads never approach.
 */
import type { HandlerContext, PlatformRoute } from '../core/index.js';
import { messageResource, spaceResource } from './resources.js';
import { answering, type GchatRouteDeps, liveMessage } from './route-kit.js';

export function getSpaceRoute(space: string, ctx: HandlerContext, deps: GchatRouteDeps): PlatformRoute {
  return {
    op: 'other',
    space,
    rateLimited: false,
    details: { apiMethod: 'spaces.get' },
    handle: () => ({ status: 200, body: spaceResource(deps.world.space(space, ctx.now())) }),
  };
}

export function getMessageRoute(
  space: string,
  name: string,
  ctx: HandlerContext,
  deps: GchatRouteDeps,
): PlatformRoute {
  const { world } = deps;
  const details = { apiMethod: 'spaces.messages.get' };
  const target = world.resolveMessageName(name);
  return {
    op: 'other',
    space,
    messageId: target,
    thread: ctx.store.get(target)?.thread ?? null,
    rateLimited: false,
    details,
    handle: () =>
      answering(details, () => {
        const gchatSpace = world.space(space, ctx.now());
        const message = liveMessage(ctx, world, space, name);
        return { status: 200, body: messageResource(message, gchatSpace) };
      }),
  };
}
