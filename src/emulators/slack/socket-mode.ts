/**
 * Slack's Socket Mode, emulated (https://docs.slack.dev/apis/events-api/using-socket-mode):
 *
 * - `apps.connections.open` with the app-level token (`xapp-…`) the app was
 *   registered with (`POST /_emulator/app {"appToken"}`) answers
 *   `{ok: true, url: "ws://HOST:PORT/link/?ticket=…&app_id=…"}`; another
 *   `xapp-` token is `invalid_auth`, a bot or user token
 *   `not_allowed_token_type` (as Slack answers them). A ticket opens one
 *   connection, and only within `ticketTtlMs` of being handed out: Slack's
 *   URL is "temporary" and refreshed by calling the method again
 *   (https://docs.slack.dev/reference/methods/apps.connections.open); it
 *   publishes no lifetime, so 30 s is the emulator's choice. An expired or
 *   used ticket is refused (401) at the upgrade.
 * - On connecting, the emulator sends `{"type": "hello", "num_connections",
 *   "connection_info": {"app_id"}, "debug_info"}`; then events and button
 *   presses arrive as envelopes `{envelope_id, type: "events_api" |
 *   "interactive", payload, accepts_response_payload}` (an event also has
 *   `retry_attempt` and `retry_reason`), spread over the open connections.
 * - The app acknowledges an envelope with `{"envelope_id", "payload"?}`
 *   within the ack deadline (Slack: 3 s). An event not acknowledged in time
 *   is sent again, with a new envelope id, the same `event_id` and
 *   `retry_attempt` counting up (`retry_reason: "timeout"`), up to
 *   `maxRetries` times; a press is not retried (the person sees it fail).
 * - `disconnect(reason)` sends `{"type": "disconnect", "reason"}` to every
 *   open connection (Slack's `refresh_requested`, `warning`,
 *   `link_disabled`); the client closes it and opens a new one. A
 *   connection still open after `disconnectGraceMs` is cut.
 *
 * The emulator answers the client's WebSocket pings (the `ws` server does)
 * and sends its own every `pingIntervalMs` (10 s, the emulator's choice), as
 * Slack does: the official client (@slack/socket-mode) drops a connection
 * that hears no ping from the server for 30 s (`serverPingTimeout`) and
 * reconnects.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { type RawData, WebSocket, WebSocketServer } from 'ws';

/** Where a Socket Mode client connects: `/link/?ticket=…`, as Slack's `wss://wss-primary.slack.com/link/`. */
export const SOCKET_MODE_PATH = '/link';
/** Slack's deadline for an envelope's ack. */
export const SOCKET_MODE_ACK_DEADLINE_MS = 3000;
/** Slack retries an event it got no ack for 3 times. */
export const SOCKET_MODE_MAX_RETRIES = 3;
/** How long a connection told to `disconnect` may stay open (Slack gives about 10 s). */
export const SOCKET_MODE_DISCONNECT_GRACE_MS = 10_000;
/** How long a ticket from `apps.connections.open` stays good (Slack publishes no figure: the emulator's choice). */
export const SOCKET_MODE_TICKET_TTL_MS = 30_000;
/** How often the emulator pings each connection; well inside the official client's 30 s `serverPingTimeout`. */
export const SOCKET_MODE_PING_INTERVAL_MS = 10_000;
/** An app-level token: `xapp-…` (https://docs.slack.dev/authentication/tokens#app-level). */
export const APP_TOKEN_PATTERN = /^xapp-\S+$/;

export interface SlackSocketModeOptions {
  /** How long an envelope waits for its ack (ms). Default {@link SOCKET_MODE_ACK_DEADLINE_MS}. */
  ackTimeoutMs?: number;
  /** How many times an unacknowledged event is sent again. Default {@link SOCKET_MODE_MAX_RETRIES}. */
  maxRetries?: number;
  /** How long a connection told to `disconnect` may stay open before it is cut (ms). Default {@link SOCKET_MODE_DISCONNECT_GRACE_MS}. */
  disconnectGraceMs?: number;
  /** How long a ticket can open a connection after `apps.connections.open` (ms). Default {@link SOCKET_MODE_TICKET_TTL_MS}. */
  ticketTtlMs?: number;
  /** How often each connection is pinged (ms; 0: never). Default {@link SOCKET_MODE_PING_INTERVAL_MS}. */
  pingIntervalMs?: number;
  /** The clock tickets expire by (epoch ms). Default `Date.now`. */
  now?: () => number;
}

export type EnvelopeType = 'events_api' | 'interactive';

/** One envelope's fate, for `GET /_emulator/deliveries`. */
export interface EnvelopeOutcome {
  envelopeId: string;
  /** 0 for the first attempt, then 1, 2, … for redeliveries. */
  retry: number;
  acked: boolean;
  /** What the app put in its ack, when anything. */
  ackPayload?: unknown;
  /** Why it was not acknowledged: `timeout`, or `no connection` when no app was connected. */
  missed?: 'timeout' | 'no connection';
}

/** `GET /_emulator/socket`. */
export interface SocketModeView {
  /** Whether the registered app uses Socket Mode. */
  enabled: boolean;
  /** Successful `apps.connections.open` calls. */
  opened: number;
  connections: { id: string; draining: boolean; acks: number }[];
  /** Envelopes sent and not acknowledged yet. */
  unacked: string[];
}

export type ConnectionsOpenResult = { ok: true; url: string } | { ok: false; error: string };

export interface SlackSocketMode {
  /** The app's app-level token (Socket Mode on), or undefined (off: events go to its URL). */
  register(appToken: string | undefined): void;
  enabled(): boolean;
  /** `apps.connections.open` with `token`. */
  open(token: string): ConnectionsOpenResult;
  /**
   * Sends an envelope to a connection; `onOutcome` hears every attempt's
   * fate. Resolves with the first attempt's (acked, or missed at the
   * deadline); an event's redeliveries go on after.
   */
  send(
    type: EnvelopeType,
    payload: Record<string, unknown>,
    onOutcome: (outcome: EnvelopeOutcome) => void,
  ): Promise<EnvelopeOutcome>;
  /** Sends `disconnect` to every open connection; how many were told. */
  disconnect(reason?: string): number;
  connections(): number;
  view(): SocketModeView;
  /** Forgets unacknowledged envelopes (their timers stop). */
  reset(): void;
  attach(server: Server, origin: string, appId: string): void;
  detach(): Promise<void>;
}

interface Connection {
  id: string;
  socket: WebSocket;
  draining: boolean;
  acks: number;
  cut?: NodeJS.Timeout;
  ping?: NodeJS.Timeout;
}

interface Pending {
  envelopeId: string;
  retry: number;
  timer: NodeJS.Timeout;
  settle(outcome: EnvelopeOutcome): void;
}

/**
 * The tickets handed out and not used yet, each good until its expiry.
 * `delete` takes a ticket (single use) and says whether it could open a
 * connection: handed out, unused and unexpired.
 */
function createTicketBook(ttlMs: number, now: () => number) {
  const expiries = new Map<string, number>();
  return {
    add(ticket: string): void {
      const at = now();
      for (const [old, until] of expiries) if (until <= at) expiries.delete(old);
      expiries.set(ticket, at + ttlMs);
    },
    delete(ticket: string): boolean {
      const until = expiries.get(ticket);
      if (until === undefined) return false;
      expiries.delete(ticket);
      return now() < until;
    },
  };
}

export function createSlackSocketMode(opts: SlackSocketModeOptions = {}): SlackSocketMode {
  const ackTimeoutMs = opts.ackTimeoutMs ?? SOCKET_MODE_ACK_DEADLINE_MS;
  const maxRetries = opts.maxRetries ?? SOCKET_MODE_MAX_RETRIES;
  const graceMs = opts.disconnectGraceMs ?? SOCKET_MODE_DISCONNECT_GRACE_MS;
  const pingIntervalMs = opts.pingIntervalMs ?? SOCKET_MODE_PING_INTERVAL_MS;

  let appToken: string | undefined;
  let origin: string | undefined;
  let appId = 'A0EMULATED';
  let wss: WebSocketServer | null = null;
  let detachUpgrade: (() => void) | null = null;
  let opened = 0;
  let sequence = 0;
  let turn = 0;
  const tickets = createTicketBook(opts.ticketTtlMs ?? SOCKET_MODE_TICKET_TTL_MS, opts.now ?? Date.now);
  const connections: Connection[] = [];
  const pending = new Map<string, Pending>();
  /** Bumped by reset and detach: envelopes of an earlier generation are not sent again. */
  let generation = 0;

  const nextId = (prefix: string) => {
    sequence += 1;
    return `${prefix}${String(sequence).padStart(6, '0')}-${randomUUID().slice(0, 8)}`;
  };

  /** Round robin over the connections not told to go; a draining one only when nothing else is open. */
  function pickConnection(): Connection | undefined {
    const open = connections.filter((c) => c.socket.readyState === WebSocket.OPEN);
    const fresh = open.filter((c) => !c.draining);
    const pool = fresh.length > 0 ? fresh : open;
    if (pool.length === 0) return undefined;
    turn = (turn + 1) % pool.length;
    return pool[turn];
  }

  /** Every envelope still waiting counts as missed, now, and none is sent again. */
  function abandonPending() {
    generation += 1;
    for (const entry of [...pending.values()])
      entry.settle({ envelopeId: entry.envelopeId, retry: entry.retry, acked: false, missed: 'timeout' });
  }

  function onMessage(connection: Connection, data: RawData) {
    let message: unknown;
    try {
      message = JSON.parse(data.toString());
    } catch {
      return; // Slack ignores what it cannot read; so does the emulator.
    }
    if (typeof message !== 'object' || message === null) return;
    const { envelope_id: envelopeId, payload } = message as { envelope_id?: unknown; payload?: unknown };
    if (typeof envelopeId !== 'string') return;
    const waiting = pending.get(envelopeId);
    if (waiting === undefined) return; // late or unknown: Slack has moved on
    connection.acks += 1;
    const hasPayload = typeof payload === 'object' && payload !== null && Object.keys(payload).length > 0;
    waiting.settle({
      envelopeId,
      retry: waiting.retry,
      acked: true,
      ...(hasPayload ? { ackPayload: payload } : {}),
    });
  }

  function onConnection(socket: WebSocket) {
    const connection: Connection = { id: nextId('conn'), socket, draining: false, acks: 0 };
    connections.push(connection);
    socket.on('message', (data) => onMessage(connection, data));
    if (pingIntervalMs > 0) {
      connection.ping = setInterval(() => {
        if (socket.readyState === WebSocket.OPEN) socket.ping();
      }, pingIntervalMs);
      connection.ping.unref?.();
    }
    socket.on('close', () => {
      clearTimeout(connection.cut);
      clearInterval(connection.ping);
      const index = connections.indexOf(connection);
      if (index >= 0) connections.splice(index, 1);
    });
    socket.on('error', () => socket.terminate());
    socket.send(
      JSON.stringify({
        type: 'hello',
        num_connections: connections.length,
        debug_info: { host: 'applink-emulated', build_number: 1, approximate_connection_time: 18060 },
        connection_info: { app_id: appId },
      }),
    );
  }

  function attempt(
    type: EnvelopeType,
    payload: Record<string, unknown>,
    retry: number,
    onOutcome: (outcome: EnvelopeOutcome) => void,
    first: (outcome: EnvelopeOutcome) => void,
  ) {
    const envelopeId = randomUUID();
    const envelope = {
      envelope_id: envelopeId,
      type,
      payload,
      accepts_response_payload: false,
      ...(type === 'events_api' ? { retry_attempt: retry, retry_reason: retry === 0 ? '' : 'timeout' } : {}),
    };
    const connection = pickConnection();
    let missed: EnvelopeOutcome['missed'] = 'timeout';
    if (connection === undefined) missed = 'no connection';
    else connection.socket.send(JSON.stringify(envelope));

    const born = generation;
    const settle = (outcome: EnvelopeOutcome) => {
      const entry = pending.get(envelopeId);
      if (entry === undefined) return;
      clearTimeout(entry.timer);
      pending.delete(envelopeId);
      onOutcome(outcome);
      if (retry === 0) first(outcome);
      if (!outcome.acked && type === 'events_api' && retry < maxRetries && born === generation)
        attempt(type, payload, retry + 1, onOutcome, first);
    };
    // Without a connection the attempt still waits out the deadline: an app reconnecting meanwhile gets the retry.
    const timer = setTimeout(() => settle({ envelopeId, retry, acked: false, missed }), ackTimeoutMs);
    timer.unref?.();
    pending.set(envelopeId, { envelopeId, retry, timer, settle });
  }

  return {
    register(token) {
      appToken = token;
    },
    enabled: () => appToken !== undefined,
    open(token) {
      if (!APP_TOKEN_PATTERN.test(token)) return { ok: false, error: 'not_allowed_token_type' };
      if (appToken === undefined || token !== appToken) return { ok: false, error: 'invalid_auth' };
      if (origin === undefined) return { ok: false, error: 'internal_error' };
      const ticket = randomUUID();
      tickets.add(ticket);
      opened += 1;
      return {
        ok: true,
        url: `${origin.replace(/^http/, 'ws')}${SOCKET_MODE_PATH}/?ticket=${ticket}&app_id=${appId}`,
      };
    },
    send(type, payload, onOutcome) {
      return new Promise((resolve) => attempt(type, payload, 0, onOutcome, resolve));
    },
    disconnect(reason = 'refresh_requested') {
      let told = 0;
      for (const connection of connections) {
        if (connection.socket.readyState !== WebSocket.OPEN || connection.draining) continue;
        connection.draining = true;
        connection.socket.send(
          JSON.stringify({ type: 'disconnect', reason, debug_info: { host: 'applink-emulated' } }),
        );
        connection.cut = setTimeout(() => connection.socket.terminate(), graceMs);
        connection.cut.unref?.();
        told += 1;
      }
      return told;
    },
    connections: () => connections.filter((c) => c.socket.readyState === WebSocket.OPEN).length,
    view: () => ({
      enabled: appToken !== undefined,
      opened,
      connections: connections.map((c) => ({ id: c.id, draining: c.draining, acks: c.acks })),
      unacked: [...pending.keys()],
    }),
    reset: () => abandonPending(),
    attach(server, serverOrigin, id) {
      origin = serverOrigin;
      appId = id;
      const socketServer = new WebSocketServer({ noServer: true });
      socketServer.on('connection', onConnection);
      const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
        const url = new URL(request.url ?? '/', 'ws://emulator');
        if (url.pathname.replace(/\/+$/, '') !== SOCKET_MODE_PATH) {
          socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n');
          return;
        }
        const ticket = url.searchParams.get('ticket');
        if (ticket === null || !tickets.delete(ticket)) {
          // A ticket is good for one connection: a new one comes from apps.connections.open.
          socket.end('HTTP/1.1 401 Unauthorized\r\nConnection: close\r\n\r\n');
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
      abandonPending();
      const closing = connections.map(
        (connection) =>
          new Promise<void>((resolve) => {
            clearTimeout(connection.cut);
            if (connection.socket.readyState === WebSocket.CLOSED) return resolve();
            connection.socket.once('close', () => resolve());
            connection.socket.terminate();
          }),
      );
      await Promise.all(closing);
      await new Promise<void>((resolve) => (wss ? wss.close(() => resolve()) : resolve()));
      wss = null;
    },
  };
}
