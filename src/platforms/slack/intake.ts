/**
 * Slack → turnlog (docs/platforms.md "Slack intake"): a Bolt `App`
 * (https://docs.slack.dev/tools/bolt-js/reference) whose receiver is served
 * by `turnlog serve` at `POST /v1/platforms/slack/events`, for both the
 * Events API (Event Subscriptions) and interactivity (Interactivity URL).
 *
 * - Every request is verified with the signing secret before Bolt sees it:
 *   `X-Slack-Signature` v0 over `v0:<timestamp>:<body>`, and
 *   `X-Slack-Request-Timestamp` within 5 minutes of the runtime clock
 *   (https://docs.slack.dev/authentication/verifying-requests-from-slack).
 *   A request that fails is answered 401 and counted in `refused()`.
 * - `url_verification` is answered with its `challenge`
 *   (https://docs.slack.dev/reference/events/url_verification).
 * - A `message` event (https://docs.slack.dev/reference/events/message) from
 *   a person — not a bot, no subtype but `thread_broadcast` — becomes a
 *   `MessageIntake`; an `event_id` already seen (Slack retries an event it
 *   thinks was not answered) is acknowledged and ignored.
 * - A `block_actions` interaction
 *   (https://docs.slack.dev/reference/interaction-payloads/block_actions-payload)
 *   becomes a `ClickIntake`; when the runtime does not accept it, the person
 *   is told why with an ephemeral reply through the `response_url` (`respond`).
 *
 * Slack wants an answer within 3 s: the runtime's verdict is awaited for up
 * to ACK_DEADLINE_MS, so an ephemeral reply is normally sent before the HTTP
 * answer; past it the request is answered and the work finishes after.
 *
 * With `appToken` the same listeners run over Socket Mode
 * (https://docs.slack.dev/apis/events-api/using-socket-mode) through Bolt's
 * SocketModeReceiver: no public URL, no signature (the socket is the app's).
 * `start()` resolves once Slack said `hello` on the first connection; an
 * app token that is not one (`xapp-…`) or that `apps.connections.open`
 * refuses is a SlackStartupError naming `platforms.slack.appToken` (the
 * socket client would retry some refusals forever). After that the client
 * reconnects by itself when Slack asks (`disconnect`) or the link drops.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  type AckFn,
  type App,
  type BlockAction,
  type Receiver,
  type ReceiverEvent,
  SocketModeReceiver,
  verifySlackRequest,
} from '@slack/bolt';
import { type Logger, LogLevel, WebAPIPlatformError } from '@slack/web-api';
import type { ClickIntake, IntakeResult, IntakeSink, MessageIntake } from '../../actions/types.js';
import { jsonErrorOf } from '../../events/json-error.js';
import { redactRawText } from '../../events/scrub.js';
import type { IntakeContext, PlatformIntake } from '../../registry/descriptor.js';
import { SlackStartupError, startSlackAppAs } from './app.js';
import type { SlackConfig } from './config.js';
import { SLACK_CHANNEL_PATTERN, slackApiUrlOf } from './surface.js';

/** Slack's deadline is 3 s; the verdict is awaited for a little less, so the answer always makes it. */
export const ACK_DEADLINE_MS = 2500;
/** Slack refuses older requests, and so do we (replays). */
export const MAX_REQUEST_AGE_S = 5 * 60;
/** Event ids remembered to ignore Slack's retries (oldest forgotten first). */
const SEEN_EVENTS = 10_000;
/** Bodies above this are not Slack's (events are a few KB; a block_actions payload carries the message). */
const BODY_LIMIT_BYTES = 1 << 20;

/** Message subtypes a person's post can have (https://docs.slack.dev/reference/events/message#subtypes). */
const PERSON_SUBTYPES: ReadonlySet<string | undefined> = new Set([undefined, 'thread_broadcast']);

export class SlackRequestRefused extends Error {
  override readonly name = 'SlackRequestRefused';
}

const quiet: Logger = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
  setLevel: () => {},
  getLevel: () => LogLevel.ERROR,
  setName: () => {},
};

/** A Slack `ts` (`1700000000.000100`) as epoch ms. */
function tsToMs(ts: unknown, fallback: number): number {
  const seconds = typeof ts === 'string' ? Number.parseFloat(ts) : Number.NaN;
  return Number.isFinite(seconds) ? Math.round(seconds * 1000) : fallback;
}

interface MessageEventFields {
  type?: string;
  subtype?: string;
  bot_id?: string;
  user?: string;
  text?: string;
  channel?: string;
  channel_type?: string;
  ts?: string;
  thread_ts?: string;
}

/**
 * The person's post as a MessageIntake, or why it is not one (a bot's or the
 * app's own message, an edit, a join …: those are not people talking to the agent).
 */
export function messageIntakeOf(
  event: MessageEventFields,
  eventId: string,
  botUserId: string | undefined,
  now: number,
): MessageIntake | string {
  if (event.type !== 'message') return `not a message event (${String(event.type)})`;
  if (!PERSON_SUBTYPES.has(event.subtype)) return `a ${event.subtype} message, not a person's post`;
  if (event.bot_id !== undefined || event.user === undefined) return "a bot's message";
  if (botUserId !== undefined && event.user === botUserId) return "the app's own message";
  if (event.channel === undefined || !SLACK_CHANNEL_PATTERN.test(event.channel))
    return `no Slack channel id (${String(event.channel)})`;
  if (event.ts === undefined) return 'a message without a ts';
  return {
    kind: 'message',
    space: `slack:${event.channel}`,
    messageId: event.ts,
    ...(event.thread_ts === undefined ? {} : { threadId: event.thread_ts }),
    text: event.text ?? '',
    dm: event.channel_type === 'im',
    user: { id: event.user },
    at: tsToMs(event.ts, now),
    dedupeKey: eventId,
  };
}

/** A button press on a message as a ClickIntake, or why it is not one. */
export function clickIntakeOf(body: BlockAction, now: number): ClickIntake | string {
  const action = body.actions[0];
  if (action === undefined) return 'a block_actions payload without an action';
  if (body.container?.type !== 'message' || typeof body.container.message_ts !== 'string')
    return 'not a button on a message';
  const channel = body.channel?.id ?? body.container.channel_id;
  if (typeof channel !== 'string' || !SLACK_CHANNEL_PATTERN.test(channel))
    return `no Slack channel id (${String(channel)})`;
  const threadTs = body.message?.thread_ts ?? body.container.thread_ts;
  const name = body.user.name ?? body.user.username;
  return {
    kind: 'click',
    space: `slack:${channel}`,
    messageId: body.container.message_ts,
    ...(typeof threadTs === 'string' ? { threadId: threadTs } : {}),
    action: action.action_id,
    user: { id: body.user.id, ...(name ? { name } : {}) },
    at: tsToMs(action.action_ts, now),
    dedupeKey: `${action.action_ts}:${body.user.id}`,
  };
}

/**
 * How long `start()` waits for Socket Mode's first `hello`. Slack answers in
 * well under a second; the socket client retries some refusals and
 * unreachable hosts for ever, so start-up gives up after this.
 */
export const SOCKET_MODE_START_TIMEOUT_MS = 30_000;

/** A quiet logger that keeps the socket client's last error (why it is still retrying). */
function errorKeepingLogger(): Logger & { lastError(): string | undefined } {
  let last: string | undefined;
  return {
    ...quiet,
    error: (...messages: unknown[]) => {
      // A WebSocket URL's ticket opens a connection: not something to print.
      last = messages
        .map(String)
        .join(' ')
        .replace(/ticket=[^&\s)]+/g, 'ticket=…');
    },
    lastError: () => last,
  };
}

/** An app-level token (https://docs.slack.dev/authentication/tokens#app-level). */
const APP_TOKEN_PATTERN = /^xapp-\S+$/;

/** Why Socket Mode could not start, naming the config key to fix. */
export function socketModeStartupError(error: unknown, apiUrl: string | undefined): SlackStartupError {
  if (error instanceof WebAPIPlatformError) {
    const code = typeof error.data.error === 'string' ? error.data.error : undefined;
    return new SlackStartupError(
      `platforms.slack.appToken was refused by Slack (${code ?? 'error'}) at apps.connections.open: ` +
        'check the app-level token (xapp-…, scope connections:write) and that Socket Mode is on for the app',
      code,
      { cause: error },
    );
  }
  const message = error instanceof Error ? error.message : String(error);
  return new SlackStartupError(
    `platforms.slack: could not open a Socket Mode connection at ${apiUrl ?? 'https://slack.com'}: ${message}`,
    undefined,
    { cause: error },
  );
}

/** What the person who clicked is told when the click did not become an action. */
export function replyFor(result: IntakeResult): string | undefined {
  if (result.status === 'accepted') return undefined;
  if (result.text !== undefined && result.text !== '') return result.text;
  return result.status === 'duplicate'
    ? 'This was already received.'
    : result.status === 'already-decided'
      ? 'Someone already decided this.'
      : 'turnlog does not know this button.';
}

/** The runtime's verdict, or undefined when it takes longer than `ms` (the work goes on). */
async function within<T>(work: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
    timer.unref?.();
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

const describe = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** Keeps what Slack sent that turnlog could not take (IntakeContext.deadLetter: redacted and stored by serve). */
function keepSlack(
  context: Pick<IntakeContext, 'deadLetter' | 'logger'>,
  reason: string,
  body: unknown,
): void {
  // The reason may quote what was sent (an event type, an error): redacted before it is logged.
  context.logger.warn('slack: kept a request turnlog could not take', { reason: redactRawText(reason) });
  context.deadLetter?.(reason, typeof body === 'string' ? body : JSON.stringify(body));
}

/** Interaction payload types (https://docs.slack.dev/reference/interaction-payloads) turnlog does not handle. */
const OTHER_INTERACTIONS: ReadonlySet<unknown> = new Set([
  'view_submission',
  'view_closed',
  'shortcut',
  'message_action',
  'block_suggestion',
  'interactive_message',
  'dialog_submission',
  'dialog_cancellation',
  'workflow_step_edit',
]);

/**
 * Why a verified body is not something turnlog takes (a message event, a
 * block_actions interaction), or undefined when it is: an event the app is
 * subscribed to but turnlog does not handle, a slash command, a modal …
 */
export function slackBodyProblem(body: Record<string, unknown>): string | undefined {
  const type = body.type;
  if (type === 'block_actions') return undefined;
  if (type === 'event_callback') {
    const event = body.event;
    const eventType =
      typeof event === 'object' && event !== null ? (event as { type?: unknown }).type : undefined;
    if (eventType === 'message') return undefined;
    return `a ${typeof eventType === 'string' ? eventType : 'typeless'} event: turnlog takes only message events (unsubscribe the others under Event Subscriptions)`;
  }
  if (typeof body.command === 'string')
    return `the slash command ${body.command}: turnlog registers no slash commands`;
  if (OTHER_INTERACTIONS.has(type))
    return `a ${String(type)} interaction: turnlog takes only block_actions (buttons on its own messages)`;
  return `a body of type ${JSON.stringify(type ?? null)}: not an Events API event or an interaction turnlog takes`;
}

/** The app's listeners, the same over HTTP and Socket Mode. */
function listen(app: App, sink: IntakeSink, context: IntakeContext, botUserId: () => string | undefined) {
  // What no listener below takes is kept and acknowledged. Over HTTP the receiver has already kept and
  // answered it (it never reaches Bolt); over Socket Mode this is where it is kept.
  app.use(async (args) => {
    const problem = slackBodyProblem(args.body as Record<string, unknown>);
    if (problem === undefined) return args.next();
    keepSlack(context, problem, args.body);
    // Bolt acknowledges events itself; commands, shortcuts and views wait for an ack.
    if ('ack' in args && typeof args.ack === 'function') await (args.ack as () => Promise<void>)();
  });
  app.event('message', async ({ event, body }) => {
    const eventId = typeof body.event_id === 'string' ? body.event_id : `${event.channel}:${event.ts}`;
    const intake = messageIntakeOf(event as MessageEventFields, eventId, botUserId(), context.now());
    if (typeof intake === 'string') return;
    let result: IntakeResult;
    try {
      result = await sink.receive(intake);
    } catch (error) {
      // Slack has its 200 already (events are acknowledged first): the message is kept, not lost.
      keepSlack(context, `the runtime could not take a message: ${describe(error)}`, body);
      return;
    }
    // A message the runtime refuses is kept by the runtime itself (a dead letter with source `ingest`).
    if (result.status === 'unknown')
      context.logger.warn('slack: a message was not taken', { space: intake.space, reason: result.text });
  });

  app.action<BlockAction>({ type: 'block_actions' }, async ({ ack, body, respond }) => {
    const click = clickIntakeOf(body, context.now());
    if (typeof click === 'string') {
      await ack();
      context.logger.warn('slack: an interaction was not a button on a message', { reason: click });
      keepSlack(context, `a block_actions interaction turnlog cannot take: ${click}`, body);
      return;
    }
    const pending = sink.receive(click).then(
      (verdict) => {
        if (verdict.status === 'unknown')
          keepSlack(context, `a click turnlog did not take: ${verdict.text ?? 'an unknown button'}`, body);
        return verdict;
      },
      (error: unknown): IntakeResult => {
        keepSlack(context, `the runtime could not take a click: ${describe(error)}`, body);
        // Answered like a refusal, so the person sees why instead of Slack's generic failure.
        return { status: 'unknown', text: 'turnlog could not record this press; try again.' };
      },
    );
    const result = await within(pending, ACK_DEADLINE_MS);
    if (result === undefined) {
      // Past the deadline: answer Slack now, tell the person once the verdict comes.
      await ack();
      const late = await pending;
      const text = replyFor(late);
      if (text) await respond({ response_type: 'ephemeral', replace_original: false, text });
      return;
    }
    const text = replyFor(result);
    if (text) {
      await respond({ response_type: 'ephemeral', replace_original: false, text }).catch((error: unknown) =>
        context.logger.warn('slack: the reply to a click was not delivered', {
          error: error instanceof Error ? error.message : String(error),
        }),
      );
    }
    await ack();
  });
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

/** JSON (Events API) or a form with a JSON `payload` (interactivity); a form without one is kept as fields. */
export function parseSlackBody(raw: string, contentType: string | undefined): Record<string, unknown> {
  if (contentType?.startsWith('application/x-www-form-urlencoded')) {
    const form = new URLSearchParams(raw);
    const payload = form.get('payload');
    if (payload !== null) {
      const parsed = JSON.parse(payload) as unknown;
      if (typeof parsed !== 'object' || parsed === null) throw new Error('payload is not a JSON object');
      return parsed as Record<string, unknown>;
    }
    return Object.fromEntries(form);
  }
  const parsed = JSON.parse(raw) as unknown;
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new Error('body is not a JSON object');
  return parsed as Record<string, unknown>;
}

export interface SlackIntake extends PlatformIntake {
  /** The Bolt app, once started. */
  readonly app: App | undefined;
}

/**
 * The Slack intake for `platforms.slack`: HTTP with `signingSecret`, Socket
 * Mode with `appToken`; undefined when neither is set. `start()` makes the
 * Bolt app (its `auth.test`: a bad token is a start-up error).
 */
export interface SlackIntakeOptions {
  /** How long `start()` waits for the first Socket Mode connection. Default {@link SOCKET_MODE_START_TIMEOUT_MS}. */
  socketModeStartTimeoutMs?: number;
}

export function createSlackIntake(
  config: SlackConfig,
  context: IntakeContext,
  opts: SlackIntakeOptions = {},
): SlackIntake | undefined {
  if (config.signingSecret === undefined && config.appToken === undefined) return undefined;
  const http =
    config.signingSecret === undefined
      ? undefined
      : createSlackHttpReceiver({
          signingSecret: config.signingSecret,
          now: context.now,
          logger: context.logger,
          ...(context.deadLetter === undefined ? {} : { deadLetter: context.deadLetter }),
        });
  const apps: App[] = [];
  let botUserId: string | undefined;

  return {
    get app() {
      return apps[0];
    },
    refused: () => http?.refused() ?? 0,
    ...(http === undefined ? {} : { handle: (request, response) => http.handle(request, response) }),
    async start() {
      if (http !== undefined) {
        const { app, identity } = await startSlackAppAs(config, { receiver: http });
        botUserId = identity.botUserId;
        listen(app, context.sink, context, () => botUserId);
        apps.push(app);
      }
      if (config.appToken !== undefined) {
        if (!APP_TOKEN_PATTERN.test(config.appToken)) {
          throw new SlackStartupError(
            'platforms.slack.appToken is not an app-level token (xapp-…): Socket Mode needs the app-level token ' +
              'with the connections:write scope (Basic Information → App-Level Tokens), not the bot token',
            'not_an_app_token',
          );
        }
        const socketLogger = errorKeepingLogger();
        const socket = new SocketModeReceiver({
          appToken: config.appToken,
          logger: socketLogger,
          installerOptions: { clientOptions: { slackApiUrl: slackApiUrlOf(config.apiUrl) } },
        });
        const { app, identity } = await startSlackAppAs(config, { receiver: socket });
        botUserId = identity.botUserId;
        listen(app, context.sink, context, () => botUserId);
        const timeoutMs = opts.socketModeStartTimeoutMs ?? SOCKET_MODE_START_TIMEOUT_MS;
        const starting = app.start().then(() => true as const);
        starting.catch(() => undefined); // a rejection after the deadline is the stop below
        let connected: true | undefined;
        try {
          connected = await within(starting, timeoutMs);
        } catch (error) {
          await within(app.stop(), ACK_DEADLINE_MS).catch(() => undefined);
          throw socketModeStartupError(error, config.apiUrl);
        }
        if (connected === undefined) {
          await within(app.stop(), ACK_DEADLINE_MS).catch(() => undefined);
          const last = socketLogger.lastError();
          throw new SlackStartupError(
            `platforms.slack: no Socket Mode connection within ${timeoutMs / 1000} s at ${config.apiUrl ?? 'https://slack.com'}` +
              `${last === undefined ? '' : ` (last: ${last})`}: check platforms.slack.appToken, apiUrl and that Socket Mode is on for the app`,
            'socket_mode_timeout',
          );
        }
        apps.push(app);
      }
    },
    async stop() {
      await Promise.allSettled(apps.map((app) => app.stop()));
      apps.length = 0;
    },
  };
}
