/**
 * The demo's run pages (issue 25 item 6): serve is started with
 * `runs.publicUrl` set to its own ingest origin, so each turn gets a
 * "Full log" link and a run page; the demo prints the links and its page
 * lists them. The port is chosen before serve starts because the public URL
 * is part of serve's config.
 */
import { createServer } from 'node:net';

/** A loopback port free right now (the OS picks it). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface RunLink {
  turnId: string;
  url: string;
}

/** Each turn's run page link, as `GET /v1/turns/:id` gives it (`runUrl`); turns without one are left out. */
export async function runLinksOf(serveUrl: string, turnIds: readonly string[]): Promise<RunLink[]> {
  const links: RunLink[] = [];
  for (const turnId of turnIds) {
    const response = await fetch(`${serveUrl}/v1/turns/${encodeURIComponent(turnId)}`);
    if (!response.ok) continue;
    const view = (await response.json()) as { runUrl?: unknown };
    if (typeof view.runUrl === 'string') links.push({ turnId, url: view.runUrl });
  }
  return links;
}
