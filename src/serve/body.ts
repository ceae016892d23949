/** Reads a request body up to a byte limit, without buffering past it. */
import type { IncomingMessage } from 'node:http';

export type BodyResult =
  | { ok: true; body: Buffer }
  /** Over the limit: reading stopped; `head` is what arrived up to the limit. */
  | { ok: false; head: Buffer; refused?: undefined }
  /** `hold` refused a chunk (the server holds too much already): reading stopped. */
  | { ok: false; head: Buffer; refused: 'hold' };

/**
 * Resolves with the whole body, or stops reading (pauses the request) as soon
 * as more than `limit` bytes arrived. A declared `Content-Length` over the
 * limit is refused before reading anything. `hold`, when given, is asked
 * before each chunk is kept; when it says no, reading stops the same way.
 */
export function readBodyWithin(
  request: IncomingMessage,
  limit: number,
  hold?: (bytes: number) => boolean,
): Promise<BodyResult> {
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit)
    return Promise.resolve({ ok: false, head: Buffer.alloc(0) });
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      if (size + chunk.length > limit) {
        chunks.push(chunk.subarray(0, limit - size));
        request.off('data', onData);
        request.pause();
        resolve({ ok: false, head: Buffer.concat(chunks) });
        return;
      }
      if (hold !== undefined && !hold(chunk.length)) {
        request.off('data', onData);
        request.pause();
        resolve({ ok: false, head: Buffer.alloc(0), refused: 'hold' });
        return;
      }
      size += chunk.length;
      chunks.push(chunk);
    };
    request.on('data', onData);
    request.once('end', () => resolve({ ok: true, body: Buffer.concat(chunks) }));
    request.once('error', reject);
  });
}

/**
 * After an early answer (413), throws away what the client is still sending,
 * within bounds, then drops the connection. Closing at once would make a
 * client that writes its whole body before reading (fetch with a stream
 * body) fail with EPIPE instead of reading the answer.
 */
export function discardRest(request: IncomingMessage, bounds: { maxBytes: number; maxMs: number }): void {
  let discarded = 0;
  const drop = () => request.socket.destroy();
  const timer = setTimeout(drop, bounds.maxMs);
  timer.unref();
  const done = () => clearTimeout(timer);
  request.on('data', (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > bounds.maxBytes) {
      done();
      drop();
    }
  });
  request.once('end', done);
  request.once('close', done);
  request.resume();
}
