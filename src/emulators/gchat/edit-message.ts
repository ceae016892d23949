/**
 * `PATCH` (spaces.messages.patch) and `PUT` (spaces.messages.update)
 * `/v1/spaces/{space}/messages/{message}?updateMask=…[&allowMissing=true]`.
 *
 * The message may be named by its system id or its client-assigned id. Only
 * the app's own live messages can be edited: a deleted or unknown one is 404
 * NOT_FOUND, a person's or another app's is 403 PERMISSION_DENIED. An edit
 * notifies no one. With `allowMissing=true` a missing client-assigned id
 * creates the message instead (recorded as a create, top-level: a new thread).
 */
import {
  broadMentionsFor,
  type EmulatorRequest,
  type HandlerContext,
  type PlatformReply,
  type PlatformRoute,
} from '../core/index.js';
import type { GchatSpace } from './gchat-world.js';
import { invalidArgument } from './google-errors.js';
import { checkMessageContent, type MessageBody, parseMessageBody } from './message-body.js';
import { noticeForNewMessage } from './notifications.js';
import { postMessage } from './post-message.js';
import { isValidClientMessageId } from './resource-names.js';
import { messageData, messageResource } from './resources.js';
import { answering, appUserFor, type GchatRouteDeps, liveMessage, requireOwnMessage } from './route-kit.js';
import { parseUpdateMask } from './update-mask.js';

export function editMessageRoute(
  req: EmulatorRequest,
  space: string,
  name: string,
  ctx: HandlerContext,
  deps: GchatRouteDeps,
): PlatformRoute {
  const { world } = deps;
  const updateMask = req.query.get('updateMask');
  const allowMissing = req.query.get('allowMissing') === 'true';
  const details: Record<string, unknown> = {
    apiMethod: req.method === 'PUT' ? 'spaces.messages.update' : 'spaces.messages.patch',
    ...(updateMask === null ? {} : { updateMask }),
    ...(allowMissing ? { allowMissing } : {}),
  };
  const rawText = (req.body as { text?: unknown } | undefined)?.text;
  const target = world.resolveMessageName(name);
  return {
    op: 'update',
    space,
    messageId: target,
    thread: ctx.store.get(target)?.thread ?? null,
    text: typeof rawText === 'string' ? rawText : null,
    details,
    handle: () =>
      answering(details, () => {
        const body = parseMessageBody(req.body);
        const gchatSpace = world.space(space, ctx.now());
        const app = appUserFor(req.headers.authorization);
        const existing = ctx.store.get(world.resolveMessageName(name));
        if (allowMissing && !existing) return createMissing(ctx, deps, gchatSpace, name, body, app, details);

        const message = liveMessage(ctx, world, space, name);
        requireOwnMessage(message, app);
        const mask = parseUpdateMask(updateMask);
        const text = mask.has('text') ? (body.text ?? '') : message.text;
        const cardsV2 = mask.has('cardsV2') ? body.cardsV2 : messageData(message).cardsV2;
        checkMessageContent(text, cardsV2, deps.strict);
        const edited = ctx.store.edit(message.id, text, { cardsV2: cardsV2 ?? [] });
        return {
          status: 200,
          body: messageResource(edited, gchatSpace),
          record: {
            messageId: edited.id,
            thread: edited.thread,
            text,
            // An edit notifies no one; a mention it adds is still one that fired.
            notifies: false,
            mentions: mask.has('text') ? broadMentionsFor('gchat', text) : [],
            details,
          },
        };
      }),
  };
}

/** `allowMissing=true` on a client-assigned id nobody used yet: create the message (the update mask is ignored). */
function createMissing(
  ctx: HandlerContext,
  deps: GchatRouteDeps,
  space: GchatSpace,
  name: string,
  body: MessageBody,
  app: string,
  details: Record<string, unknown>,
): PlatformReply {
  const clientId = name.slice(`${space.name}/messages/`.length);
  if (!isValidClientMessageId(clientId))
    throw invalidArgument(
      `allowMissing creates a message only for a client-assigned ID ("client-…"); ${JSON.stringify(clientId)} is not one.`,
    );
  const text = body.text ?? '';
  checkMessageContent(text, body.cardsV2, deps.strict);
  const { stored } = postMessage(ctx, deps.world, {
    space: space.name,
    author: { kind: 'app', id: app },
    text,
    ...(body.cardsV2 ? { cardsV2: body.cardsV2 } : {}),
    ...(body.fallbackText === undefined ? {} : { fallbackText: body.fallbackText }),
    placement: { kind: 'new' },
    clientAssignedMessageId: clientId,
  });
  const notice = noticeForNewMessage({
    dm: space.dm,
    threadReply: false,
    participants: [],
    notificationType: undefined,
  });
  return {
    status: 200,
    body: messageResource(stored, space),
    record: {
      op: 'create',
      messageId: stored.id,
      thread: null,
      text,
      notifies: notice.notifies,
      mentions: broadMentionsFor('gchat', text),
      details: { ...details, createdMissing: true, audience: notice.audience },
    },
  };
}
