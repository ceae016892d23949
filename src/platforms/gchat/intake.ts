/**
 * Google Chat's events reaching turnlog: `POST /v1/platforms/gchat/events`,
 * the Chat app's HTTP endpoint (docs/platforms.md, "Google Chat: two-way").
 *
 * Each request is verified first (intake-jwt.ts: a Bearer JWT Google signed
 * for this app's audience; 401 and counted otherwise), then read
 * (intake-events.ts: 400 naming what is wrong), then handed to the runtime.
 * What a verified request carried that turnlog cannot take (a bad body, an
 * unknown type or button, a runtime error) is kept through
 * `context.deadLetter` (docs/http-api.md, "What an intake cannot take");
 * what failed verification is only counted and logged.
 * Chat is answered synchronously
 * (https://developers.google.com/workspace/chat/receive-respond-interactions):
 * - MESSAGE → `{}`: no reply message; the host answers through a turn;
 * - CARD_CLICKED → `{}` when the click was taken (the card edit itself goes
 *   through the API), else a private message to the person who clicked
 *   saying why (already decided, unknown button):
 *   https://developers.google.com/workspace/chat/private-messages
 *
 * A replayed request (a message or click already taken) is answered `{}`
 * without reaching the runtime again; the runtime also drops a message it
 * has seen, across restarts.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { IntakeResult } from '../../actions/types.js';
import { jsonErrorOf } from '../../events/json-error.js';
import { redactRawText } from '../../events/scrub.js';
import type { IntakeContext, PlatformIntake } from '../../registry/descriptor.js';
import { neutralizeMentions } from '../../render/mentions.js';
import { discardRest, readBodyWithin } from '../../serve/body.js';
import { ChatEventError, readChatEvent } from './intake-events.js';
import {
  ChatKeysUnavailableError,
  ChatTokenError,
  type ChatTokenVerifier,
  createChatTokenVerifier,
} from './intake-jwt.js';
import { GCHAT_MENTION_FORMS } from './render.js';

/** Chat events are small; anything larger is not one. */
const MAX_BODY_BYTES = 256 * 1024;
/** Replay keys remembered (oldest forgotten first). */
const SEEN_CAPACITY = 10_000;

export interface GchatIntakeOptions {
  /** The Chat app's project number (its "Authentication audience"). */
  audience: string;
  /** Where Google publishes the signing keys (a JWK set or X.509 certificates); default Google's. */
  jwksUrl?: string;
}

/** A set that forgets its oldest keys past a capacity. */
function boundedSet(capacity: number) {
  const keys = new Set<string>();
  return {
    has: (key: string) => keys.has(key),
    add(key: string) {
      keys.add(key);
      if (keys.size > capacity) keys.delete(keys.values().next().value as string);
    },
    delete: (key: string) => keys.delete(key),
  };
}

function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  response.end(JSON.stringify(body));
}

/** Chat's answer to a click the runtime did not take: a text only the clicker sees. */
function privateReply(user: string, text: string): Record<string, unknown> {
  return {
    actionResponse: { type: 'NEW_MESSAGE' },
    privateMessageViewer: { name: user },
    text: neutralizeMentions(text, GCHAT_MENTION_FORMS),
  };
}

export function createGchatIntake(options: GchatIntakeOptions, context: IntakeContext): PlatformIntake {
  const verifier: ChatTokenVerifier = createChatTokenVerifier({
    audience: options.audience,
    ...(options.jwksUrl === undefined ? {} : { jwksUrl: options.jwksUrl }),
    now: context.now,
  });
  const seen = boundedSet(SEEN_CAPACITY);
  let refused = 0;

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    try {
      await verifier.verify(request.headers.authorization);
    } catch (error) {
      if (error instanceof ChatTokenError) {
        refused++;
        context.logger.warn('gchat intake: refused a request that failed verification', {
          reason: error.message,
        });
        sendJson(response, 401, { error: `not verified as Google Chat: ${error.message}` });
        return;
      }
      if (error instanceof ChatKeysUnavailableError) {
        context.logger.warn('gchat intake: cannot verify requests', { reason: error.message });
        sendJson(response, 503, { error: error.message }, { 'retry-after': '30' });
        return;
      }
      throw error;
    }

    const read = await readBodyWithin(request, MAX_BODY_BYTES);
    if (!read.ok) {
      const reason = `body over ${MAX_BODY_BYTES} bytes: not a Google Chat event`;
      context.logger.warn('gchat intake: kept the head of an over-limit body', { reason });
      context.deadLetter?.(`${reason}; its first bytes kept`, read.head.toString('utf8'));
      sendJson(response, 413, { error: reason });
      discardRest(request, { maxBytes: 4 * MAX_BODY_BYTES, maxMs: 5_000 });
      return;
    }
    // Verified from here on: what cannot be taken is kept (redacted by serve), not only logged.
    const raw = read.body.toString('utf8');
    const keep = (reason: string) => {
      // The reason may quote what was sent (an event type, an error): redacted before it is logged.
      context.logger.warn('gchat intake: kept a request turnlog could not take', {
        reason: redactRawText(reason),
      });
      context.deadLetter?.(reason, raw);
    };
    let intake: ReturnType<typeof readChatEvent>;
    try {
      intake = readChatEvent(JSON.parse(raw) as unknown, context.now());
    } catch (error) {
      const message =
        error instanceof ChatEventError
          ? error.message
          : // jsonErrorOf: Node quotes the start of the text it could not parse, which may be a secret.
            `the body is not JSON: ${jsonErrorOf(error)}`;
      context.logger.warn('gchat intake: refused a bad event', { error: redactRawText(message) });
      keep(message);
      sendJson(response, 400, { error: message });
      return;
    }

    if (intake.kind === 'ignored') {
      context.logger.info('gchat intake: acknowledged', { type: intake.type });
      sendJson(response, 200, {});
      return;
    }
    if (intake.kind === 'foreign-button') {
      context.logger.warn('gchat intake: a click on a button turnlog did not render', {
        reason: intake.text,
      });
      keep(`a click on a button turnlog did not render: ${intake.text}`);
      sendJson(response, 200, privateReply(intake.user, intake.text));
      return;
    }

    const event = intake.event;
    const key = `${event.kind}:${event.dedupeKey}`;
    if (seen.has(key)) {
      context.logger.info('gchat intake: ignored a replay', { kind: event.kind, messageId: event.messageId });
      sendJson(response, 200, {});
      return;
    }
    // Taken before the runtime answers, so a concurrent replay is ignored too; given back if it fails.
    seen.add(key);
    let result: IntakeResult;
    try {
      result = await context.sink.receive(event);
    } catch (error) {
      seen.delete(key);
      const reason = `the runtime could not take a ${event.kind}: ${error instanceof Error ? error.message : String(error)}`;
      keep(reason);
      if (event.kind === 'click') {
        // Chat shows a failed request as "not responding"; the person is told, privately, to try again.
        sendJson(
          response,
          200,
          privateReply(event.user.id, 'turnlog could not record this press; try again.'),
        );
        return;
      }
      sendJson(response, 500, { error: reason });
      return;
    }
    // A message the runtime refuses is kept by the runtime itself (a dead letter with source `ingest`).
    if (event.kind === 'click' && result.status === 'unknown')
      keep(`a click turnlog did not take: ${result.text ?? 'an unknown button'}`);
    if (result.status === 'unknown') {
      // Not taken (a space turnlog does not serve, a bad timestamp): said in the log, not dropped silently.
      context.logger.warn('gchat intake: the runtime did not take an event', {
        kind: event.kind,
        messageId: event.messageId,
        reason: result.text,
      });
    }
    if (event.kind === 'message' || result.status === 'accepted' || result.text === undefined) {
      sendJson(response, 200, {});
      return;
    }
    sendJson(response, 200, privateReply(event.user.id, result.text));
  }

  return {
    handle,
    refused: () => refused,
  };
}
