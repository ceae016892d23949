/**
 * Socket Mode's start-up (https://docs.slack.dev/apis/events-api/using-socket-mode):
 * how long `start()` waits for the first `hello`, and why it could not
 * start, naming the config key to fix.
 */
import { type Logger, LogLevel, WebAPIPlatformError } from '@slack/web-api';
import { SlackStartupError } from './app.js';

/**
 * How long `start()` waits for Socket Mode's first `hello`. Slack answers in
 * well under a second; the socket client retries some refusals and
 * unreachable hosts for ever, so start-up gives up after this.
 */
export const SOCKET_MODE_START_TIMEOUT_MS = 30_000;

const quiet: Logger = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
  setLevel: () => {},
  getLevel: () => LogLevel.ERROR,
  setName: () => {},
};

/** A quiet logger that keeps the socket client's last error (why it is still retrying). */
export function errorKeepingLogger(): Logger & { lastError(): string | undefined } {
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
export const APP_TOKEN_PATTERN = /^xapp-\S+$/;

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
