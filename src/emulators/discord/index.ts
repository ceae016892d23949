/**
 * The Discord emulator: a loopback server speaking the subset of the Discord
 * v10 REST API turnlog uses, and a minimal Gateway v10 on the same port
 * (gateway.ts: what discord.js's `Client` needs to receive messages and
 * button presses), for the official clients unmodified:
 *
 * ```ts
 * const emulator = await startDiscordEmulator();
 * const rest = new REST({ version: '10', api: `${emulator.url}/api`, retries: 0 }).setToken('x');
 * const api = new API(rest); // from '@discordjs/core/http-only'
 * ```
 */
import { createEmulatorServer, EmulatorInputError, type EmulatorServer } from '../core/index.js';
import type { LimitRule } from '../types.js';
import type { DiscordChannelSeed } from './channels.js';
import type { DiscordGatewayOptions, GatewaySessionView } from './gateway.js';
import { createDiscordHandler } from './handler.js';
import { DISCORD_DEFAULT_LIMITS } from './limits.js';
import { API_PREFIX } from './route-table.js';
import { setArchived } from './threads.js';

export { ChannelType, DEFAULT_PERSON_ID, type DiscordChannelSeed } from './channels.js';
export { MAX_V2_COMPONENTS, MAX_V2_TEXT_CHARS } from './components.js';
export { DISCORD_ERRORS } from './discord-errors.js';
export {
  DEFAULT_HEARTBEAT_INTERVAL_MS,
  type DiscordGatewayOptions,
  GATEWAY_PATH,
  type GatewaySessionView,
  INTERACTION_DEADLINE_MS,
} from './gateway.js';
export { GatewayClose, GatewayOp, Intent } from './gateway-payloads.js';
export { createDiscordHandler, type DiscordHandler, type DiscordHandlerOptions } from './handler.js';
export { DISCORD_DEFAULT_LIMITS } from './limits.js';
export { EDITABLE_AGE_MS } from './message-routes.js';
export { NONCE_WINDOW_MS } from './nonce-log.js';
export { MAX_CONTENT_CHARS } from './request-bodies.js';
export { API_PREFIX } from './route-table.js';
export { DISCORD_EPOCH_MS, isSnowflake, snowflakeTimestamp } from './snowflake.js';
export { MessageFlag } from './world.js';

export interface DiscordEmulatorOptions {
  /** Default 0: any free port. */
  port?: number;
  /** Default `127.0.0.1`. */
  host?: string;
  /** Epoch ms clock for timestamps, ids and limit windows; inject a simulated one in tests. */
  now?: () => number;
  /** The limits in force before any `POST /_emulator/limits`; default {@link DISCORD_DEFAULT_LIMITS}, `[]` for none. */
  limits?: LimitRule[];
  /**
   * Strict: only declared channels (and DMs opened through the API) exist —
   * any other id is 10003 Unknown Channel — and a request without
   * `Authorization` gets 401. Default false: any snowflake is a guild text
   * channel on first use.
   */
  strict?: boolean;
  /** Channels to declare: DMs (type 1), and in strict mode the guild text channels (type 0). */
  channels?: DiscordChannelSeed[];
  /** The gateway a bot connects to (tokens it accepts, heartbeat interval, interaction deadline). */
  gateway?: DiscordGatewayOptions;
}

export interface DiscordEmulator extends EmulatorServer {
  /** A person closes a thread (Discord's `archived`): edits, deletes and reactions in it then get 50083 until a new message reopens it. */
  archiveThread(threadId: string): void;
  /** The gateway, as `GET /_emulator/gateway` shows it. */
  gateway: {
    /** `ws://HOST:PORT/gateway`. */
    url: string;
    /** Open WebSocket connections. */
    connections(): number;
    sessions(): GatewaySessionView[];
    /** The network drops every connection (no close frame): a client resumes and gets what it missed. */
    drop(): void;
  };
}

export async function startDiscordEmulator(opts: DiscordEmulatorOptions = {}): Promise<DiscordEmulator> {
  const now = opts.now ?? Date.now;
  const handler = createDiscordHandler({
    now,
    strict: opts.strict ?? false,
    channels: opts.channels ?? [],
    ...(opts.gateway ? { gateway: opts.gateway } : {}),
  });
  const server = await createEmulatorServer({
    platform: 'discord',
    ...(opts.port === undefined ? {} : { port: opts.port }),
    ...(opts.host === undefined ? {} : { host: opts.host }),
    handler,
    defaults: opts.limits ?? DISCORD_DEFAULT_LIMITS,
    now,
  });
  const { context, recorder } = server.state;
  return {
    ...server,
    gateway: {
      url: handler.gateway.url()!,
      connections: () => handler.gateway.connections(),
      sessions: () => handler.gateway.sessions(),
      drop: () => handler.gateway.drop(),
    },
    archiveThread(threadId) {
      const thread = context.store.getThread(threadId);
      if (!thread) throw new EmulatorInputError(`no thread ${JSON.stringify(threadId)} to archive`, 404);
      setArchived(handler.worldOf(context), thread, true);
      recorder.record({
        method: 'PATCH',
        path: `${API_PREFIX}/channels/${threadId}`,
        op: 'other',
        status: 200,
        space: thread.space,
        thread: thread.id,
        details: { archived: true, by: 'person' },
      });
    },
  };
}
