/**
 * A minimal Discord Gateway v10 on the emulator's own HTTP server
 * (https://discord.com/developers/docs/events/gateway), enough for
 * discord.js's `Client`: `GET /api/v10/gateway/bot` names it
 * (`ws://HOST:PORT/gateway`), then HELLO → IDENTIFY (the token checked: 4004)
 * → READY + GUILD_CREATE, heartbeats acked, RESUME of a known session
 * (replaying what it missed), and dispatches with an increasing `s`:
 * MESSAGE_CREATE for every new message (a person's from
 * `/_emulator/inbound`, the bot's own from REST, as Discord echoes them) and
 * INTERACTION_CREATE for `/_emulator/click`. JSON encoding; `zlib-stream`
 * transport compression when asked.
 *
 * An interaction must be answered (`POST /interactions/{id}/{token}/callback`)
 * within {@link DiscordGatewayOptions.interactionTimeoutMs} (Discord: 3 s);
 * later it is unknown (10062), as on Discord (gateway-interactions.ts).
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { createDeflate, type Deflate, constants as zlibConstants } from 'node:zlib';
import { type RawData, WebSocket, WebSocketServer } from 'ws';
import type { StoredMessage } from '../core/index.js';
import type { ClickInput, ClickResult } from '../core/platform-handler.js';
import type { BotUser } from './apps.js';
import { ChannelType, type ResolvedChannel } from './channels.js';
import {
  createInteractionDesk,
  INTERACTION_DEADLINE_MS,
  type InteractionAnswer,
  type PendingInteraction,
} from './gateway-interactions.js';
import {
  announcement,
  channelOfMessage,
  channelsToAnnounce,
  GatewayClose,
  GatewayOp,
  guildCreatePayload,
  Intent,
  KNOWN_INTENTS,
  messageCreatePayload,
  PRIVILEGED_INTENTS,
  readyPayload,
} from './gateway-payloads.js';
import type { DiscordWorld } from './world.js';

// The interactions' public names, importable from here as before.
export {
  INTERACTION_DEADLINE_MS,
  type InteractionAnswer,
  type PendingInteraction,
} from './gateway-interactions.js';

export const GATEWAY_PATH = '/gateway';
/** Discord's usual HELLO interval (ms). */
export const DEFAULT_HEARTBEAT_INTERVAL_MS = 41_250;
/** Dispatches kept per session for a RESUME to replay. */
const REPLAY_LIMIT = 1_000;
/** Sessions kept for a RESUME after their connection dropped; the oldest are forgotten past this. */
const SESSION_LIMIT = 100;
export interface DiscordGatewayOptions {
  /** The bot tokens Discord knows (others: 401 on REST `/gateway/bot`, 4004 on IDENTIFY). Default: any non-empty token. */
  tokens?: readonly string[];
  /** HELLO's `heartbeat_interval` (ms). Default {@link DEFAULT_HEARTBEAT_INTERVAL_MS}; tests use a short one. */
  heartbeatIntervalMs?: number;
  /** How long a click waits for the interaction's answer (ms). Default {@link INTERACTION_DEADLINE_MS}. */
  interactionTimeoutMs?: number;
  /**
   * False: the app has not switched on its privileged intents in the portal,
   * so an IDENTIFY asking for Message Content (or Guild Members, Presences)
   * is closed with 4014, as on Discord. Default true.
   */
  privilegedIntents?: boolean;
}

/** One gateway session as `GET /_emulator/gateway` shows it. */
export interface GatewaySessionView {
  sessionId: string;
  bot: { id: string; username: string };
  intents: number;
  /** The last dispatch's `s`. */
  seq: number;
  connected: boolean;
  /** Heartbeats acked on its connections (before IDENTIFY or RESUME they count for no session). */
  heartbeats: number;
}

export interface DiscordGateway {
  /** Serves WebSocket upgrades on `GATEWAY_PATH` of the emulator's server. */
  attach(server: Server, world: DiscordWorld, origin: string): void;
  /** Closes every connection and stops serving; pending clicks resolve as not delivered. */
  detach(): Promise<void>;
  /** `ws://HOST:PORT/gateway`; null before `attach`. */
  url(): string | null;
  acceptsToken(token: string): boolean;
  /** MESSAGE_CREATE to every session whose intents cover it; resolves once sent. */
  deliverMessage(world: DiscordWorld, message: StoredMessage): Promise<void>;
  /** INTERACTION_CREATE to the app that posted the message; resolves with its answer or after the deadline. */
  click(world: DiscordWorld, input: ClickInput): Promise<ClickResult>;
  interaction(id: string): PendingInteraction | undefined;
  /** Records the callback's answer and resolves the click waiting on it. */
  answer(interaction: PendingInteraction, answer: InteractionAnswer): void;
  sessions(): GatewaySessionView[];
  /** Open WebSocket connections. */
  connections(): number;
  /** The network drops every connection (no close frame): sessions stay resumable. */
  drop(): void;
}

interface Session {
  id: string;
  token: string;
  bot: BotUser;
  intents: number;
  seq: number;
  replay: { t: string; s: number; d: unknown }[];
  /** Guild channels this session was told about (CHANNEL_CREATE / THREAD_CREATE / GUILD_CREATE). */
  announced: Set<string>;
  connection: Connection | null;
  heartbeats: number;
}

interface Connection {
  socket: WebSocket;
  session: Session | null;
  /** `compress=zlib-stream`: one deflate context for the connection, flushed per payload. */
  deflate: Deflate | null;
  /** Sends in order (deflate flushes are asynchronous). */
  queue: Promise<void>;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function createDiscordGateway(opts: DiscordGatewayOptions = {}): DiscordGateway {
  const heartbeatInterval = opts.heartbeatIntervalMs ?? DEFAULT_HEARTBEAT_INTERVAL_MS;
  const tokens = opts.tokens ? new Set(opts.tokens) : null;
  const sessions = new Map<string, Session>();
  const connections = new Set<Connection>();
  let wss: WebSocketServer | null = null;
  let gatewayUrl: string | null = null;
  let world: DiscordWorld | null = null;
  let detachUpgrade: (() => void) | null = null;

  const desk = createInteractionDesk({
    timeoutMs: opts.interactionTimeoutMs ?? INTERACTION_DEADLINE_MS,
    targetFor(botId) {
      // Discord sends the interaction to the app whose message it is, on its newest connection.
      const session = live()
        .reverse()
        .find((candidate) => candidate.bot.id === botId);
      if (!session) return undefined;
      return {
        bot: session.bot,
        async deliver(current, channel, t, d) {
          await announce(session, current, channel);
          await dispatch(session, t, d);
        },
      };
    },
  });

  const acceptsToken = (value: string) => value !== '' && (tokens === null || tokens.has(value));

  function send(connection: Connection, payload: unknown): Promise<void> {
    const text = JSON.stringify(payload);
    connection.queue = connection.queue.then(
      () =>
        new Promise<void>((resolve) => {
          const { socket, deflate } = connection;
          if (socket.readyState !== WebSocket.OPEN) return resolve();
          if (!deflate) {
            socket.send(text, () => resolve());
            return;
          }
          const chunks: Buffer[] = [];
          const collect = (chunk: Buffer) => chunks.push(chunk);
          deflate.on('data', collect);
          deflate.write(text);
          // Z_SYNC_FLUSH ends each payload with 00 00 ff ff, which is how the client knows a message is whole.
          deflate.flush(zlibConstants.Z_SYNC_FLUSH, () => {
            deflate.off('data', collect);
            socket.send(Buffer.concat(chunks), () => resolve());
          });
        }),
    );
    return connection.queue;
  }

  function dispatch(session: Session, t: string, d: unknown): Promise<void> {
    session.seq += 1;
    const entry = { t, s: session.seq, d };
    session.replay.push(entry);
    if (session.replay.length > REPLAY_LIMIT) session.replay.shift();
    const { connection } = session;
    if (!connection) return Promise.resolve();
    return send(connection, { op: GatewayOp.Dispatch, ...entry });
  }

  /** CHANNEL_CREATE / THREAD_CREATE for the channels of `channel` this session has not seen. */
  async function announce(session: Session, current: DiscordWorld, channel: ResolvedChannel): Promise<void> {
    for (const known of channelsToAnnounce(current, channel)) {
      if (session.announced.has(known.id)) continue;
      session.announced.add(known.id);
      const { t, d } = announcement(current, known);
      await dispatch(session, t, d);
    }
  }

  const live = () => [...sessions.values()].filter((session) => session.connection !== null);

  function close(connection: Connection, code: number, reason: string): void {
    connection.socket.close(code, reason);
  }

  function remember(session: Session): void {
    sessions.set(session.id, session);
    if (sessions.size > SESSION_LIMIT) {
      const oldest = [...sessions.values()].find((s) => s.connection === null);
      if (oldest) sessions.delete(oldest.id);
    }
  }

  async function identify(connection: Connection, d: unknown): Promise<void> {
    if (connection.session)
      return close(connection, GatewayClose.AlreadyAuthenticated, 'Already authenticated.');
    if (!isRecord(d) || typeof d.token !== 'string' || !isRecord(d.properties)) {
      return close(connection, GatewayClose.DecodeError, 'Error while decoding payload.');
    }
    if (!acceptsToken(d.token)) {
      return close(connection, GatewayClose.AuthenticationFailed, 'Authentication failed.');
    }
    const shard = d.shard ?? [0, 1];
    if (!Array.isArray(shard) || shard[0] !== 0 || shard[1] !== 1) {
      return close(connection, GatewayClose.InvalidShard, 'Invalid shard.');
    }
    if (typeof d.intents !== 'number' || !Number.isInteger(d.intents) || (d.intents & ~KNOWN_INTENTS) !== 0) {
      return close(connection, GatewayClose.InvalidIntents, 'Invalid intent(s).');
    }
    if (opts.privilegedIntents === false && (d.intents & PRIVILEGED_INTENTS) !== 0) {
      return close(connection, GatewayClose.DisallowedIntents, 'Disallowed intent(s).');
    }
    const current = world!;
    const session: Session = {
      id: randomBytes(16).toString('hex'),
      token: d.token,
      bot: current.apps.botFor(`Bot ${d.token}`),
      intents: d.intents,
      seq: 0,
      replay: [],
      announced: new Set(),
      connection,
      heartbeats: 0,
    };
    connection.session = session;
    remember(session);
    await dispatch(
      session,
      'READY',
      readyPayload({
        bot: session.bot,
        guildId: current.guildId,
        sessionId: session.id,
        resumeUrl: gatewayUrl!,
        shard: [0, 1],
      }),
    );
    // Without the GUILDS intent Discord sends no guild events; discord.js then stops waiting for them.
    if ((session.intents & Intent.Guilds) !== 0) {
      await dispatch(session, 'GUILD_CREATE', guildCreatePayload(current, session.bot, current.ctx.now()));
    }
  }

  async function resume(connection: Connection, d: unknown): Promise<void> {
    if (connection.session)
      return close(connection, GatewayClose.AlreadyAuthenticated, 'Already authenticated.');
    if (!isRecord(d) || typeof d.token !== 'string' || typeof d.session_id !== 'string') {
      return close(connection, GatewayClose.DecodeError, 'Error while decoding payload.');
    }
    const session = sessions.get(d.session_id);
    const seq = typeof d.seq === 'number' ? d.seq : 0;
    if (!session || session.token !== d.token || session.connection !== null || seq > session.seq) {
      // Not resumable: the client identifies anew.
      await send(connection, { op: GatewayOp.InvalidSession, d: false, s: null, t: null });
      return;
    }
    session.connection = connection;
    connection.session = session;
    for (const entry of session.replay) {
      if (entry.s > seq) await send(connection, { op: GatewayOp.Dispatch, ...entry });
    }
    await dispatch(session, 'RESUMED', null);
  }

  async function onPayload(connection: Connection, raw: RawData, isBinary: boolean): Promise<void> {
    let payload: unknown;
    try {
      payload = isBinary ? undefined : JSON.parse(raw.toString());
    } catch {
      payload = undefined;
    }
    if (!isRecord(payload) || typeof payload.op !== 'number') {
      return close(connection, GatewayClose.DecodeError, 'Error while decoding payload.');
    }
    switch (payload.op) {
      case GatewayOp.Heartbeat:
        if (connection.session) connection.session.heartbeats += 1;
        await send(connection, { op: GatewayOp.HeartbeatAck, d: null, s: null, t: null });
        return;
      case GatewayOp.Identify:
        return identify(connection, payload.d);
      case GatewayOp.Resume:
        return resume(connection, payload.d);
      case GatewayOp.PresenceUpdate:
      case GatewayOp.VoiceStateUpdate:
      case GatewayOp.RequestGuildMembers:
        if (!connection.session)
          return close(connection, GatewayClose.NotAuthenticated, 'Not authenticated.');
        return;
      default:
        return close(connection, GatewayClose.UnknownOpcode, 'Unknown opcode.');
    }
  }

  function onConnection(socket: WebSocket, request: IncomingMessage): void {
    const query = new URL(request.url ?? '/', 'ws://gateway').searchParams;
    const compress = query.get('compress');
    const connection: Connection = {
      socket,
      session: null,
      deflate: compress === 'zlib-stream' ? createDeflate() : null,
      queue: Promise.resolve(),
    };
    connections.add(connection);
    socket.on('message', (raw, isBinary) => {
      onPayload(connection, raw, isBinary).catch(() =>
        close(connection, GatewayClose.UnknownError, 'Unknown error.'),
      );
    });
    socket.on('close', (code) => {
      connections.delete(connection);
      connection.deflate?.close();
      const { session } = connection;
      if (session && session.connection === connection) {
        session.connection = null;
        // A clean close (1000/1001) ends the session: it can't be resumed.
        if (code === 1000 || code === 1001) sessions.delete(session.id);
      }
    });
    socket.on('error', () => socket.terminate());
    // https://discord.com/developers/docs/events/gateway#connecting: `v` and `encoding` are checked before HELLO.
    if (query.get('v') !== null && query.get('v') !== '10') {
      close(connection, GatewayClose.InvalidApiVersion, 'Invalid API version.');
      return;
    }
    if ((query.get('encoding') ?? 'json') !== 'json' || (compress !== null && compress !== 'zlib-stream')) {
      close(
        connection,
        GatewayClose.DecodeError,
        'The emulator speaks encoding=json, optionally with compress=zlib-stream.',
      );
      return;
    }
    void send(connection, {
      op: GatewayOp.Hello,
      d: { heartbeat_interval: heartbeatInterval },
      s: null,
      t: null,
    });
  }

  return {
    attach(server, attachedWorld, origin) {
      world = attachedWorld;
      gatewayUrl = `${origin.replace(/^http/, 'ws')}${GATEWAY_PATH}`;
      const socketServer = new WebSocketServer({ noServer: true });
      socketServer.on('connection', onConnection);
      const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
        const path = new URL(request.url ?? '/', 'ws://gateway').pathname.replace(/\/+$/, '');
        if (path !== GATEWAY_PATH) {
          socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n');
          return;
        }
        socketServer.handleUpgrade(request, socket, head, (ws) =>
          socketServer.emit('connection', ws, request),
        );
      };
      server.on('upgrade', onUpgrade);
      detachUpgrade = () => server.off('upgrade', onUpgrade);
      wss = socketServer;
    },
    async detach() {
      detachUpgrade?.();
      detachUpgrade = null;
      desk.settleAll();
      const closing = [...connections].map(
        (connection) =>
          new Promise<void>((resolve) => {
            if (connection.socket.readyState === WebSocket.CLOSED) return resolve();
            connection.socket.once('close', () => resolve());
            // Going away: the client may resume elsewhere; terminate so closing never waits on a client.
            connection.socket.terminate();
          }),
      );
      await Promise.all(closing);
      await new Promise<void>((resolve) => (wss ? wss.close(() => resolve()) : resolve()));
      wss = null;
    },
    url: () => gatewayUrl,
    acceptsToken,
    async deliverMessage(current, message) {
      const channel = channelOfMessage(current, message);
      if (!channel) return;
      const dm = channel.type === ChannelType.DM;
      const needed = dm ? Intent.DirectMessages : Intent.GuildMessages;
      // A dropped session's events wait in its replay for a RESUME, as on Discord.
      for (const session of sessions.values()) {
        if ((session.intents & needed) === 0) continue;
        await announce(session, current, channel);
        const withContent = (session.intents & Intent.MessageContent) !== 0;
        await dispatch(
          session,
          'MESSAGE_CREATE',
          messageCreatePayload(current, message, channel, session.bot, withContent),
        );
      }
    },
    click: desk.click,
    interaction: desk.interaction,
    answer: desk.answer,
    sessions: () =>
      [...sessions.values()].map((session) => ({
        sessionId: session.id,
        bot: { id: session.bot.id, username: session.bot.username },
        intents: session.intents,
        seq: session.seq,
        connected: session.connection !== null,
        heartbeats: session.heartbeats,
      })),
    connections: () => connections.size,
    drop() {
      for (const connection of connections) connection.socket.terminate();
    },
  };
}
