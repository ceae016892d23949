/**
 * `POST /v1/spaces/{space}/messages` — spaces.messages.create, with
 * `messageReplyOption`, `thread.name` / `thread.threadKey` (and the
 * deprecated `threadKey` query parameter), `requestId` idempotency (a
 * repeated id returns the message it created, unchanged and without a new
 * notification), a client-assigned `messageId`, `cardsV2`, and
 * `createMessageNotificationOptions.notificationType`.
 */
import {
  broadMentionsFor,
  type EmulatorRequest,
  type HandlerContext,
  type PlatformRoute,
} from '../core/index.js';
import { GchatApiError, invalidArgument } from './google-errors.js';
import { checkMessageContent, parseMessageBody } from './message-body.js';
import { NOTIFICATION_TYPES, type NotificationType, noticeForNewMessage } from './notifications.js';
import { postMessage, threadData } from './post-message.js';
import { CLIENT_MESSAGE_ID_MAX_CHARS, isValidClientMessageId } from './resource-names.js';
import { messageResource } from './resources.js';
import { answering, appUserFor, type GchatRouteDeps } from './route-kit.js';
import { parseMessageReplyOption, placeMessage } from './threads.js';

const NOTIFICATION_TYPE_PARAM = 'createMessageNotificationOptions.notificationType';

function parseNotificationType(value: string | null): NotificationType | undefined {
  if (value === null || value === '') return undefined;
  if ((NOTIFICATION_TYPES as readonly string[]).includes(value)) return value as NotificationType;
  throw invalidArgument(
    `Invalid value at 'create_message_notification_options.notification_type' (type.googleapis.com/google.chat.v1.CreateMessageNotificationOptions.NotificationType), ${JSON.stringify(value)}`,
  );
}

function parseClientMessageId(value: string | null): string | undefined {
  if (value === null || value === '') return undefined;
  if (!isValidClientMessageId(value))
    throw invalidArgument(
      `Invalid message_id ${JSON.stringify(value)}: a custom message ID must begin with "client-" and contain at most ${CLIENT_MESSAGE_ID_MAX_CHARS} characters, only lowercase letters, numbers and hyphens.`,
    );
  return value;
}

/** What the call log shows about a create besides text and target. */
function createDetails(req: EmulatorRequest): Record<string, unknown> {
  const details: Record<string, unknown> = { apiMethod: 'spaces.messages.create' };
  for (const [param, key] of [
    ['messageReplyOption', 'messageReplyOption'],
    ['requestId', 'requestId'],
    ['messageId', 'messageId'],
    ['threadKey', 'threadKey'],
    [NOTIFICATION_TYPE_PARAM, 'notificationType'],
  ] as const) {
    const value = req.query.get(param);
    if (value !== null) details[key] = value;
  }
  const body = req.body as { thread?: unknown; cardsV2?: unknown } | undefined;
  if (body?.thread !== undefined) details.thread = body.thread;
  if (Array.isArray(body?.cardsV2)) details.cards = body.cardsV2.length;
  return details;
}

export function createMessageRoute(
  req: EmulatorRequest,
  space: string,
  ctx: HandlerContext,
  deps: GchatRouteDeps,
): PlatformRoute {
  const { world } = deps;
  const details = createDetails(req);
  const rawText = (req.body as { text?: unknown } | undefined)?.text;
  return {
    op: 'create',
    space,
    text: typeof rawText === 'string' ? rawText : null,
    details,
    handle: () =>
      answering(details, () => {
        const option = parseMessageReplyOption(req.query.get('messageReplyOption'));
        const notificationType = parseNotificationType(req.query.get(NOTIFICATION_TYPE_PARAM));
        const clientId = parseClientMessageId(req.query.get('messageId'));
        const requestId = req.query.get('requestId') || undefined;
        const body = parseMessageBody(req.body);
        const gchatSpace = world.space(space, ctx.now());

        if (requestId !== undefined) {
          const earlier = ctx.store.findByIdempotencyKey(space, requestId);
          if (earlier) {
            // The same request again: the message it created, no new message, no new notification.
            return {
              status: 200,
              body: messageResource(earlier, gchatSpace),
              record: {
                messageId: earlier.id,
                thread: earlier.thread,
                notifies: false,
                mentions: [],
                details: { ...details, replayOf: earlier.id },
              },
            };
          }
        }
        if (clientId !== undefined && world.messageWithClientId(space, clientId) !== undefined)
          throw new GchatApiError(
            409,
            `Message with custom ID ${clientId} already exists in ${space}.`,
            'ALREADY_EXISTS',
          );

        const text = body.text ?? '';
        checkMessageContent(text, body.cardsV2, deps.strict);
        const threadKey = body.thread?.threadKey ?? (req.query.get('threadKey') || undefined);
        const placement = placeMessage(ctx.store, world, {
          space,
          dm: gchatSpace.dm,
          option,
          ...(body.thread?.name === undefined ? {} : { threadName: body.thread.name }),
          ...(threadKey === undefined ? {} : { threadKey }),
        });
        const silent = notificationType === 'NOTIFICATION_TYPE_SILENT';
        const { stored, thread } = postMessage(ctx, world, {
          space,
          author: { kind: 'app', id: appUserFor(req.headers.authorization) },
          text,
          ...(body.cardsV2 ? { cardsV2: body.cardsV2 } : {}),
          ...(body.fallbackText === undefined ? {} : { fallbackText: body.fallbackText }),
          placement,
          ...(requestId === undefined ? {} : { requestId }),
          ...(clientId === undefined ? {} : { clientAssignedMessageId: clientId }),
          silent,
        });
        const notice = noticeForNewMessage({
          dm: gchatSpace.dm,
          threadReply: placement.kind === 'reply',
          participants: threadData(thread).participants,
          notificationType,
        });
        return {
          status: 200,
          body: messageResource(stored, gchatSpace),
          record: {
            messageId: stored.id,
            thread: stored.thread,
            notifies: notice.notifies,
            mentions: broadMentionsFor('gchat', text),
            details: {
              ...details,
              threadName: thread.id,
              threadReply: placement.kind === 'reply',
              audience: notice.audience,
              ...(notice.notified ? { notified: notice.notified } : {}),
              ...(placement.kind === 'new' && placement.note ? { threadRequest: placement.note } : {}),
            },
          },
        };
      }),
  };
}
