/**
 * Structured logs of `turnlog serve` (pino, JSON lines on stderr so stdout
 * carries only the ready line). Event text and tokens are never logged.
 */
import { type DestinationStream, type Logger, pino } from 'pino';
import type { LOG_LEVELS } from '../config.js';
import type { RuntimeLogger } from '../runtime.js';

export type ServeLogLevel = (typeof LOG_LEVELS)[number];

export function createServeLogger(level: ServeLogLevel, destination?: DestinationStream): Logger {
  return pino(
    { name: 'turnlog', level },
    destination ?? pino.destination({ dest: process.stderr.fd, sync: true }),
  );
}

/** The runtime's warnings and errors, as pino lines. */
export function runtimeLoggerOf(logger: Logger): RuntimeLogger {
  return {
    warn: (message, fields) => logger.warn(fields ?? {}, message),
    error: (message, fields) => logger.error(fields ?? {}, message),
  };
}

/** The runtime's logger with `info` too (the cluster logs its leases at info). */
export function clusterLoggerOf(logger: Logger): RuntimeLogger & {
  info(message: string, fields?: Record<string, unknown>): void;
} {
  return { ...runtimeLoggerOf(logger), info: (message, fields) => logger.info(fields ?? {}, message) };
}

/**
 * An error about a rejected line, fit for the log: quoted values (which may
 * be the event's text, e.g. JSON.parse's `"hello world" is not valid JSON`)
 * are elided to `"…"`. The client's response keeps the full error.
 * A single pass (no regex), so a hostile line costs linear time.
 */
export function loggableError(error: string): string {
  let out = '';
  let inQuote = false;
  for (let i = 0; i < error.length; i++) {
    const char = error[i];
    if (!inQuote) {
      out += char;
      if (char === '"') inQuote = true;
    } else if (char === '\\') {
      i++;
    } else if (char === '"') {
      out += '…"';
      inQuote = false;
    }
  }
  return inQuote ? `${out}…` : out;
}
