/** Starts the Slack emulator: the Web API at `<url>/api/<method>`, the inspection API at `<url>/_emulator/*`. */
import { createEmulatorServer, type EmulatorServer } from '../core/index.js';
import type { LimitRule } from '../types.js';
import { createSlackHandler, type SlackHandlerOptions } from './handler.js';
import { SLACK_DEFAULT_LIMITS } from './limits.js';
import type { SlackSocketModeOptions, SocketModeView } from './socket-mode.js';

export interface SlackEmulatorOptions
  extends Pick<SlackHandlerOptions, 'assistantStatus' | 'archived' | 'notMember' | 'unsupportedBlocks'> {
  /** Default 0: any free port. */
  port?: number;
  /** Default `127.0.0.1`. */
  host?: string;
  /** Epoch ms for `ts`, records and limit windows; inject a simulated clock to drive windows without sleeping. */
  now?: () => number;
  /** The limits in force instead of {@link SLACK_DEFAULT_LIMITS} (`[]`: none). */
  limits?: LimitRule[];
  /**
   * Refuse what Slack accepts but turnlog must never do: `thread_ts` in a DM
   * (`restricted_action_non_threadable_channel`) and a `thread_ts` that names
   * no message (`thread_not_found`). Default false: as Slack.
   */
  strict?: boolean;
  /** Socket Mode: the ack deadline (default 3 s), retries of an unacknowledged event (3), the disconnect grace (10 s), a ticket's lifetime (30 s), the ping interval (10 s). */
  socketMode?: SlackSocketModeOptions;
}

export interface SlackEmulator extends EmulatorServer {
  /** Socket Mode, in process (the same as `GET /_emulator/socket` and `POST /_emulator/socket/disconnect`). */
  socketMode: {
    /** Open WebSocket connections. */
    connections(): number;
    view(): SocketModeView;
    /** Sends `{type: "disconnect", reason}` to every open connection (default `refresh_requested`); how many. */
    disconnect(reason?: string): number;
  };
}

/**
 * Point the official client at `url`:
 * `new WebClient(token, {slackApiUrl: url + '/api/', rejectRateLimitedCalls: true, retryConfig: {retries: 0}})`.
 */
export async function startSlackEmulator(opts: SlackEmulatorOptions = {}): Promise<SlackEmulator> {
  const handler = createSlackHandler({
    strict: opts.strict ?? false,
    ...(opts.socketMode === undefined ? {} : { socketMode: opts.socketMode }),
    ...(opts.assistantStatus === undefined ? {} : { assistantStatus: opts.assistantStatus }),
    ...(opts.archived === undefined ? {} : { archived: opts.archived }),
    ...(opts.notMember === undefined ? {} : { notMember: opts.notMember }),
    ...(opts.unsupportedBlocks === undefined ? {} : { unsupportedBlocks: opts.unsupportedBlocks }),
  });
  const server = await createEmulatorServer({
    platform: 'slack',
    handler,
    defaults: opts.limits ?? SLACK_DEFAULT_LIMITS,
    ...(opts.port === undefined ? {} : { port: opts.port }),
    ...(opts.host === undefined ? {} : { host: opts.host }),
    ...(opts.now === undefined ? {} : { now: opts.now }),
  });
  return {
    ...server,
    socketMode: {
      connections: () => handler.socketMode.connections(),
      view: () => handler.socketMode.view(),
      disconnect: (reason) => handler.socketMode.disconnect(reason),
    },
  };
}
