/** An in-process `turnlog serve` on the memory surface and store, with its pino lines captured. */
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { SimulatedClock } from 'xstate';
import { startServe } from '../../src/serve/index.js';
import { createMemoryStore } from '../../src/store/memory.js';
import type { TurnlogStore } from '../../src/store/store.js';
import type { ChatSurface } from '../../src/surfaces/surface.js';
import { createMemorySurface, type MemorySurface } from '../../src/testing/memory-surface.js';

export const SPACE = 'gchat:spaces/AAAA';
export const TOKEN = 's3cret-ingest-token-0123456789';

export interface TestServe {
  url: string;
  surface: MemorySurface;
  store: TurnlogStore;
  clock: SimulatedClock;
  /** Every pino line so far, parsed. */
  logs: Record<string, unknown>[];
  /** Every pino line so far, as written. */
  logText(): string;
  runtime: Awaited<ReturnType<typeof startServe>>['runtime'];
  close(): Promise<{ flushed: boolean }>;
}

export async function startTestServe(
  opts: {
    ingest?: Record<string, unknown>;
    config?: Record<string, unknown>;
    surface?: ChatSurface;
    store?: TurnlogStore;
  } = {},
): Promise<TestServe> {
  const clock = new SimulatedClock();
  const surface = createMemorySurface({ platform: 'gchat', now: () => clock.now() });
  const store = opts.store ?? createMemoryStore();
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  const serve = await startServe({
    config: { ...opts.config, ingest: { port: 0, ...opts.ingest } },
    surfaces: { gchat: opts.surface ?? surface },
    store,
    clock,
    logger: pino({ level: 'debug' }, destination),
  });
  return {
    url: serve.url,
    surface,
    store,
    clock,
    runtime: serve.runtime,
    get logs() {
      return lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    },
    logText: () => lines.join('\n'),
    close: () => serve.close(),
  };
}

/**
 * Closes `serve` as a test's cleanup does. A live turn's last frame waits for
 * its space's next budget slot on the simulated clock, while the shutdown
 * flush waits in real time (up to `ingest.shutdownTimeoutMs`, 10 s): so the
 * simulated clock moves on while serve closes, and the flush ends as soon as
 * the frames are out instead of waiting out its bound. Resolves close()'s answer.
 */
export async function closeTestServe(serve: TestServe): Promise<{ flushed: boolean }> {
  let closed = false;
  const closing = serve.close().finally(() => {
    closed = true;
  });
  while (!closed) {
    serve.clock.increment(100);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return closing;
}

export interface PostOptions {
  contentType?: string | null;
  token?: string | null;
  authorization?: string;
}

export async function postEvents(
  url: string,
  body: string,
  opts: PostOptions = {},
): Promise<{ status: number; headers: Headers; json: Record<string, unknown> }> {
  const headers: Record<string, string> = {};
  const contentType = opts.contentType === undefined ? 'application/x-ndjson' : opts.contentType;
  if (contentType !== null) headers['content-type'] = contentType;
  if (opts.authorization !== undefined) headers.authorization = opts.authorization;
  else if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  const response = await fetch(`${url}/v1/events`, { method: 'POST', headers, body });
  return {
    status: response.status,
    headers: response.headers,
    json: (await response.json()) as Record<string, unknown>,
  };
}

export async function getJson(
  url: string,
  path: string,
  token?: string,
): Promise<{ status: number; headers: Headers; json: Record<string, unknown> }> {
  const response = await fetch(
    `${url}${path}`,
    token ? { headers: { authorization: `Bearer ${token}` } } : {},
  );
  return {
    status: response.status,
    headers: response.headers,
    json: (await response.json()) as Record<string, unknown>,
  };
}

export const ndjson = (...events: unknown[]): string => events.map((e) => JSON.stringify(e)).join('\n');

/** A person's message and a turn anchored on it, as run events. */
export function turnEvents(surface: MemorySurface, turnId: string): Record<string, unknown>[] {
  const root = surface.inbound({ space: SPACE, text: 'please check the build' });
  return [
    { type: 'inbound', space: SPACE, messageId: root.messageId, threadId: root.threadId, ref: `u-${turnId}` },
    { type: 'turn_started', space: SPACE, turnId, rootRef: `u-${turnId}` },
    { type: 'tool_call', space: SPACE, turnId, callId: 'c1', tool: 'Bash', input: { command: 'npm test' } },
  ];
}
