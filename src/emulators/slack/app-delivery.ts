/**
 * The Slack emulator delivering to a registered app, the way Slack does:
 *
 * - a person's message → an Events API `event_callback` with a `message`
 *   event, JSON (https://docs.slack.dev/apis/events-api/#callback-field);
 * - a button press → a `block_actions` interaction, form-encoded as one
 *   `payload` field (https://docs.slack.dev/reference/interaction-payloads/block_actions-payload),
 *   whose `response_url` is this emulator's `POST /_emulator/response?id=…`,
 *   which records what the app answers the person (ephemeral or not);
 * - each request signed with the app's signing secret: `v0=` + hex
 *   HMAC-SHA256 of `v0:<timestamp>:<body>`, in `X-Slack-Signature`, the
 *   timestamp (epoch seconds, the emulator's clock) in
 *   `X-Slack-Request-Timestamp`
 *   (https://docs.slack.dev/authentication/verifying-requests-from-slack).
 *
 * Slack gives an app 3 seconds to answer; a request without an answer by
 * then counts as not delivered (Slack would retry an event).
 *
 * An app registered with an app-level token (`{"appToken": "xapp-…"}`)
 * uses Socket Mode instead (socket-mode.ts): the same payloads go as
 * `events_api` and `interactive` envelopes over its WebSocket, unsigned,
 * and an ack within 3 s is the answer.
 */
import { createHmac, randomUUID } from 'node:crypto';
import { EmulatorInputError } from '../core/index.js';
import type { MessageStore, StoredMessage } from '../core/message-store.js';
import type { AppRegistration, ClickInput, ClickResult, HttpAnswer } from '../core/platform-handler.js';
import { channelKind, DEFAULT_PERSON_ID, TEAM_ID } from './ids.js';
import { APP_TOKEN_PATTERN, type EnvelopeOutcome, type SlackSocketMode } from './socket-mode.js';

/** Slack's deadline for an app's answer. */
export const SLACK_ANSWER_DEADLINE_MS = 3000;
/** The `api_app_id` events name (one registered app per emulator). */
export const EMULATED_APP_ID = 'A0EMULATED';

/** `v0=<hex HMAC-SHA256(secret, "v0:<timestamp>:<body>")>`: Slack's request signature. */
export function slackSignature(secret: string, timestampS: number, body: string): string {
  return `v0=${createHmac('sha256', secret).update(`v0:${timestampS}:${body}`).digest('hex')}`;
}

/** What the app answered the person through a `response_url`. */
export interface RecordedResponse {
  text: string;
  responseType: 'ephemeral' | 'in_channel';
  replaceOriginal: boolean;
}

/** The `channel_type` Slack puts on a message event. */
const CHANNEL_TYPE = { public: 'channel', private: 'group', im: 'im' } as const;

/** The raw button a click names (by `action_id` or `value`) in a message's blocks, with its block. */
function findButton(
  message: StoredMessage,
  action: string,
): { block_id?: string; action_id?: string; value?: string; text?: { text?: string } } | undefined {
  const blocks = (message.data as { blocks?: unknown }).blocks;
  if (!Array.isArray(blocks)) return undefined;
  for (const block of blocks as { type?: string; block_id?: string; elements?: unknown[] }[]) {
    if (block.type !== 'actions' || !Array.isArray(block.elements)) continue;
    for (const element of block.elements as Record<string, unknown>[]) {
      if (element.type !== 'button') continue;
      if (element.action_id === action || element.value === action)
        return { ...(element as object), ...(block.block_id ? { block_id: block.block_id } : {}) };
    }
  }
  return undefined;
}

/** One delivery attempt, as `GET /_emulator/deliveries` lists it. */
export interface DeliveryRecord {
  kind: 'event' | 'interaction';
  /** The `event_id`, or the interaction's id. */
  id: string;
  /** The app's HTTP status; over Socket Mode 200 for an ack; 0 when nothing answered in time. */
  status: number;
  via: 'http' | 'socket';
  /** Socket Mode: the envelope, and which redelivery it was (0 the first). */
  envelopeId?: string;
  retry?: number;
}

export interface SlackAppDelivery {
  registerApp(input: AppRegistration): void;
  /** Delivers a person's message to the registered app; resolves once it answered (or nothing is registered). */
  deliverMessage(message: StoredMessage, now: number): Promise<void>;
  click(input: ClickInput, store: MessageStore, now: number): Promise<ClickResult>;
  /** `POST /_emulator/response?id=…`: what an app sends to a `response_url`. */
  respond(id: string | null, body: unknown): HttpAnswer;
  /** The emulator's own origin, once it listens (the `response_url` base). */
  setOrigin(url: string): void;
  /** Events delivered so far (`event_id`s and interactions), for tests and docs. */
  deliveries(): DeliveryRecord[];
  reset(): void;
}

export function createSlackAppDelivery(socket: SlackSocketMode): SlackAppDelivery {
  let app: AppRegistration | undefined;
  let origin: string | undefined;
  let sequence = 0;
  const responses = new Map<string, RecordedResponse[]>();
  const delivered: DeliveryRecord[] = [];
  /** Records every attempt of an envelope over Socket Mode. */
  const recordEnvelope =
    (kind: DeliveryRecord['kind'], id: string) =>
    (outcome: EnvelopeOutcome): void => {
      delivered.push({
        kind,
        id,
        status: outcome.acked ? 200 : 0,
        via: 'socket',
        envelopeId: outcome.envelopeId,
        retry: outcome.retry,
      });
    };

  /** POSTs a signed body to the app; its HTTP status, or 0 when it did not answer within the deadline. */
  async function send(body: string, contentType: string, now: number): Promise<number> {
    if (app?.url === undefined) return 0;
    const timestamp = Math.floor(now / 1000);
    const headers: Record<string, string> = {
      'content-type': contentType,
      'x-slack-request-timestamp': String(timestamp),
    };
    // An app registered without a secret gets unsigned requests (its verification must refuse them).
    const { url } = app;
    if (app.secret !== undefined) headers['x-slack-signature'] = slackSignature(app.secret, timestamp, body);
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers,
        body,
        signal: AbortSignal.timeout(SLACK_ANSWER_DEADLINE_MS),
      });
      await res.arrayBuffer();
      return res.status;
    } catch {
      return 0;
    }
  }

  return {
    registerApp(input) {
      if (input.appToken !== undefined) {
        if (!APP_TOKEN_PATTERN.test(input.appToken)) {
          throw new EmulatorInputError(
            'appToken must be an app-level token (xapp-…, with connections:write): Socket Mode does not take a bot token',
          );
        }
        app = undefined;
        socket.register(input.appToken);
        return;
      }
      app = input;
      socket.register(undefined);
    },
    setOrigin(url) {
      origin = url;
    },
    deliveries: () => delivered.map((d) => ({ ...d })),
    reset() {
      responses.clear();
      delivered.length = 0;
    },

    async deliverMessage(message, now) {
      if ((app === undefined && !socket.enabled()) || message.author.kind !== 'user') return;
      sequence += 1;
      const eventId = `Ev${String(sequence).padStart(8, '0')}`;
      const kind = channelKind(message.space);
      const callback = {
        token: 'emulated-verification-token',
        team_id: TEAM_ID,
        api_app_id: EMULATED_APP_ID,
        type: 'event_callback',
        event_id: eventId,
        event_time: Math.floor(now / 1000),
        event: {
          type: 'message',
          channel: message.space,
          user: message.author.id,
          text: message.text,
          ts: message.id,
          event_ts: message.id,
          ...(message.thread === null ? {} : { thread_ts: message.thread }),
          ...(kind === null ? {} : { channel_type: CHANNEL_TYPE[kind] }),
        },
      };
      if (socket.enabled()) {
        await socket.send('events_api', callback, recordEnvelope('event', eventId));
        return;
      }
      const status = await send(JSON.stringify(callback), 'application/json', now);
      delivered.push({ kind: 'event', id: eventId, status, via: 'http' });
    },

    async click(input, store, now) {
      const message = store.get(input.messageId);
      if (message === undefined) throw new EmulatorInputError(`no message ${input.messageId} to click`, 404);
      const button = findButton(message, input.action);
      if (button === undefined) {
        throw new EmulatorInputError(
          `message ${input.messageId} has no button whose action_id or value is ${JSON.stringify(input.action)}`,
        );
      }
      if (app === undefined && !socket.enabled()) return { delivered: false, status: 0 };
      if (origin === undefined) throw new Error('the Slack emulator clicked before it listened');
      const responseId = randomUUID();
      responses.set(responseId, []);
      const user = input.user ?? DEFAULT_PERSON_ID;
      const actionTs = `${(now / 1000).toFixed(6)}`;
      const payload = {
        type: 'block_actions',
        team: { id: TEAM_ID, domain: 'emulated' },
        user: { id: user, username: user.toLowerCase(), name: user.toLowerCase(), team_id: TEAM_ID },
        api_app_id: EMULATED_APP_ID,
        token: 'emulated-verification-token',
        trigger_id: `${Date.now()}.${responseId.slice(0, 8)}`,
        container: {
          type: 'message',
          message_ts: message.id,
          channel_id: message.space,
          is_ephemeral: false,
          ...(message.thread === null ? {} : { thread_ts: message.thread }),
        },
        channel: { id: message.space, name: message.space.toLowerCase() },
        message: {
          type: 'message',
          ts: message.id,
          text: message.text,
          user: message.author.id,
          ...(message.thread === null ? {} : { thread_ts: message.thread }),
          ...((message.data as { blocks?: unknown }).blocks === undefined
            ? {}
            : { blocks: (message.data as { blocks?: unknown }).blocks }),
        },
        response_url: `${origin}/_emulator/response?id=${responseId}`,
        actions: [
          {
            type: 'button',
            action_id: button.action_id ?? input.action,
            ...(button.block_id === undefined ? {} : { block_id: button.block_id }),
            ...(button.value === undefined ? {} : { value: button.value }),
            text: { type: 'plain_text', text: button.text?.text ?? input.action, emoji: true },
            action_ts: actionTs,
          },
        ],
      };
      let status: number;
      if (socket.enabled()) {
        const outcome = await socket.send('interactive', payload, recordEnvelope('interaction', responseId));
        status = outcome.acked ? 200 : 0;
      } else {
        const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
        status = await send(body, 'application/x-www-form-urlencoded', now);
        delivered.push({ kind: 'interaction', id: responseId, status, via: 'http' });
      }
      const replies = responses.get(responseId) ?? [];
      responses.delete(responseId);
      const reply = replies.map((r) => r.text).join('\n');
      return { delivered: status === 200, status, ...(reply === '' ? {} : { reply }) };
    },

    respond(id, body) {
      const recorded = id === null ? undefined : responses.get(id);
      if (recorded === undefined) {
        // Slack answers an unknown or expired response_url with 404 `expired_url`.
        return { status: 404, body: 'expired_url' };
      }
      const fields = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
      if (typeof fields.text !== 'string' || fields.text === '') {
        return { status: 400, body: 'no_text' };
      }
      recorded.push({
        text: fields.text,
        responseType: fields.response_type === 'in_channel' ? 'in_channel' : 'ephemeral',
        replaceOriginal: fields.replace_original === true || fields.replace_original === 'true',
      });
      return { status: 200, body: 'ok' };
    },
  };
}
