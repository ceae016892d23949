/**
 * A loopback HTTP proxy in front of an emulator that keeps every exchange
 * whole (method, path, query, headers, raw bodies, status), so the
 * conformance suite sees on the wire what the official clients sent and
 * what the emulator answered. Test harness only: production code never runs
 * through it. The inspection API (`/_emulator/…`) passes through unrecorded.
 */
import { createServer, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Exchange {
  method: string;
  /** The path without the query. */
  path: string;
  query: Record<string, string>;
  requestHeaders: IncomingHttpHeaders;
  requestBody: string;
  status: number;
  responseHeaders: IncomingHttpHeaders;
  responseBody: string;
}

export interface RecordingProxy {
  /** Where clients go instead of the emulator (`http://127.0.0.1:PORT`). */
  url: string;
  exchanges: Exchange[];
  close(): Promise<void>;
}

async function readAll(stream: AsyncIterable<unknown>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export async function startRecordingProxy(target: string): Promise<RecordingProxy> {
  const exchanges: Exchange[] = [];
  const to = new URL(target);
  const server = createServer(async (req, res) => {
    const body = await readAll(req);
    const url = new URL(req.url ?? '/', 'http://proxy');
    const headers = { ...req.headers, host: to.host };
    const upstream = httpRequest(
      { host: to.hostname, port: to.port, method: req.method, path: req.url, headers, agent: false },
      async (answer) => {
        const answerBody = await readAll(answer);
        if (!url.pathname.startsWith('/_emulator/')) {
          exchanges.push({
            method: req.method ?? 'GET',
            path: url.pathname,
            query: Object.fromEntries(url.searchParams),
            requestHeaders: req.headers,
            requestBody: body.toString('utf8'),
            status: answer.statusCode ?? 0,
            responseHeaders: answer.headers,
            responseBody: answerBody.toString('utf8'),
          });
        }
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        res.end(answerBody);
      },
    );
    upstream.on('error', (error) => {
      res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`recording proxy: ${error.message}`);
    });
    upstream.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    exchanges,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The emulator as its harness sees it, reached through the proxy: same state, the proxy's `url`. */
export function throughProxy<E extends { url: string }>(emulator: E, proxy: RecordingProxy): E {
  return new Proxy(emulator, { get: (t, key) => (key === 'url' ? proxy.url : Reflect.get(t, key, t)) });
}
