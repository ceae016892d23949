/**
 * The Slack side of the daemon: a Bolt `App`
 * (https://docs.slack.dev/tools/bolt-js/reference) that authenticates at
 * start with `auth.test` (https://docs.slack.dev/reference/methods/auth.test).
 * A token Slack refuses is a start-up error naming `platforms.slack.token`,
 * not a turn that fails later. The events endpoint is served by the daemon
 * (a custom receiver hands requests to `app.processEvent`).
 */
import { App, type Receiver } from '@slack/bolt';
import { type Logger, LogLevel, WebClient } from '@slack/web-api';
import { PlatformStartupError } from '../../config-error.js';
import { isSurfaceError } from '../../surfaces/surface.js';
import type { SlackConfig } from './config.js';
import { toSurfaceError } from './errors.js';
import { slackApiUrlOf } from './surface.js';

export class SlackStartupError extends PlatformStartupError {
  override readonly name = 'SlackStartupError';
  constructor(
    message: string,
    readonly code: string | undefined,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Who the token is, as `auth.test` answers. */
export interface SlackIdentity {
  teamId: string;
  botUserId: string;
  botId?: string;
  url?: string;
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

const clientOptionsOf = (config: Pick<SlackConfig, 'apiUrl'>) => ({
  slackApiUrl: slackApiUrlOf(config.apiUrl),
  rejectRateLimitedCalls: true,
  retryConfig: { retries: 0 },
  logger: quiet,
});

function startupError(error: unknown, apiUrl: string | undefined): SlackStartupError {
  const mapped = isSurfaceError(error) ? error : toSurfaceError(error, 'auth.test');
  const code = typeof mapped.details.code === 'string' ? mapped.details.code : undefined;
  const where = apiUrl ?? 'https://slack.com';
  const message =
    mapped.kind === 'forbidden'
      ? `platforms.slack.token was refused by Slack (${code ?? 'forbidden'}): check the bot token (xoxb-…) of the app installed in the workspace`
      : `platforms.slack: could not verify the token with auth.test at ${where}: ${mapped.message}`;
  return new SlackStartupError(message, code, { cause: error });
}

/**
 * `auth.test` with the configured token: resolves the bot's identity, or
 * rejects with a SlackStartupError naming `platforms.slack.token`. `turnlog
 * serve` awaits it before it listens.
 */
export async function verifySlackAuth(config: Pick<SlackConfig, 'token' | 'apiUrl'>): Promise<SlackIdentity> {
  const client = new WebClient(config.token, clientOptionsOf(config));
  try {
    const auth = await client.auth.test();
    if (typeof auth.team_id !== 'string' || typeof auth.user_id !== 'string') {
      throw new SlackStartupError('auth.test answered without team_id/user_id', undefined);
    }
    return {
      teamId: auth.team_id,
      botUserId: auth.user_id,
      ...(typeof auth.bot_id === 'string' ? { botId: auth.bot_id } : {}),
      ...(typeof auth.url === 'string' ? { url: auth.url } : {}),
    };
  } catch (error) {
    if (error instanceof SlackStartupError) throw error;
    throw startupError(error, config.apiUrl);
  }
}

/** Requests reach the app through `app.processEvent` from the daemon's own HTTP server. */
const daemonReceiver = (): Receiver => ({
  init: () => {},
  start: async () => undefined,
  stop: async () => undefined,
});

/**
 * The daemon's Bolt App, initialised (its `auth.test` done): a bad token
 * rejects with a SlackStartupError. Without `receiver`, events are handed in
 * with `app.processEvent`.
 */
export async function startSlackApp(
  config: Pick<SlackConfig, 'token' | 'apiUrl'>,
  opts: { receiver?: Receiver } = {},
): Promise<App> {
  return (await startSlackAppAs(config, opts)).app;
}

/** {@link startSlackApp}, also giving who the token is (the intake skips the app's own messages). */
export async function startSlackAppAs(
  config: Pick<SlackConfig, 'token' | 'apiUrl'>,
  opts: { receiver?: Receiver } = {},
): Promise<{ app: App; identity: SlackIdentity }> {
  const identity = await verifySlackAuth(config);
  const app = new App({
    token: config.token,
    botUserId: identity.botUserId,
    ...(identity.botId ? { botId: identity.botId } : {}),
    receiver: opts.receiver ?? daemonReceiver(),
    logger: quiet,
    deferInitialization: true,
    clientOptions: clientOptionsOf(config),
  });
  try {
    await app.init();
  } catch (error) {
    throw startupError(error, config.apiUrl);
  }
  return { app, identity };
}
