/**
 * Google Chat interaction events as turnlog reads them (an HTTP Chat app's
 * event format): https://developers.google.com/workspace/chat/api/reference/rest/v1/Event
 * and https://developers.google.com/workspace/chat/receive-respond-interactions.
 *
 * - MESSAGE: a person posted (mentioned the app in a space, or wrote in a DM)
 *   → a MessageIntake;
 * - CARD_CLICKED: a person pressed a button on a card the app posted
 *   → a ClickIntake carrying the button's action id (intake-buttons.ts);
 * - ADDED_TO_SPACE / REMOVED_FROM_SPACE: Chat telling the app where it is;
 *   nothing for the host, answered with an empty body;
 * - anything else is refused (400) with what was expected.
 */
import { z } from 'zod';
import type { ClickIntake, IntakeEvent, MessageIntake } from '../../actions/types.js';
import { gchatButtonActionId, parameterRecord } from './intake-buttons.js';
import { SPACE_NAME } from './names.js';

/** A Chat event the intake cannot take: answered 400 with `message`. */
export class ChatEventError extends Error {
  override readonly name = 'ChatEventError';
}

const userSchema = z.looseObject({
  name: z.string().min(1),
  displayName: z.string().optional(),
  type: z.string().optional(),
});

const spaceSchema = z.looseObject({
  name: z.string().regex(SPACE_NAME, 'a space name like spaces/AAAA'),
  /** Deprecated `ROOM` / `DM`, still sent. */
  type: z.string().optional(),
  spaceType: z.string().optional(),
  singleUserBotDm: z.boolean().optional(),
});

const messageSchema = z.looseObject({
  name: z.string().min(1),
  text: z.string().optional(),
  /** The text without the app's @-mention. */
  argumentText: z.string().optional(),
  thread: z.looseObject({ name: z.string().min(1) }).optional(),
  createTime: z.string().optional(),
  sender: userSchema.optional(),
});

const eventSchema = z.looseObject({
  type: z.string().min(1),
  eventTime: z.string().optional(),
  space: spaceSchema,
  user: userSchema,
  message: messageSchema.optional(),
  /** The older shape of a click: `actionMethodName` and a `[{key, value}]` list. */
  action: z
    .looseObject({
      actionMethodName: z.string().optional(),
      parameters: z.array(z.looseObject({ key: z.unknown(), value: z.unknown() })).optional(),
    })
    .optional(),
  /** The click as cardsV2 reports it: `invokedFunction` and a `{key: value}` map. */
  common: z
    .looseObject({
      invokedFunction: z.string().optional(),
      parameters: z.record(z.string(), z.string()).optional(),
    })
    .optional(),
});

type ChatEvent = z.output<typeof eventSchema>;

/** What one Chat event comes to. */
export type ChatIntake =
  | { kind: 'intake'; event: IntakeEvent }
  /** A known event with nothing for the host (the app was added to or removed from a space). */
  | { kind: 'ignored'; type: string }
  /** A click on a button turnlog did not render: told to the person, not the host. */
  | { kind: 'foreign-button'; user: string; text: string };

const IGNORED_TYPES = new Set(['ADDED_TO_SPACE', 'REMOVED_FROM_SPACE']);

const isDm = (space: ChatEvent['space']): boolean =>
  space.type === 'DM' || space.spaceType === 'DIRECT_MESSAGE' || space.singleUserBotDm === true;

const userOf = (user: ChatEvent['user']) => ({
  id: user.name,
  ...(user.displayName !== undefined && user.displayName !== '' ? { name: user.displayName } : {}),
});

function timeOf(event: ChatEvent, fallback: number): number {
  const at = event.eventTime === undefined ? Number.NaN : Date.parse(event.eventTime);
  return Number.isFinite(at) ? at : fallback;
}

function requireMessage(event: ChatEvent): NonNullable<ChatEvent['message']> {
  if (event.message === undefined) throw new ChatEventError(`a ${event.type} event without its message`);
  return event.message;
}

/** A parsed JSON body → what it means for turnlog; throws ChatEventError naming what is wrong. */
export function readChatEvent(body: unknown, now: number): ChatIntake {
  const parsed = eventSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ChatEventError(
      `not a Google Chat event: ${issue?.path.join('.') || '(body)'}: ${issue?.message ?? 'invalid'}`,
    );
  }
  const event = parsed.data;
  if (IGNORED_TYPES.has(event.type)) return { kind: 'ignored', type: event.type };
  const space = `gchat:${event.space.name}`;
  const user = userOf(event.user);
  const at = timeOf(event, now);

  if (event.type === 'MESSAGE') {
    const message = requireMessage(event);
    const intake: MessageIntake = {
      kind: 'message',
      space,
      messageId: message.name,
      ...(message.thread ? { threadId: message.thread.name } : {}),
      text: message.argumentText ?? message.text ?? '',
      dm: isDm(event.space),
      user,
      at,
      dedupeKey: message.name,
    };
    return { kind: 'intake', event: intake };
  }

  if (event.type === 'CARD_CLICKED') {
    const message = requireMessage(event);
    const invoked = event.common?.invokedFunction ?? event.action?.actionMethodName;
    const parameters = event.common?.parameters ?? parameterRecord(event.action?.parameters ?? []);
    const action = gchatButtonActionId(invoked, parameters);
    if (action === undefined) {
      return {
        kind: 'foreign-button',
        user: event.user.name,
        text: `turnlog does not know this button (${invoked ?? 'no function'}).`,
      };
    }
    const intake: ClickIntake = {
      kind: 'click',
      space,
      messageId: message.name,
      ...(message.thread ? { threadId: message.thread.name } : {}),
      action,
      user,
      at,
      // Chat gives a click no id of its own: who pressed which button of which message, when.
      dedupeKey: `${message.name}|${event.user.name}|${action}|${event.eventTime ?? ''}`,
    };
    return { kind: 'intake', event: intake };
  }

  throw new ChatEventError(
    `unknown Google Chat event type ${JSON.stringify(event.type)}: turnlog takes MESSAGE and CARD_CLICKED (ADDED_TO_SPACE and REMOVED_FROM_SPACE are acknowledged)`,
  );
}
