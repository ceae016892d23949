/**
 * Slack has no idempotent create, so an uncertain `chat.postMessage` (5xx,
 * timeout, connection reset: the message may have been made) is reconciled
 * before anything is posted anew (issue 22.6): each post with a client id
 * carries it in the message's metadata
 * (https://docs.slack.dev/messaging/message-metadata), and after an
 * uncertain answer the thread (`conversations.replies`) or the channel's
 * recent history (`conversations.history`) is read with
 * `include_all_metadata` for the message that carries it, which is adopted.
 */
import type { WebClient } from '@slack/web-api';
import { isSurfaceError } from '../../surfaces/surface.js';

/** The metadata `event_type` of turnlog's own posts. */
export const TURNLOG_EVENT_TYPE = 'turnlog_message';

/** How many recent top-level messages are searched for a lost top-level post. */
export const HISTORY_SEARCHED = 100;

export function metadataFor(clientId: string) {
  return { event_type: TURNLOG_EVENT_TYPE, event_payload: { client_id: clientId } };
}

/** Did the write perhaps land? A 5xx, a timeout or a dropped connection: yes; a refusal or a 429: no. */
export function isUncertain(error: unknown): boolean {
  return isSurfaceError(error) && error.kind === 'transient';
}

interface ReadMessage {
  ts?: string;
  metadata?: { event_type?: string; event_payload?: Record<string, unknown> };
}

const carries = (message: ReadMessage, clientId: string): boolean =>
  message.metadata?.event_type === TURNLOG_EVENT_TYPE &&
  message.metadata.event_payload?.client_id === clientId;

/**
 * The ts of the message turnlog posted with `clientId` in `channel` (in the
 * thread `threadTs`, else top level), or undefined when there is none.
 * Throws when Slack cannot be read.
 */
export async function findPosted(
  client: WebClient,
  channel: string,
  threadTs: string | undefined,
  clientId: string,
): Promise<string | undefined> {
  const answer =
    threadTs === undefined
      ? await client.conversations.history({ channel, include_all_metadata: true, limit: HISTORY_SEARCHED })
      : await client.conversations.replies({
          channel,
          ts: threadTs,
          include_all_metadata: true,
          limit: 1000,
        });
  const messages = (answer.messages ?? []) as ReadMessage[];
  return messages.find((message) => carries(message, clientId))?.ts;
}
