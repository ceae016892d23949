/**
 * Where a new message goes, following `messageReplyOption` (spaces.messages.create reference):
 * - absent / MESSAGE_REPLY_OPTION_UNSPECIFIED: a new thread; any `thread.name`
 *   or `thread.threadKey` is ignored;
 * - REPLY_MESSAGE_FALLBACK_TO_NEW_THREAD: a reply to the thread named (or keyed);
 *   a new thread when that fails;
 * - REPLY_MESSAGE_OR_FAIL: a reply to the thread named (or keyed); 404
 *   NOT_FOUND when the named thread does not exist (a new `threadKey` starts a
 *   thread).
 * `messageReplyOption` is "only supported in named spaces": in a DM the
 * emulator ignores the option and the thread, and the message starts its own
 * thread (`threadReply: false`, as the reference says for spaces without
 * in-thread replies), so a DM never gets a thread.
 */
import type { MessageStore, StoredThread } from '../core/index.js';
import type { GchatWorld } from './gchat-world.js';
import { invalidArgument, notFound } from './google-errors.js';

export const MESSAGE_REPLY_OPTIONS = [
  'MESSAGE_REPLY_OPTION_UNSPECIFIED',
  'REPLY_MESSAGE_FALLBACK_TO_NEW_THREAD',
  'REPLY_MESSAGE_OR_FAIL',
] as const;
export type MessageReplyOption = (typeof MESSAGE_REPLY_OPTIONS)[number];

/** Thread keys may be up to 4000 characters (reference: `threadKey`). */
const MAX_THREAD_KEY_CHARS = 4000;

export function parseMessageReplyOption(value: string | null): MessageReplyOption | undefined {
  if (value === null || value === '') return undefined;
  if ((MESSAGE_REPLY_OPTIONS as readonly string[]).includes(value)) return value as MessageReplyOption;
  throw invalidArgument(
    `Invalid value at 'message_reply_option' (type.googleapis.com/google.chat.v1.CreateMessageRequest.MessageReplyOption), ${JSON.stringify(value)}`,
  );
}

export type ThreadPlacement =
  | { kind: 'reply'; thread: StoredThread }
  /** A new thread, keyed when the request gave a new `threadKey`; `note` says why it is new when the request asked for a reply. */
  | { kind: 'new'; threadKey?: string; note?: string };

export interface ThreadRequest {
  space: string;
  dm: boolean;
  option: MessageReplyOption | undefined;
  threadName?: string;
  threadKey?: string;
}

export function placeMessage(
  store: MessageStore,
  world: GchatWorld,
  request: ThreadRequest,
): ThreadPlacement {
  const { space, option, threadName, threadKey } = request;
  const asksForThread = threadName !== undefined || threadKey !== undefined;
  if (request.dm)
    return asksForThread ? { kind: 'new', note: 'ignored in a direct message' } : { kind: 'new' };
  if (option === undefined || option === 'MESSAGE_REPLY_OPTION_UNSPECIFIED')
    return asksForThread ? { kind: 'new', note: 'ignored without messageReplyOption' } : { kind: 'new' };
  if (threadKey !== undefined && threadKey.length > MAX_THREAD_KEY_CHARS)
    throw invalidArgument(`thread_key is ${threadKey.length} characters; at most ${MAX_THREAD_KEY_CHARS}.`);

  if (threadName !== undefined) {
    const named = store.getThread(threadName);
    if (named && named.space === space) return { kind: 'reply', thread: named };
  }
  if (threadKey !== undefined) {
    const keyed = world.threadByKey(store, space, threadKey);
    return keyed ? { kind: 'reply', thread: keyed } : { kind: 'new', threadKey };
  }
  if (threadName === undefined) return { kind: 'new' };
  if (option === 'REPLY_MESSAGE_OR_FAIL') throw notFound(`thread ${JSON.stringify(threadName)} in ${space}`);
  return { kind: 'new', note: 'fell back to a new thread: no such thread' };
}
