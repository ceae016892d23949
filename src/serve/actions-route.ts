/**
 * `GET /v1/actions?after=CURSOR&wait=SECONDS` (docs/http-api.md, "Actions"):
 * the actions after a cursor, oldest first; when there is none yet, a long
 * poll of up to `wait` seconds that an append wakes at once (no polling
 * loop). A client that goes away, or a server that closes, ends the wait.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ActionCursorError, MAX_ACTIONS_WAIT_S } from '../actions/outbox.js';
import type { Runtime } from '../runtime.js';

/** The route's own bad request: the message says which parameter and what it takes. */
export class ActionsQueryError extends Error {
  override name = 'ActionsQueryError';
}

export interface ActionsQuery {
  after?: string;
  waitMs: number;
}

/** Reads `after` and `wait` of the query; throws an `ActionsQueryError` naming what is wrong. */
export function parseActionsQuery(search: URLSearchParams): ActionsQuery {
  for (const key of search.keys()) {
    if (key !== 'after' && key !== 'wait') {
      throw new ActionsQueryError(`unknown query parameter "${key}" (GET /v1/actions takes after and wait)`);
    }
  }
  // The outbox judges the cursor (it knows the store's id and its newest): see getActions.
  const after = search.get('after') ?? undefined;
  const wait = search.get('wait');
  let waitMs = 0;
  if (wait !== null) {
    const seconds = /^\d{1,6}(\.\d{1,3})?$/.test(wait) ? Number(wait) : Number.NaN;
    if (!(seconds >= 0 && seconds <= MAX_ACTIONS_WAIT_S)) {
      throw new ActionsQueryError(
        `wait: ${JSON.stringify(wait)} is not a number of seconds from 0 to ${MAX_ACTIONS_WAIT_S}`,
      );
    }
    waitMs = Math.round(seconds * 1000);
  }
  return { ...(after !== undefined ? { after } : {}), waitMs };
}

export async function getActions(
  request: IncomingMessage,
  response: ServerResponse,
  runtime: Pick<Runtime, 'actions'>,
  /** Aborted when the server closes: a waiting poll answers what it has (nothing). */
  closing: AbortSignal,
): Promise<void> {
  let query: ActionsQuery;
  try {
    query = parseActionsQuery(new URL(request.url ?? '/', 'http://ingest').searchParams);
  } catch (error) {
    if (!(error instanceof ActionsQueryError)) throw error;
    send(response, 400, { error: error.message });
    return;
  }
  const gone = new AbortController();
  const onClose = () => gone.abort();
  response.once('close', onClose);
  try {
    let page: Awaited<ReturnType<Runtime['actions']>>;
    try {
      page = await runtime.actions({ ...query, signal: AbortSignal.any([gone.signal, closing]) });
    } catch (error) {
      if (!(error instanceof ActionCursorError)) throw error;
      // A cursor never given out: said at once, with the current cursor, never an empty wait.
      send(response, 400, { error: `after: ${error.message}`, cursor: error.cursor });
      return;
    }
    // A client that went away gets nothing; a closing server's answer also closes the connection.
    if (gone.signal.aborted) response.destroy();
    else send(response, 200, page, closing.aborted);
  } finally {
    response.off('close', onClose);
  }
}

function send(response: ServerResponse, status: number, body: unknown, close = false): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
    ...(close ? { connection: 'close' } : {}),
  });
  response.end(text);
}
