/**
 * Shutting `turnlog serve` down (the item 1): stop accepting, let
 * requests in flight finish, flush and persist, all within
 * `ingest.shutdownTimeoutMs`; SIGTERM/SIGINT handling (a second signal exits 1 at once).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { shutdownOnSignal, startServe } from '../../src/serve/index.js';
import { createMemoryStore } from '../../src/store/memory.js';
import { createSqliteStore } from '../../src/store/sqlite.js';
import { createMemorySurface } from '../../src/testing/memory-surface.js';
import { ndjson, postEvents, SPACE, startTestServe, type TestServe, turnEvents } from './serve.helpers.js';

const silent = pino({ level: 'silent' });
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('Serve.close()', () => {
  it('stops accepting connections and answers the same promise when called again', async () => {
    const serve = await startTestServe();
    const first = serve.close();
    expect(serve.close()).toBe(first);
    expect(await first).toEqual({ flushed: true });
    await expect(fetch(`${serve.url}/healthz`)).rejects.toThrow();
  });

  /** A turn whose log message is posted, with a second line waiting in the edit debounce (the simulated clock never advances). */
  async function turnWithPendingEdit(serve: TestServe): Promise<void> {
    await postEvents(serve.url, ndjson(...turnEvents(serve.surface, 'T1')));
    await vi.waitFor(() => expect(serve.surface.calls.filter((c) => c.op === 'create')).toHaveLength(1), {
      timeout: 5000,
    });
    const result = { type: 'tool_result', space: SPACE, turnId: 'T1', callId: 'c1', tool: 'Bash', ok: true };
    await postEvents(serve.url, JSON.stringify(result));
    await vi.waitFor(() => expect(serve.runtime.turn('T1')?.entries).toBe(2), { timeout: 5000 });
  }

  it("flushes a live turn's pending frame before stopping", async () => {
    const serve = await startTestServe();
    await turnWithPendingEdit(serve);
    expect(serve.surface.calls.filter((c) => c.op === 'update')).toEqual([]);
    // The flushed frame waits for the space's next slot after the first post (1 s plus the budget margin).
    let closed: unknown = null;
    const closing = serve.close().then((result) => {
      closed = result;
    });
    for (let i = 0; i < 50 && closed === null; i++) {
      serve.clock.increment(100);
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    await closing;
    expect(closed).toEqual({ flushed: true });
    const [log] = serve.surface.messages(SPACE).filter((m) => m.text.includes('npm test'));
    expect(log?.edits).toBe(1);
    // The result completed its call's line in place: the flushed edit shows it (under the headline).
    expect(log?.text.split('\n')).toHaveLength(2);
    expect(log?.text).toContain('✓ Bash(npm test)');
  });

  it('persists to the SQLite store at store.path and closes it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'turnlog-serve-'));
    dirs.push(dir);
    const path = join(dir, 'turnlog.db');
    const serve = await startServe({
      config: { ingest: { port: 0 }, store: { path } },
      surfaces: { gchat: createMemorySurface() },
      logger: silent,
    });
    await postEvents(serve.url, JSON.stringify({ type: 'answer', space: SPACE, turnId: 'T' }));
    await serve.close();
    const reopened = createSqliteStore({ path });
    const letters = reopened.deadLetters();
    reopened.close();
    expect(letters).toEqual([
      expect.objectContaining({ source: 'ingest', reason: 'answer.text: missing (expected a string)' }),
    ]);
  });

  it('drops a request still in flight after half of ingest.shutdownTimeoutMs, then flushes', async () => {
    // A store that never answers keeps GET /v1/turns/:id (and so the server) busy.
    let lookedUp = false;
    const store = {
      ...createMemoryStore(),
      turnSummary: () => {
        lookedUp = true;
        return new Promise<undefined>(() => {});
      },
    };
    const serve = await startTestServe({ ingest: { shutdownTimeoutMs: 3000 }, store });
    const stuck = fetch(`${serve.url}/v1/turns/T1`).catch((error: unknown) => error);
    await vi.waitFor(() => expect(lookedUp).toBe(true), { timeout: 5000 });

    const closing = serve.close();
    serve.clock.increment(1499);
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(serve.logs.map((l) => l.msg)).not.toContain('dropped the requests still in flight');
    serve.clock.increment(1);
    expect(await stuck).toBeInstanceOf(Error);
    expect(await closing).toEqual({ flushed: true });
    expect(serve.logs.map((l) => l.msg)).toContain('dropped the requests still in flight');
  });

  it('gives up after ingest.shutdownTimeoutMs when a frame cannot go out; the turn stays in the store', async () => {
    const serve = await startTestServe({ ingest: { shutdownTimeoutMs: 3000 } });
    await turnWithPendingEdit(serve);
    serve.surface.pause();
    const closing = serve.close();
    await vi.waitFor(() => expect(serve.logs.map((l) => l.msg)).toContain('flushing live turns'), {
      timeout: 5000,
    });
    serve.clock.increment(3000);
    expect(await closing).toEqual({ flushed: false });
    expect(serve.logs.map((l) => l.msg)).toContain(
      'shutdown timed out; live turns stay persisted for the next start',
    );
    expect((await serve.store.liveTurns()).map((t) => t.turnId)).toEqual(['T1']);
  });
});

describe('shutdownOnSignal', () => {
  function harness(close: () => Promise<{ flushed: boolean }>) {
    const handlers: (() => void)[] = [];
    const exit = vi.fn();
    const serve = { close: vi.fn(close) };
    const code = shutdownOnSignal(serve, { onSignal: (h) => handlers.push(h), exit, logger: silent });
    return { handlers, exit, serve, code };
  }

  it('shuts down on the first signal and resolves 0 when everything was flushed', async () => {
    const { handlers, serve, exit, code } = harness(async () => ({ flushed: true }));
    expect(serve.close).not.toHaveBeenCalled();
    handlers[0]?.();
    expect(await code).toBe(0);
    expect(serve.close).toHaveBeenCalledTimes(1);
    expect(exit).not.toHaveBeenCalled();
  });

  it('resolves 1 when the live turns were not all flushed, or the shutdown failed', async () => {
    const unflushed = harness(async () => ({ flushed: false }));
    unflushed.handlers[0]?.();
    expect(await unflushed.code).toBe(1);
    const failed = harness(async () => {
      throw new Error('store is gone');
    });
    failed.handlers[0]?.();
    expect(await failed.code).toBe(1);
  });

  it('exits 1 at once on a second signal while the shutdown runs', async () => {
    let finish: (value: { flushed: boolean }) => void = () => {};
    const { handlers, exit, serve } = harness(() => new Promise((resolve) => (finish = resolve)));
    handlers[0]?.();
    // The first signal armed a handler for the next one.
    expect(handlers).toHaveLength(2);
    handlers[1]?.();
    expect(exit).toHaveBeenCalledWith(1);
    expect(serve.close).toHaveBeenCalledTimes(1);
    finish({ flushed: true });
  });
});
