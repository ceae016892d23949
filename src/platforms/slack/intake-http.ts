/**
 * The Events API and interactivity over HTTP: `turnlog serve` hands each
 * request in (`handle`); it is verified with the signing secret
 * (https://docs.slack.dev/authentication/verifying-requests-from-slack)
 * before Bolt sees it, and answered within Slack's 3 s.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type AckFn, type App, type Receiver, type ReceiverEvent, verifySlackRequest } from '@slack/bolt';
import { jsonErrorOf } from '../../events/json-error.js';
import type { IntakeContext } from '../../registry/descriptor.js';
import { ACK_DEADLINE_MS } from './intake-deadline.js';
import { keepSlack, parseSlackBody, slackBodyProblem } from './intake-events.js';

/** Slack refuses older requests, and so do we (replays). */
export const MAX_REQUEST_AGE_S = 5 * 60;
/** Event ids remembered to ignore Slack's retries (oldest forgotten first). */
const SEEN_EVENTS = 10_000;
/** Bodies above this are not Slack's (events are a few KB; a block_actions payload carries the message). */
const BODY_LIMIT_BYTES = 1 << 20;

export class SlackRequestRefused extends Error {
  override readonly name = 'SlackRequestRefused';
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > BODY_LIMIT_BYTES) throw new SlackRequestRefused(`body over ${BODY_LIMIT_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

const header = (request: IncomingMessage, name: string): string | undefined => {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

function answer(response: ServerResponse, status: number, body?: unknown): void {
  if (response.headersSent) return;
  if (body === undefined || body === '') {
    response.writeHead(status).end();
    return;
  }
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  response
    .writeHead(status, { 'content-type': typeof body === 'string' ? 'text/plain' : 'application/json' })
    .end(text);
}

/** Requests turnlog serve hands in (`handle`), verified here, then given to Bolt with `app.processEvent`. */
export interface SlackHttpReceiver extends Receiver {
  handle(request: IncomingMessage, response: ServerResponse): Promise<void>;
  refused(): number;
}

export function createSlackHttpReceiver(opts: {
  signingSecret: string;
  now: () => number;
  logger: IntakeContext['logger'];
  /** Keeps a verified request turnlog cannot take (never one that failed verification). */
  deadLetter?: IntakeContext['deadLetter'];
}): SlackHttpReceiver {
  let app: App | undefined;
  let refused = 0;
  const seen = new Set<string>();

  const refuse = (response: ServerResponse, reason: string) => {
    refused += 1;
    opts.logger.warn('slack: refused a request that failed verification', { reason });
    answer(response, 401);
  };

  return {
    init(bolt) {
      app = bolt;
    },
    start: async () => undefined,
    stop: async () => undefined,
    refused: () => refused,

    async handle(request, response) {
      let raw: string;
      try {
        raw = await readBody(request);
      } catch (error) {
        answer(response, 413, { error: error instanceof Error ? error.message : String(error) });
        return;
      }
      const signature = header(request, 'x-slack-signature');
      const timestamp = header(request, 'x-slack-request-timestamp');
      if (signature === undefined || timestamp === undefined || !/^\d+$/.test(timestamp)) {
        refuse(response, 'no X-Slack-Signature / X-Slack-Request-Timestamp');
        return;
      }
      const timestampS = Number(timestamp);
      try {
        verifySlackRequest({
          signingSecret: opts.signingSecret,
          body: raw,
          headers: { 'x-slack-signature': signature, 'x-slack-request-timestamp': timestampS },
          nowMilliseconds: opts.now(),
        });
      } catch (error) {
        refuse(response, error instanceof Error ? error.message : String(error));
        return;
      }
      // verifySlackRequest refuses old timestamps only; one from the future is as suspicious.
      if (timestampS - Math.floor(opts.now() / 1000) > MAX_REQUEST_AGE_S) {
        refuse(response, 'x-slack-request-timestamp is in the future');
        return;
      }

      let body: Record<string, unknown>;
      try {
        body = parseSlackBody(raw, header(request, 'content-type'));
      } catch (error) {
        // jsonErrorOf: Node quotes the start of the text it could not parse, which may be a secret.
        const reason = `not a Slack request body: ${jsonErrorOf(error)}`;
        keepSlack(opts, reason, raw);
        answer(response, 400, { error: reason });
        return;
      }
      if (body.type === 'url_verification') {
        answer(response, 200, { challenge: body.challenge });
        return;
      }
      if (body.ssl_check !== undefined) {
        answer(response, 200);
        return;
      }
      if (body.type === 'app_rate_limited') {
        // Slack saying it dropped events (https://docs.slack.dev/apis/events-api/#rate-limiting): news, not bad input.
        opts.logger.warn('slack: Slack rate-limited the Events API for this app', {
          minute: body.minute_rate_limited,
        });
        answer(response, 200);
        return;
      }
      const problem = slackBodyProblem(body);
      if (problem !== undefined) {
        // Answered 200 all the same: Slack retries (and may switch off) an event that is not.
        keepSlack(opts, problem, raw);
        answer(response, 200);
        return;
      }
      if (app === undefined) {
        answer(response, 503, { error: 'the Slack app is not started yet' });
        return;
      }
      const eventId = typeof body.event_id === 'string' ? body.event_id : undefined;
      if (eventId !== undefined) {
        if (seen.has(eventId)) {
          answer(response, 200);
          return;
        }
        seen.add(eventId);
        if (seen.size > SEEN_EVENTS) seen.delete(seen.values().next().value!);
      }

      // Bolt acknowledges through `ack`; the answer goes out when the listeners are done (or at the deadline).
      let acked: { body?: unknown } | undefined;
      const ack: AckFn<unknown> = async (reply) => {
        acked ??= { body: reply };
        if (timedOut) answer(response, 200, acked.body);
      };
      let timedOut = false;
      const deadline = setTimeout(() => {
        timedOut = true;
        if (acked) answer(response, 200, acked.body);
      }, ACK_DEADLINE_MS);
      deadline.unref?.();
      const retryNum = header(request, 'x-slack-retry-num');
      const retryReason = header(request, 'x-slack-retry-reason');
      const event: ReceiverEvent = {
        body,
        ack,
        ...(retryNum === undefined ? {} : { retryNum: Number(retryNum) }),
        ...(retryReason === undefined ? {} : { retryReason }),
      };
      try {
        await app.processEvent(event);
        answer(response, 200, acked?.body);
      } catch (error) {
        opts.logger.warn('slack: handling a request failed', {
          error: error instanceof Error ? error.message : String(error),
        });
        if (acked) answer(response, 200, acked.body);
        else answer(response, 500);
      } finally {
        clearTimeout(deadline);
      }
    },
  };
}
