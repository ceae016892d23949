/**
 * Message metadata (https://docs.slack.dev/messaging/message-metadata): a
 * post or an update may carry `metadata: {event_type, event_payload}` (JSON,
 * or a JSON string in a form body). The emulator keeps it on the message and
 * returns it from `conversations.replies` / `conversations.history` when
 * asked with `include_all_metadata`, which is how turnlog finds a post whose
 * answer was lost.
 */

import type { PlatformReply } from '../core/index.js';
import { slackError } from './errors.js';

export interface SlackMetadata {
  event_type: string;
  event_payload: Record<string, unknown>;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The call's metadata: absent, read, or Slack's `invalid_metadata_format` for one it cannot use. */
export function readMetadata(
  fields: Record<string, unknown>,
): { ok: true; metadata?: SlackMetadata } | { ok: false; reply: PlatformReply } {
  let value = fields.metadata;
  if (value === undefined || value === '') return { ok: true };
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value) as unknown;
    } catch {
      return { ok: false, reply: slackError('invalid_metadata_format') };
    }
  }
  if (!isRecord(value) || typeof value.event_type !== 'string' || !isRecord(value.event_payload)) {
    return { ok: false, reply: slackError('invalid_metadata_format') };
  }
  return { ok: true, metadata: { event_type: value.event_type, event_payload: value.event_payload } };
}
