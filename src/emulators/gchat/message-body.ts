/**
 * The `Message` request body of `spaces.messages.create` / `patch` / `update`:
 * the fields the emulator keeps (text, cardsV2, fallbackText, thread), checked the way
 * Google checks them — unknown field names and wrong JSON types are 400
 * INVALID_ARGUMENT, an empty message is refused, and text plus cards may not
 * exceed 32,000 bytes.
 */
import { invalidArgument } from './google-errors.js';

/** "The maximum message size, including text and cards, is 32,000 bytes." (spaces.messages.create reference) */
export const MAX_MESSAGE_BYTES = 32_000;
/** The older per-message text limit, enforced only in `strict` mode. */
export const STRICT_MAX_TEXT_CHARS = 4096;

/** Every field of the v1 `Message` resource; anything else is an unknown name to Google. */
const MESSAGE_FIELDS = new Set([
  'accessoryWidgets',
  'actionResponse',
  'annotations',
  'argumentText',
  'attachedGifs',
  'attachment',
  'cards',
  'cardsV2',
  'clientAssignedMessageId',
  'createTime',
  'deleteTime',
  'deletionMetadata',
  'emojiReactionSummaries',
  'fallbackText',
  'formattedText',
  'lastUpdateTime',
  'markupSyntax',
  'matchedUrl',
  'name',
  'privateMessageViewer',
  'quotedMessageMetadata',
  'sender',
  'silent',
  'slashCommand',
  'space',
  'text',
  'thread',
  'threadReply',
]);

const THREAD_FIELDS = new Set(['name', 'threadKey']);

export interface MessageBody {
  text?: string;
  cardsV2?: unknown[];
  fallbackText?: string;
  thread?: { name?: string; threadKey?: string };
}

function unknownName(name: string, at: string) {
  return invalidArgument(
    `Invalid JSON payload received. Unknown name "${name}" at '${at}': Cannot find field.`,
  );
}

const invalidValue = (field: string, type: string, value: unknown) =>
  invalidArgument(`Invalid value at '${field}' (${type}), ${JSON.stringify(value)}`);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Reads the request body as a Message; throws GchatApiError (400) naming the offending field. */
export function parseMessageBody(body: unknown): MessageBody {
  if (body === undefined) return {};
  if (!isRecord(body))
    throw invalidArgument('Invalid JSON payload received: the body must be a Message object.');
  for (const key of Object.keys(body)) if (!MESSAGE_FIELDS.has(key)) throw unknownName(key, 'message');

  const parsed: MessageBody = {};
  if (body.text !== undefined && body.text !== null) {
    if (typeof body.text !== 'string') throw invalidValue('message.text', 'TYPE_STRING', body.text);
    parsed.text = body.text;
  }
  if (body.fallbackText !== undefined && body.fallbackText !== null) {
    if (typeof body.fallbackText !== 'string')
      throw invalidValue('message.fallback_text', 'TYPE_STRING', body.fallbackText);
    parsed.fallbackText = body.fallbackText;
  }
  if (body.cardsV2 !== undefined && body.cardsV2 !== null) {
    if (!Array.isArray(body.cardsV2) || !body.cardsV2.every(isRecord))
      throw invalidValue('message.cards_v2', 'TYPE_MESSAGE', body.cardsV2);
    parsed.cardsV2 = body.cardsV2;
  }
  if (body.thread !== undefined && body.thread !== null) {
    const thread = body.thread;
    if (!isRecord(thread)) throw invalidValue('message.thread', 'TYPE_MESSAGE', thread);
    for (const key of Object.keys(thread))
      if (!THREAD_FIELDS.has(key)) throw unknownName(key, 'message.thread');
    parsed.thread = {};
    for (const key of ['name', 'threadKey'] as const) {
      const value = thread[key];
      if (value === undefined || value === null || value === '') continue;
      if (typeof value !== 'string') throw invalidValue(`message.thread.${key}`, 'TYPE_STRING', value);
      parsed.thread[key] = value;
    }
  }
  return parsed;
}

/** The bytes a message's content weighs against the 32,000-byte limit: its text and its cards as JSON. */
export function messageBytes(text: string, cardsV2: unknown[] | undefined): number {
  return Buffer.byteLength(text, 'utf8') + (cardsV2?.length ? Buffer.byteLength(JSON.stringify(cardsV2)) : 0);
}

/** Refuses a message Google would not store: empty, over 32,000 bytes, or (strict) text over 4096 characters. */
export function checkMessageContent(text: string, cardsV2: unknown[] | undefined, strict: boolean): void {
  if (text === '' && !cardsV2?.length)
    throw invalidArgument('Message cannot be empty. Discarding empty message.');
  const bytes = messageBytes(text, cardsV2);
  if (bytes > MAX_MESSAGE_BYTES)
    throw invalidArgument(
      `Message too large: text and cards are ${bytes} bytes; the maximum message size is ${MAX_MESSAGE_BYTES} bytes.`,
    );
  if (strict) {
    const chars = [...text].length;
    if (chars > STRICT_MAX_TEXT_CHARS)
      throw invalidArgument(
        `Message text is ${chars} characters; the emulator's strict mode allows ${STRICT_MAX_TEXT_CHARS}.`,
      );
  }
}
