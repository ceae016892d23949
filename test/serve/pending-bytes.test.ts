/**
 * issue 9 · "under 50 concurrent senders, memory peaked at 340–510 MB":
 * the bodies of POST /v1/events held at once (being read, queued, waiting for
 * their commit) are bounded by `ingest.maxPendingBytes`; past it a new body
 * is answered 503 with Retry-After, without being read or applied
 * (docs/http-api.md). Order and status only; no durations.
 */
import { request } from 'node:http';
import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { IngestResult, Runtime } from '../../src/runtime.js';
import { type IngestServer, startIngestServer } from '../../src/serve/http.js';

let server: IngestServer | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await server?.close();
  server = undefined;
});

/** A runtime that accepts every line and whose first `sync()` waits until `releaseFirstSync`. */
function stubRuntime() {
  const applied: unknown[][] = [];
  let releaseFirstSync = () => {};
  const firstSync = new Promise<void>((resolve) => {
    releaseFirstSync = resolve;
  });
  let syncs = 0;
  const runtime = {
    ingestBatch(inputs: readonly unknown[]): IngestResult[] {
      applied.push([...inputs]);
      return inputs.map(() => ({ ok: true, event: {} }) as IngestResult);
    },
    sync: () => (syncs++ === 0 ? firstSync : Promise.resolve()),
  } as unknown as IngestServerRuntime;
  return { runtime, applied, releaseFirstSync: () => releaseFirstSync() };
}
type IngestServerRuntime = Parameters<typeof startIngestServer>[0]['runtime'] & Partial<Runtime>;

async function start(runtime: IngestServerRuntime, maxPendingBytes: number): Promise<IngestServer> {
  const deadLetters: unknown[] = [];
  return startIngestServer({
    runtime,
    surfaces: {},
    host: '127.0.0.1',
    port: 0,
    bodyLimitBytes: 1 << 20,
    maxPendingBytes,
    deadLetter: (record) => void deadLetters.push(record),
    logger: pino({ level: 'silent' }),
  });
}

const line = (n: number, size: number) =>
  `${JSON.stringify({ type: 'note', space: 'gchat:spaces/AAAA', turnId: `T${n}`, text: 'x'.repeat(size) })}\n`;

/** POSTs `chunks` with node:http: with a Content-Length, or chunked when `chunked`. */
function post(
  url: string,
  chunks: string[],
  chunked = false,
): Promise<{ status: number; retryAfter: string | undefined; body: string }> {
  const length = chunks.reduce((n, c) => n + Buffer.byteLength(c), 0);
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}/v1/events`,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/x-ndjson',
          ...(chunked ? { 'transfer-encoding': 'chunked' } : { 'content-length': String(length) }),
        },
      },
      (res) => {
        let body = '';
        res.on('data', (d) => {
          body += String(d);
        });
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            retryAfter: res.headers['retry-after'] as string | undefined,
            body,
          }),
        );
      },
    );
    // The server may close the connection while the rest of the body is still going out.
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE' && error.code !== 'ECONNRESET') reject(error);
    });
    for (const chunk of chunks) req.write(chunk);
    req.end();
  });
}

describe('POST /v1/events: the bodies held at once are bounded (ingest.maxPendingBytes)', () => {
  it('answers 503 with Retry-After to a body past the bound, applies nothing of it, and takes bodies again once the bound frees', async () => {
    const stub = stubRuntime();
    server = await start(stub.runtime, 100_000);
    // The first body (60 KB) is applied and waits for its commit: it is still held.
    const first = post(server.url, [line(1, 60_000)]);
    await vi.waitFor(() => expect(stub.applied).toHaveLength(1), { timeout: 10_000, interval: 10 });

    // 60 KB more with a Content-Length would hold 120 KB: refused before reading.
    const declared = await post(server.url, [line(2, 60_000)]);
    expect(declared.status).toBe(503);
    expect(declared.retryAfter).toBe('1');
    expect(JSON.parse(declared.body).error).toMatch(/ingest\.maxPendingBytes/);

    // The same streamed without a Content-Length: refused once what arrived passes the bound.
    const streamed = await post(
      server.url,
      Array.from({ length: 6 }, (_, i) => line(10 + i, 10_000)),
      true,
    );
    expect(streamed.status).toBe(503);
    expect(streamed.retryAfter).toBe('1');
    expect(stub.applied).toHaveLength(1);

    // A small body still fits beside the first.
    const small = await post(server.url, [line(3, 100)]);
    expect(small.status).toBe(202);
    expect(stub.applied).toHaveLength(2);

    // The first one committed: its bytes are freed, and a body of its size is taken again.
    stub.releaseFirstSync();
    expect((await first).status).toBe(202);
    const again = await post(server.url, [line(4, 60_000)]);
    expect(again.status).toBe(202);
    expect(stub.applied).toHaveLength(3);
  });

  it('takes one body larger than the bound when nothing else is held (the body limit is its only bound)', async () => {
    const stub = stubRuntime();
    stub.releaseFirstSync();
    server = await start(stub.runtime, 10_000);
    const big = await post(server.url, [line(1, 50_000)]);
    expect(big.status).toBe(202);
    const streamed = await post(server.url, [line(2, 20_000), line(3, 20_000)], true);
    expect(streamed.status).toBe(202);
    expect(stub.applied).toHaveLength(2);
  });

  it('frees the bytes of a body whose client went away before sending all of it', async () => {
    const stub = stubRuntime();
    stub.releaseFirstSync();
    server = await start(stub.runtime, 10_000);
    const url = server.url;
    // 8 KB of a streamed body, then the client disappears.
    await new Promise<void>((resolve) => {
      const req = request(`${url}/v1/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-ndjson', 'transfer-encoding': 'chunked' },
      });
      req.on('error', () => {});
      req.write(line(1, 8_000), () => {
        req.destroy();
        resolve();
      });
    });
    // Once the server has seen it go, a body that needs the whole bound is taken.
    await vi.waitFor(
      async () => {
        expect((await post(url, [line(2, 60_000)])).status).toBe(202);
      },
      { timeout: 10_000, interval: 50 },
    );
    expect(stub.applied).toHaveLength(1);
  });
});
