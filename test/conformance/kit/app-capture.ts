/**
 * A loopback HTTP server standing in for the app a platform delivers to
 * (Slack's Events API and interactivity URL, a Google Chat app's endpoint):
 * it keeps every delivery whole and answers 200 with `answer`'s body. Test
 * harness only.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Delivery {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface AppCapture {
  url: string;
  deliveries: Delivery[];
  close(): Promise<void>;
}

export async function startAppCapture(answer: string | undefined = undefined): Promise<AppCapture> {
  const deliveries: Delivery[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    deliveries.push({
      path: req.url ?? '/',
      headers: req.headers,
      body: Buffer.concat(chunks).toString('utf8'),
    });
    res.writeHead(200, answer === undefined ? {} : { 'content-type': 'application/json' });
    res.end(answer ?? '');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/events`,
    deliveries,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
