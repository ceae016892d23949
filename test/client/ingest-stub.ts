/**
 * A tiny stand-in for `turnlog serve`'s ingest (docs/http-api.md), for client
 * tests: `POST /v1/events` with NDJSON, a bearer token, a body limit, and
 * `202 {"accepted", "rejected": [{line, error}]}` / 400 / 401 / 413, parsing
 * with the real run-event parser. Faults make the next requests fail.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseRunEvents } from '../../src/events/parse.js';
import type { RunEvent } from '../../src/events/schema.js';

export interface StubRequest {
  authorization: string | undefined;
  contentType: string | undefined;
  body: string;
  status: number;
}

/** `status`: answer with it; `drop`: close the connection without an answer (a network error). */
export type StubFault = { status: number; retryAfterS?: number } | { drop: true };

export interface IngestStub {
  url: string;
  requests: StubRequest[];
  /** Events accepted so far, in order. */
  events: RunEvent[];
  /** The next requests fail this way, one fault each. */
  fault(...faults: StubFault[]): void;
  close(): Promise<void>;
}

export async function startIngestStub(
  opts: { token?: string; maxBodyBytes?: number } = {},
): Promise<IngestStub> {
  const requests: StubRequest[] = [];
  const events: RunEvent[] = [];
  const faults: StubFault[] = [];
  const maxBodyBytes = opts.maxBodyBytes ?? 1024 * 1024;

  const answer = (
    res: ServerResponse,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
  ) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const record = (status: number) =>
      requests.push({
        authorization: req.headers.authorization,
        contentType: req.headers['content-type'],
        body,
        status,
      });
    if (req.method !== 'POST' || req.url !== '/v1/events') {
      record(404);
      return answer(res, 404, { error: `no route ${req.method} ${req.url}` });
    }
    const fault = faults.shift();
    if (fault && 'drop' in fault) {
      record(0);
      req.socket.destroy();
      return;
    }
    if (fault) {
      record(fault.status);
      const headers: Record<string, string> =
        fault.retryAfterS !== undefined ? { 'retry-after': String(fault.retryAfterS) } : {};
      return answer(res, fault.status, { error: `injected ${fault.status}` }, headers);
    }
    if (opts.token !== undefined && req.headers.authorization !== `Bearer ${opts.token}`) {
      record(401);
      return answer(res, 401, { error: 'missing or wrong bearer token' });
    }
    if (Buffer.byteLength(body) > maxBodyBytes) {
      record(413);
      return answer(res, 413, { error: `body over ${maxBodyBytes} bytes` });
    }
    const parsed = parseRunEvents(body);
    if (parsed.events.length === 0) {
      record(400);
      return answer(res, 400, { error: 'no event in the body parsed', rejected: parsed.rejected });
    }
    record(202);
    events.push(...parsed.events);
    answer(res, 202, { accepted: parsed.events.length, rejected: parsed.rejected });
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => answer(res, 500, { error: String(error) }));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    events,
    fault: (...more) => faults.push(...more),
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
