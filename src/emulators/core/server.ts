/**
 * The loopback HTTP server every platform emulator runs on.
 *
 * Plain node:http, no framework: the route set is small and the emulators
 * must control status, headers and bodies exactly to mirror each platform
 * (Slack's 200 `{ok: false}`, Google's error envelope, Discord's
 * `X-RateLimit-*` headers), which a framework's conventions would get in
 * the way of.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LimitRule, Platform } from '../types.js';
import { dispatchRequest, refuseUnreadableBody } from './dispatch.js';
import type { EmulatorRequest, HttpAnswer, PlatformHandler } from './platform-handler.js';
import { createEmulatorState, type EmulatorState } from './state.js';

/** Larger bodies get 413: the platforms' own limits are far below this. */
const MAX_BODY_BYTES = 1024 * 1024;

export interface EmulatorServerOptions {
  platform: Platform;
  /** Default 0: any free port (read it from `url`). */
  port?: number;
  /** Default `127.0.0.1`: loopback only. */
  host?: string;
  handler: PlatformHandler;
  /** The platform's default rate limits. */
  defaults: readonly LimitRule[];
  /** Epoch ms clock for `at`, timestamps and limit windows. Default `Date.now`. */
  now?: () => number;
}

export interface EmulatorServer {
  /** The origin, `http://127.0.0.1:PORT` (no trailing slash). */
  url: string;
  /** The in-process inspection API (same state the HTTP endpoints use). */
  state: EmulatorState;
  /** Stops listening and drops open keep-alive connections. */
  close(): Promise<void>;
}

class BodyError extends Error {
  constructor(readonly status: number) {
    super(`unreadable request body (${status})`);
  }
}

async function readBody(incoming: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of incoming) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > MAX_BODY_BYTES) throw new BodyError(413);
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseBody(rawBody: string, contentType: string | undefined): unknown {
  if (rawBody === '') return undefined;
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/x-www-form-urlencoded') return Object.fromEntries(new URLSearchParams(rawBody));
  if (type !== 'application/json' && type !== '') return undefined;
  try {
    return JSON.parse(rawBody);
  } catch {
    // Only a body that claims to be JSON is refused; an untyped one is just not parsed.
    if (type === '') return undefined;
    throw new BodyError(400);
  }
}

function writeAnswer(res: ServerResponse, answer: HttpAnswer): void {
  const headers: Record<string, string> = {};
  let payload: string | undefined;
  if (typeof answer.body === 'string') payload = answer.body;
  else if (answer.body !== undefined) {
    payload = JSON.stringify(answer.body);
    headers['content-type'] = 'application/json; charset=utf-8';
  }
  for (const [name, value] of Object.entries(answer.headers ?? {})) headers[name.toLowerCase()] = value;
  res.writeHead(answer.status, headers);
  res.end(payload);
}

async function answer(state: EmulatorState, incoming: IncomingMessage): Promise<HttpAnswer> {
  const url = new URL(incoming.url ?? '/', 'http://emulator');
  const method = (incoming.method ?? 'GET').toUpperCase();
  let rawBody: string;
  let body: unknown;
  try {
    rawBody = await readBody(incoming);
    body = parseBody(rawBody, incoming.headers['content-type']);
  } catch (error) {
    if (error instanceof BodyError)
      return refuseUnreadableBody(state, { method, path: url.pathname }, error.status);
    throw error;
  }
  const req: EmulatorRequest = {
    method,
    path: url.pathname,
    query: url.searchParams,
    headers: incoming.headers,
    body,
    rawBody,
  };
  return dispatchRequest(state, req);
}

/** Starts an emulator on loopback; resolves once it listens. */
export async function createEmulatorServer(opts: EmulatorServerOptions): Promise<EmulatorServer> {
  const state = createEmulatorState({
    platform: opts.platform,
    handler: opts.handler,
    defaults: opts.defaults,
    ...(opts.now ? { now: opts.now } : {}),
  });
  const server = createServer((incoming, res) => {
    answer(state, incoming).then(
      (reply) => writeAnswer(res, reply),
      (error: unknown) =>
        writeAnswer(res, {
          status: 500,
          body: { error: error instanceof Error ? error.message : String(error) },
        }),
    );
  });
  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  opts.handler.attach?.(server, { ...state.context, url });
  return {
    url,
    state,
    close: async () => {
      await opts.handler.detach?.();
      await new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
    },
  };
}
