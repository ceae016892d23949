/**
 * `DELETE /v1/spaces/{space}/messages/{message}` — spaces.messages.delete:
 * the app's own live message is deleted and the answer is the empty message
 * `{}`; unknown or already deleted is 404 NOT_FOUND, a person's or another
 * app's message is 403 PERMISSION_DENIED (`force` only matters for user
 * authentication, so it is ignored).
 */
import type { EmulatorRequest, HandlerContext, PlatformRoute } from '../core/index.js';
import { answering, appUserFor, type GchatRouteDeps, liveMessage, requireOwnMessage } from './route-kit.js';

export function deleteMessageRoute(
  req: EmulatorRequest,
  space: string,
  name: string,
  ctx: HandlerContext,
  deps: GchatRouteDeps,
): PlatformRoute {
  const { world } = deps;
  const details = { apiMethod: 'spaces.messages.delete' };
  const target = world.resolveMessageName(name);
  return {
    op: 'delete',
    space,
    messageId: target,
    thread: ctx.store.get(target)?.thread ?? null,
    details,
    handle: () =>
      answering(details, () => {
        world.space(space, ctx.now());
        const message = liveMessage(ctx, world, space, name);
        requireOwnMessage(message, appUserFor(req.headers.authorization));
        ctx.store.markDeleted(message.id);
        return { status: 200, body: {}, record: { messageId: message.id, thread: message.thread } };
      }),
  };
}
