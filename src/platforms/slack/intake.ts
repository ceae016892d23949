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
 *   thinks was not answered) is acknowledged and ignored, and so is a
 *   message (channel + `ts`) already recorded under another `event_id`.
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
 *
 * Reading what Slack sends is in intake-events.ts, the HTTP receiver in
 * intake-http.ts, Socket Mode's start-up in intake-socket.ts.
 */
import { type App, type BlockAction, SocketModeReceiver } from '@slack/bolt';
import type { IntakeResult, IntakeSink } from '../../actions/types.js';
import type { IntakeContext, PlatformIntake } from '../../registry/descriptor.js';
import { SlackStartupError, startSlackAppAs } from './app.js';
import type { SlackConfig } from './config.js';
import { ACK_DEADLINE_MS, within } from './intake-deadline.js';
import {
  clickIntakeOf,
  keepSlack,
  type MessageEventFields,
  messageIntakeOf,
  replyFor,
  slackBodyProblem,
} from './intake-events.js';
import { createSlackHttpReceiver } from './intake-http.js';
import {
  APP_TOKEN_PATTERN,
  errorKeepingLogger,
  SOCKET_MODE_START_TIMEOUT_MS,
  socketModeStartupError,
} from './intake-socket.js';
import { slackApiUrlOf } from './surface.js';

// The parts, importable from here as before.
export { ACK_DEADLINE_MS } from './intake-deadline.js';
export {
  clickIntakeOf,
  messageIntakeOf,
  parseSlackBody,
  replyFor,
  slackBodyProblem,
} from './intake-events.js';
export {
  createSlackHttpReceiver,
  MAX_REQUEST_AGE_S,
  type SlackHttpReceiver,
  SlackRequestRefused,
} from './intake-http.js';
export { SOCKET_MODE_START_TIMEOUT_MS, socketModeStartupError } from './intake-socket.js';

const describe = (error: unknown) => (error instanceof Error ? error.message : String(error));

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
    const intake = messageIntakeOf(event as MessageEventFields, botUserId(), context.now());
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
