/**
 * The ingest HTTP API of `turnlog serve` (docs/http-api.md) on plain
 * `node:http`: four routes do not need a framework, and owning the request
 * loop gives exact control over status codes, the streamed body limit and
 * what is logged.
 *
 *   POST /v1/events       NDJSON / JSON array / JSON object → 202 {accepted, rejected, duplicates}
 *   GET  /v1/turns/:id    the turn's view, live or finished → 200 | 404
 *   GET|PUT /v1/spaces/:space  a space's own settings ({threadsDisabled?, dm?}) → 200 | 400; DELETE clears them
 *   GET  /v1/actions      people's actions after a cursor, a long poll (actions-route.ts) → 200 | 400
 *   GET  /healthz         200 {ok: true} when every surface is ready, else 503 (+ cluster, §6)
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { z } from 'zod';
import { ConfigError } from '../config.js';
import { jsonErrorOf } from '../events/json-error.js';
import { redactSecrets } from '../events/redact.js';
import { spaceSchema } from '../events/schema.js';
import { redactRawText } from '../events/scrub.js';
import type { PlatformIntake } from '../registry/descriptor.js';
import type { PlatformRegistry } from '../registry/registry.js';
import type { Runtime } from '../runtime.js';
import type { DeadLetterRecord, MaybePromise } from '../store/store.js';
import type { ChatSurface } from '../surfaces/surface.js';
import { getActions } from './actions-route.js';
import { createBearerCheck, isLoopbackHost } from './auth.js';
import { discardRest, readBodyWithin } from './body.js';
import { createFairQueue } from './fair-queue.js';
import { checkSurfaces } from './health.js';
import { createHostCheck } from './host-check.js';
import { bodyFormatOf, ingestBody, JSON_TYPE, NDJSON_TYPES } from './ingest-body.js';
import { listenError } from './listen-error.js';
import { loggableError } from './logger.js';
import { handleRunPage, type RunPageDeps } from './run-page/route.js';

export interface IngestServerOptions {
  /** The platforms served: a space of another platform, or not in its platform's form, is a 400. */
  platforms?: PlatformRegistry;
  runtime: Pick<
    Runtime,
    | 'ingest'
    | 'ingestBatch'
    | 'sync'
    | 'turn'
    | 'finishedTurn'
    | 'configureSpace'
    | 'spaceSettings'
    | 'resetSpace'
    | 'actions'
  >;
  /** Platform intakes by platform id, served at `POST /v1/platforms/<id>/events` (their own verification, no bearer token). */
  intakes?: Readonly<Record<string, PlatformIntake>>;
  /**
   * Several instances (docs/http-api.md (several instances)): `/healthz` adds this process's
   * `cluster` object (instance id, spaces owned, store and budget state).
   */
  cluster?: () => Promise<unknown>;
  /** The configured surfaces, for `/healthz`. */
  surfaces: Partial<Record<string, ChatSurface>>;
  host: string;
  /** 0: any free port (read it from `url`). */
  port: number;
  /** Host header values answered to besides the loopback names and `host` (host-check.ts); others get 421. */
  allowedHosts?: readonly string[];
  /** Bearer token for `/v1/*`; required unless `host` is loopback. */
  token?: string;
  bodyLimitBytes: number;
  /**
   * The bodies of `POST /v1/events` held at once (being read, queued, or
   * waiting for their commit), in bytes. A body that would take the total past
   * it while others are held is answered 503 with Retry-After, unread. Default 16 MiB.
   */
  maxPendingBytes?: number;
  /** Keeps what is refused before reaching the runtime (an over-limit or unparseable body). */
  deadLetter(record: DeadLetterRecord): MaybePromise<void>;
  logger: Logger;
  now?: () => number;
  /** How long `/healthz` waits for a surface's `ready()`. Default 5000 ms. */
  healthTimeoutMs?: number;
  /** A client whose headers have not all arrived by then is cut (408, closed). Default 10 s. */
  headersTimeoutMs?: number;
  /** A client whose whole request has not arrived by then is cut (408, closed). Default 30 s. */
  bodyTimeoutMs?: number;
  /** The run page (`runs.publicUrl` set): its routes under /runs/, and `runUrl` on GET /v1/turns/:id. */
  runPage?: Omit<RunPageDeps, 'closing'>;
  /**
   * Issue 23 item 5 (docs/http-api.md (several instances)): whether the app's budget is shared
   * now or this process keeps its share (`runtime.budgetMode()`); shown as
   * `/healthz` `cluster.budget` when it says either.
   */
  budgetMode?: () => 'shared' | 'local-fallback' | undefined;
}

export interface IngestServer {
  /** `http://host:port` as bound (the real port when 0 was asked). */
  readonly url: string;
  /** Stops accepting connections, closes idle keep-alive ones; resolves when the last open request has finished. */
  close(): Promise<void>;
  /** Drops every connection at once, requests in flight included (the end of a bounded shutdown). */
  closeAllConnections(): void;
}

/** At most this much of an over-limit body is kept as its dead letter. */
export const OVERSIZE_DEAD_LETTER_BYTES = 64 * 1024;

/** How long the rest of an over-limit body is read and thrown away so the client can read its 413. */
const OVERSIZE_LINGER_MS = 2000;
const DEFAULT_HEALTH_TIMEOUT_MS = 5000;
export const DEFAULT_MAX_PENDING_BYTES = 16 * 1024 * 1024;
/** What a body refused for `maxPendingBytes` is told to wait, in seconds. */
const PENDING_RETRY_AFTER_S = 1;
const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;
const DEFAULT_BODY_TIMEOUT_MS = 30_000;
/** A token reachable from the network must not be guessable. */
export const MIN_TOKEN_CHARS = 16;
const TURN_PATH = /^\/v1\/turns\/([^/]+)$/;
const SPACE_PATH = /^\/v1\/spaces\/([^/]+)$/;
const INTAKE_PATH = /^\/v1\/platforms\/([^/]+)\/events$/;
const spaceSettingsSchema = z
  .object({ threadsDisabled: z.boolean().optional(), dm: z.boolean().optional() })
  .strict();

class HttpProblem extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/**
 * The head of a body cut at a byte limit, less the word the cut fell in: a
 * secret cut in two may be too short for its pattern (`ghp_Zq8Xw3…`), so
 * nothing after the last separator is kept.
 */
export function withoutCutWord(head: string): string {
  return head.replace(/[^\s"'`,:;=&{}[\]()<>|]+$/, '');
}

export async function startIngestServer(options: IngestServerOptions): Promise<IngestServer> {
  if (options.token === undefined && !isLoopbackHost(options.host)) {
    throw new ConfigError(
      `ingest.token: required when ingest.host is not a loopback address (got "${options.host}"); ` +
        'without one anyone who reaches the port could post into your chat spaces',
    );
  }
  const tokenChars = options.token?.replace(/\s/g, '').length ?? 0;
  if (options.token !== undefined && !isLoopbackHost(options.host) && tokenChars < MIN_TOKEN_CHARS) {
    throw new ConfigError(
      `ingest.token: must have at least ${MIN_TOKEN_CHARS} non-blank characters when ingest.host is not a loopback address ` +
        `(it has ${tokenChars}); a short token can be guessed`,
    );
  }
  const { runtime, logger } = options;
  const now = options.now ?? Date.now;
  const authorized = options.token === undefined ? () => true : createBearerCheck(options.token);
  const hostProblem = createHostCheck({ host: options.host, allowedHosts: options.allowedHosts ?? [] });
  /** The port bound, once listening (before that no request is routed). */
  let boundPort = 0;
  /** Ends the long polls of GET /v1/actions when the server closes. */
  const closing = new AbortController();
  const ingestQueue = createFairQueue();
  const maxPendingBytes = options.maxPendingBytes ?? DEFAULT_MAX_PENDING_BYTES;
  /** Bytes of the POST /v1/events bodies held now (read or being read, not yet answered). */
  let pendingBytes = 0;
  /** Set at the first body refused for `maxPendingBytes`, cleared when nothing is held: one warning per episode. */
  let overloaded = false;

  const keep = (reason: string, payload: string) => {
    // What never reached the runtime is redacted here, as the runtime redacts what does.
    const result = options.deadLetter({
      at: now(),
      source: 'ingest',
      reason: redactRawText(reason),
      payload: redactRawText(payload),
    });
    if (result instanceof Promise) {
      result.catch((error: unknown) => logger.error({ error: String(error) }, 'store: deadLetter failed'));
    }
  };

  async function postEvents(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const format = bodyFormatOf(request.headers['content-type']);
    if (format === undefined) {
      throw new HttpProblem(
        415,
        `unsupported content type ${JSON.stringify(request.headers['content-type'] ?? '(none)')}: ` +
          `send ${NDJSON_TYPES[0]} (one event per line) or ${JSON_TYPE} (an array or one object)`,
      );
    }
    // This body's bytes, counted in `pendingBytes` from the moment they are held until it is answered.
    let held = 0;
    /** Holds `bytes` more of this body; no when other bodies are held and the total would pass the bound. */
    const hold = (bytes: number): boolean => {
      if (pendingBytes > held && pendingBytes + bytes > maxPendingBytes) return false;
      pendingBytes += bytes;
      held += bytes;
      return true;
    };
    try {
      const declared = Number(request.headers['content-length']);
      const declaredOk = Number.isFinite(declared) && declared <= options.bodyLimitBytes;
      if (declaredOk && !hold(declared)) return refuseBusy(request, response);
      const read = await readBodyWithin(request, options.bodyLimitBytes, declaredOk ? undefined : hold);
      if (!read.ok && read.refused === 'hold') return refuseBusy(request, response);
      if (!read.ok) {
        const reason = `body over the limit of ${options.bodyLimitBytes} bytes (ingest.bodyLimitBytes)`;
        keep(
          `${reason}; first ${Math.min(read.head.length, OVERSIZE_DEAD_LETTER_BYTES)} bytes kept`,
          withoutCutWord(read.head.subarray(0, OVERSIZE_DEAD_LETTER_BYTES).toString('utf8')),
        );
        logger.warn({ limit: options.bodyLimitBytes }, 'refused an over-limit body');
        // The rest of the body is never buffered; the connection cannot carry another request.
        sendJson(response, 413, { error: reason }, { connection: 'close' });
        discardRest(request, { maxBytes: options.bodyLimitBytes, maxMs: OVERSIZE_LINGER_MS });
        return;
      }
      // A retry of an event already applied (its eventId) counts as accepted: a retried request gets the first one's 202.
      let duplicates = 0;
      // In turn with every other request, the event loop let through between them (src/serve/fair-queue.ts).
      const outcome = await ingestQueue.run(() =>
        ingestBody(read.body.toString('utf8'), format, {
          ingestBatch: (inputs) => {
            const results = runtime.ingestBatch(inputs);
            for (const result of results) if (result.ok && result.duplicate) duplicates++;
            return results;
          },
          deadLetter: keep,
        }),
      );
      for (const rejected of outcome.rejected) {
        logger.warn({ line: rejected.line, error: loggableError(rejected.error) }, 'rejected an event');
      }
      if (outcome.bodyError !== undefined)
        logger.warn({ error: loggableError(outcome.bodyError) }, 'rejected a body');
      const counts = { accepted: outcome.accepted, rejected: outcome.rejected, duplicates };
      if (outcome.accepted > 0) {
        // Acknowledge only what a crash cannot lose: the run record and the turns' snapshots are committed
        // (a duplicate's first copy too, when it came in this same tick).
        await runtime.sync();
        sendJson(response, 202, counts);
      } else {
        const error = outcome.bodyError ?? `no event accepted: ${outcome.rejected.length} rejected`;
        sendJson(response, 400, { ...counts, error });
      }
    } finally {
      pendingBytes -= held;
      if (pendingBytes === 0) overloaded = false;
    }
  }

  /**
   * 503 to a body that would take the bodies held past `maxPendingBytes`: it
   * is not read (nothing of it is applied or kept) and the client sends it
   * again after Retry-After. The connection is closed, as after a 413.
   */
  function refuseBusy(request: IncomingMessage, response: ServerResponse): void {
    if (!overloaded) {
      overloaded = true;
      logger.warn(
        { pendingBytes, maxPendingBytes },
        'refusing bodies (503) until the ones held are answered (ingest.maxPendingBytes)',
      );
    }
    sendJson(
      response,
      503,
      {
        error:
          `busy: ${pendingBytes} bytes of bodies are being ingested, and this one would pass ` +
          `ingest.maxPendingBytes (${maxPendingBytes}); nothing of it was applied, send it again after ` +
          `${PENDING_RETRY_AFTER_S} s`,
      },
      { 'retry-after': String(PENDING_RETRY_AFTER_S), connection: 'close' },
    );
    discardRest(request, { maxBytes: options.bodyLimitBytes, maxMs: OVERSIZE_LINGER_MS });
  }

  async function getTurn(encodedId: string, response: ServerResponse): Promise<void> {
    let turnId: string;
    try {
      turnId = decodeURIComponent(encodedId);
    } catch {
      throw new HttpProblem(400, 'the turn id in the path is not valid percent-encoding');
    }
    const view = runtime.turn(turnId) ?? (await runtime.finishedTurn(turnId));
    if (view === undefined) throw new HttpProblem(404, `no turn "${turnId}"`);
    sendJson(
      response,
      200,
      options.runPage ? { ...view, runUrl: options.runPage.links.urlFor(turnId) } : view,
    );
  }

  /** `GET|PUT|DELETE /v1/spaces/:space`: a space's own settings, changed at run time (threads off/on, DM) or cleared. */
  async function spaceSettings(
    request: IncomingMessage,
    encoded: string,
    response: ServerResponse,
  ): Promise<void> {
    let space: string;
    try {
      space = decodeURIComponent(encoded);
    } catch {
      throw new HttpProblem(400, 'the space in the path is not valid percent-encoding');
    }
    const valid = spaceSchema.safeParse(space);
    if (!valid.success)
      throw new HttpProblem(400, `space "${space}": ${valid.error.issues[0]?.message ?? 'invalid'}`);
    const foreign = options.platforms?.checkSpace(space);
    if (foreign !== undefined) throw new HttpProblem(400, `space "${space}": expected ${foreign}`);
    if (request.method === 'GET') {
      sendJson(response, 200, { space, ...runtime.spaceSettings(space) });
      return;
    }
    if (request.method === 'DELETE') {
      logger.info({ space }, 'space settings cleared');
      sendJson(response, 200, { space, ...runtime.resetSpace(space) });
      return;
    }
    const read = await readBodyWithin(request, options.bodyLimitBytes);
    if (!read.ok) throw new HttpProblem(413, `body over the limit of ${options.bodyLimitBytes} bytes`);
    let body: unknown;
    try {
      body = JSON.parse(read.body.toString('utf8'));
    } catch (error) {
      throw new HttpProblem(400, `the body is not JSON: ${jsonErrorOf(error)}`);
    }
    const settings = spaceSettingsSchema.safeParse(body);
    if (!settings.success) {
      const issue = settings.error.issues[0];
      throw new HttpProblem(
        400,
        `${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'} (expected {threadsDisabled?: boolean, dm?: boolean})`,
      );
    }
    logger.info({ space, ...settings.data }, 'space settings changed');
    sendJson(response, 200, { space, ...runtime.configureSpace(space, settings.data) });
  }

  async function getHealth(response: ServerResponse): Promise<void> {
    const notReady = await checkSurfaces(
      options.surfaces,
      options.healthTimeoutMs ?? DEFAULT_HEALTH_TIMEOUT_MS,
    );
    const budget = options.budgetMode?.();
    // The budget's fallback keeps delivering: it is reported, never a reason to answer 503.
    const cluster = options.cluster
      ? { cluster: await options.cluster() }
      : budget === undefined
        ? {}
        : { cluster: { budget } };
    if (notReady.length === 0) sendJson(response, 200, { ok: true, ...cluster });
    else sendJson(response, 503, { ok: false, notReady, ...cluster });
  }

  async function route(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://ingest');
    const path = url.pathname;
    const method = request.method ?? 'GET';
    // Before any route, intakes and /healthz included: a rebound name reaches nothing (docs/http-api.md).
    const wrongHost = hostProblem(request.headers.host, boundPort);
    if (wrongHost !== undefined) throw new HttpProblem(421, wrongHost);
    // The run page answers with its capability token, not the bearer token (run-page/route.ts).
    if (
      options.runPage &&
      (await handleRunPage(request, response, url, { ...options.runPage, closing: closing.signal }))
    )
      return;
    if (path === '/healthz') {
      allow(method, ['GET']);
      return getHealth(response);
    }
    const intake = INTAKE_PATH.exec(path);
    if (intake !== null) {
      const handle = options.intakes?.[intake[1] as string]?.handle;
      if (handle === undefined) {
        throw new HttpProblem(
          404,
          `no intake for platform "${intake[1]}" (configure platforms.${intake[1]} to receive its events)`,
        );
      }
      allow(method, ['POST']);
      return handle(request, response);
    }
    const turn = TURN_PATH.exec(path);
    const space = SPACE_PATH.exec(path);
    if (path !== '/v1/events' && path !== '/v1/actions' && turn === null && space === null) {
      throw new HttpProblem(404, `no route ${method} ${path}`);
    }
    if (!authorized(request.headers.authorization)) {
      throw new HttpProblem(401, 'missing or wrong bearer token (Authorization: Bearer <ingest.token>)', {
        'www-authenticate': 'Bearer realm="turnlog"',
      });
    }
    if (path === '/v1/actions') {
      allow(method, ['GET']);
      return getActions(request, response, runtime, closing.signal);
    }
    if (turn !== null) {
      allow(method, ['GET']);
      return getTurn(turn[1] as string, response);
    }
    if (space !== null) {
      allow(method, ['GET', 'PUT', 'DELETE']);
      return spaceSettings(request, space[1] as string, response);
    }
    allow(method, ['POST']);
    return postEvents(request, response);
  }

  const headersTimeout = options.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS;
  const requestTimeout = Math.max(options.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS, headersTimeout);
  // Node checks both timeouts every connectionsCheckingInterval: a fraction of the shorter one, so a cut is timely.
  const serverOptions = {
    headersTimeout,
    requestTimeout,
    connectionsCheckingInterval: Math.max(10, Math.min(1000, Math.floor(headersTimeout / 4))),
  };
  const server: Server = createServer(serverOptions, (request, response) => {
    const started = performance.now();
    response.once('finish', () => {
      logger.debug(
        {
          method: request.method,
          // A path holds ids a client chose (a turn, a space): logged redacted, as everything else is.
          path: redactSecrets(new URL(request.url ?? '/', 'http://ingest').pathname),
          status: response.statusCode,
          ms: Math.round(performance.now() - started),
        },
        'request',
      );
    });
    route(request, response).catch((error: unknown) => {
      if (error instanceof HttpProblem) {
        sendJson(response, error.status, { error: error.message }, error.headers);
        return;
      }
      logger.error({ error: error instanceof Error ? error.message : String(error) }, 'request failed');
      if (!response.headersSent) sendJson(response, 500, { error: 'internal error (see the server log)' });
      else response.destroy();
    });
  });

  server.listen(options.port, options.host);
  try {
    await Promise.race([
      once(server, 'listening'),
      once(server, 'error').then(([error]) => Promise.reject(error)),
    ]);
  } catch (error) {
    throw listenError(error, options.host, options.port);
  }
  const address = server.address() as AddressInfo;
  boundPort = address.port;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;

  return {
    url: `http://${host}:${address.port}`,
    close() {
      closing.abort();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      return closed;
    },
    closeAllConnections: () => server.closeAllConnections(),
  };
}

function allow(method: string, methods: string[]): void {
  if (!methods.includes(method)) {
    throw new HttpProblem(405, `method ${method} not allowed here (allowed: ${methods.join(', ')})`, {
      allow: methods.join(', '),
    });
  }
}

function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  response.end(text);
}
