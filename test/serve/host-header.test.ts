// Issue 22.8 / docs/http-api.md: a request whose Host this serve does not answer to (loopback names with its
// port, ingest.host, ingest.allowedHosts) is refused with 421 on every route, so a web page cannot reach a
// token-less loopback serve by DNS rebinding.
import { request } from 'node:http';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createHostCheck } from '../../src/serve/host-check.js';
import { startTestServe, type TestServe } from './serve.helpers.js';

let serve: TestServe | undefined;
afterEach(async () => {
  await serve?.close();
  serve = undefined;
});

/** A request with the Host header given (fetch sets its own). */
function send(
  url: string,
  path: string,
  host: string,
  method = 'GET',
): Promise<{ status: number; body: string }> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path, method, headers: { host, 'content-type': 'application/x-ndjson' } },
      (res) => {
        let body = '';
        res.on('data', (chunk) => {
          body += String(chunk);
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end(method === 'POST' ? '{"type":"note","space":"gchat:spaces/AAAA","text":"x"}' : undefined);
  });
}

const ROUTES: [method: string, path: string][] = [
  ['GET', '/healthz'],
  ['POST', '/v1/events'],
  ['GET', '/v1/turns/T1'],
  ['GET', '/v1/spaces/gchat%3Aspaces%2FAAAA'],
  ['GET', '/v1/actions?after=0'],
  ['POST', '/v1/platforms/gchat/events'],
  ['GET', '/nowhere'],
];

describe('the Host header (issue 22.8)', () => {
  it('answers 421 on every route, intake and /healthz included, to a Host it does not answer to', async () => {
    serve = await startTestServe();
    const port = new URL(serve.url).port;
    for (const host of [
      'evil.example',
      `evil.example:${port}`,
      `localhost.evil.example:${port}`,
      `localhost:1`,
    ]) {
      for (const [method, path] of ROUTES) {
        const { status, body } = await send(serve.url, path, host, method);
        expect(status, `${method} ${path} Host: ${host}`).toBe(421);
        expect(JSON.parse(body).error).toMatch(/ingest\.allowedHosts/);
      }
    }
    // Nothing got through to the runtime.
    expect(await serve.store.deadLetters()).toEqual([]);
  });

  it('answers to the loopback names with its port', async () => {
    serve = await startTestServe();
    const port = new URL(serve.url).port;
    for (const host of [
      `127.0.0.1:${port}`,
      `localhost:${port}`,
      `LOCALHOST:${port}`,
      `[::1]:${port}`,
      'localhost',
    ]) {
      expect((await send(serve.url, '/healthz', host)).status, host).toBe(200);
    }
  });

  it('answers to ingest.allowedHosts: a name on any port, name:port on that port', async () => {
    serve = await startTestServe({ ingest: { allowedHosts: ['turnlog.example.com', 'proxy.example:8443'] } });
    expect((await send(serve.url, '/healthz', 'turnlog.example.com')).status).toBe(200);
    expect((await send(serve.url, '/healthz', 'turnlog.example.com:443')).status).toBe(200);
    expect((await send(serve.url, '/healthz', 'proxy.example:8443')).status).toBe(200);
    expect((await send(serve.url, '/healthz', 'proxy.example:8444')).status).toBe(421);
    expect((await send(serve.url, '/healthz', 'other.example.com')).status).toBe(421);
  });

  it('answers 421 to a request without a Host', async () => {
    serve = await startTestServe();
    const { port } = new URL(serve.url);
    const socket = connect(Number(port), '127.0.0.1');
    socket.write('GET /healthz HTTP/1.0\r\n\r\n');
    let reply = '';
    for await (const chunk of socket) reply += String(chunk);
    expect(reply).toMatch(/^HTTP\/1\.1 421 /);
  });
});

describe('createHostCheck', () => {
  it('answers to ingest.host with the port, and to nothing else', () => {
    const check = createHostCheck({ host: 'turnlog.internal', allowedHosts: [] });
    expect(check('turnlog.internal:8787', 8787)).toBeUndefined();
    expect(check('turnlog.internal:8788', 8787)).toMatch(/not one this serve answers to/);
    expect(check('[::2]:8787', 8787)).toMatch(/not one this serve answers to/);
    const v6 = createHostCheck({ host: '::1', allowedHosts: [] });
    expect(v6('[::1]:9', 9)).toBeUndefined();
  });
});
