/**
 * `GET /runs/<turnId>?t=<token>` (the page) and `GET /runs/<turnId>/events?t=<token>`
 * (Server-Sent Events: `id:` is the event's seq; `Last-Event-ID`, or `after`
 * for the page's first connection, resumes after it). Every answer about a
 * turn the token does not open is the same plain 404, unknown turns
 * included. The stream reads the run record from the store, so any process
 * sharing it serves it; it polls every `pollMs` and, once the turn has ended,
 * sends what is left and closes.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Clock } from '../../clock.js';
import type { RunEvent } from '../../events/schema.js';
import type { MaybePromise } from '../../store/store.js';
import { RUN_PAGE_CSS, RUN_PAGE_JS } from './assets.js';
import { ASSET_PATH, elapsedText, pageHtml } from './html.js';
import { headlineOf, itemsOf, type RunHeadline } from './items.js';
import type { RunLinks } from './links.js';

export const RUN_PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; " +
  "frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

const PAGE_PATH = /^\/runs\/([^/]+)$/;
const EVENTS_PATH = /^\/runs\/([^/]+)\/events$/;
const DEFAULT_POLL_MS = 500;
/** A comment line now and then keeps proxies from closing a quiet stream. */
const KEEPALIVE_POLLS = 30;

export interface TurnState {
  state: string;
  ended: boolean;
  outcome?: string;
}

export interface RunPageDeps {
  links: RunLinks;
  events(turnId: string): MaybePromise<RunEvent[]>;
  /** The turn's state: live in this process, ended (from the store), or live elsewhere. */
  stateOf(turnId: string): Promise<TurnState>;
  clock: Pick<Clock, 'setTimeout' | 'clearTimeout'>;
  /** Ends every open stream (the server is closing). */
  closing: AbortSignal;
  pollMs?: number;
}

const SECURITY_HEADERS = {
  'content-security-policy': RUN_PAGE_CSP,
  'x-content-type-options': 'nosniff',
  // The token is in the page's URL: never sent on as a Referer.
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
  'x-frame-options': 'DENY',
};

function notFound(response: ServerResponse): void {
  const body = 'not found\n';
  response.writeHead(404, {
    'content-type': 'text/plain; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    ...SECURITY_HEADERS,
  });
  response.end(body);
}

function send(
  response: ServerResponse,
  type: string,
  body: string,
  extra: Record<string, string> = {},
): void {
  response.writeHead(200, {
    'content-type': type,
    'content-length': Buffer.byteLength(body),
    ...SECURITY_HEADERS,
    ...extra,
  });
  response.end(body);
}

/** Whether the path is the run page's; answers it when it is. */
export async function handleRunPage(
  request: IncomingMessage,
  response: ServerResponse,
  url: URL,
  deps: RunPageDeps,
): Promise<boolean> {
  const path = url.pathname;
  if (!path.startsWith('/runs/')) return false;
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    notFound(response);
    return true;
  }
  if (path === `${ASSET_PATH}/run-page.js`) {
    send(response, 'text/javascript; charset=utf-8', RUN_PAGE_JS, { 'cache-control': 'public, max-age=300' });
    return true;
  }
  if (path === `${ASSET_PATH}/run-page.css`) {
    send(response, 'text/css; charset=utf-8', RUN_PAGE_CSS, { 'cache-control': 'public, max-age=300' });
    return true;
  }
  const page = PAGE_PATH.exec(path);
  const stream = EVENTS_PATH.exec(path);
  const encoded = (page ?? stream)?.[1];
  let turnId: string | undefined;
  try {
    turnId = encoded === undefined ? undefined : decodeURIComponent(encoded);
  } catch {
    turnId = undefined;
  }
  if (turnId === undefined || !(await deps.links.opens(turnId, url.searchParams.get('t')))) {
    notFound(response);
    return true;
  }
  if (page) {
    const events = await deps.events(turnId);
    const headline = headlineOf(turnId, events, await deps.stateOf(turnId));
    send(response, 'text/html; charset=utf-8', pageHtml(headline, itemsOf(events)));
    return true;
  }
  await streamEvents(request, response, turnId, url, deps);
  return true;
}

function resumeAfter(request: IncomingMessage, url: URL): number {
  const header = request.headers['last-event-id'];
  const raw = typeof header === 'string' && header !== '' ? header : url.searchParams.get('after');
  const seq = Number(raw);
  return Number.isSafeInteger(seq) && seq > 0 ? seq : 0;
}

const withElapsed = (headline: RunHeadline) => ({ ...headline, elapsed: elapsedText(headline) });

async function streamEvents(
  request: IncomingMessage,
  response: ServerResponse,
  turnId: string,
  url: URL,
  deps: RunPageDeps,
): Promise<void> {
  let sent = resumeAfter(request, url);
  response.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    connection: 'keep-alive',
    ...SECURITY_HEADERS,
  });
  response.flushHeaders();
  let timer: unknown;
  let done = false;
  const finish = () => {
    if (done) return;
    done = true;
    deps.clock.clearTimeout(timer);
    deps.closing.removeEventListener('abort', finish);
    response.end();
  };
  deps.closing.addEventListener('abort', finish);
  request.once('close', finish);
  let lastHeadline = '';
  let polls = 0;
  const poll = async () => {
    if (done) return;
    // The state first: events read after it include every one sent before it ended.
    const state = await deps.stateOf(turnId);
    const events = await deps.events(turnId);
    if (done) return;
    for (const item of itemsOf(events)) {
      if (item.seq <= sent) continue;
      response.write(`id: ${item.seq}\nevent: item\ndata: ${JSON.stringify(item)}\n\n`);
      sent = item.seq;
    }
    const current = headlineOf(turnId, events, state);
    const headline = JSON.stringify(withElapsed(current));
    if (current.ended) {
      response.write(`event: end\ndata: ${headline}\n\n`);
      finish();
      return;
    }
    if (headline !== lastHeadline) response.write(`event: headline\ndata: ${headline}\n\n`);
    else if (++polls % KEEPALIVE_POLLS === 0) response.write(': keep-alive\n\n');
    lastHeadline = headline;
    timer = deps.clock.setTimeout(() => void poll().catch(finish), deps.pollMs ?? DEFAULT_POLL_MS);
  };
  await poll().catch(finish);
}
