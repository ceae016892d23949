/**
 * A store that fails while events come in (issue "turnlog serve", item 4: nothing lost, and an
 * acknowledgement only for what is durable). An accepted event is applied even when the store refuses
 * to record it, `sync()` then fails (so serve answers 500, not 202), and the client's retry of the
 * same event is a duplicate, not a second entry nor an event swallowed unapplied.
 */
import { describe, expect, it } from 'vitest';
import { createMemoryStore } from '../../src/store/memory.js';
import type { TurnlogStore } from '../../src/store/store.js';
import { SPACE, settle, startRuntime } from './runtime.helpers.js';

/** A memory store whose next `appendEvent` throws at once, as SQLite does on SQLITE_BUSY in immediate mode. */
function storeFailingOnce(): { store: TurnlogStore; failNextAppend(): void } {
  const inner = createMemoryStore();
  let fail = false;
  return {
    store: {
      ...inner,
      appendEvent(event) {
        if (fail) {
          fail = false;
          throw new Error('SQLITE_BUSY: database is locked');
        }
        return inner.appendEvent(event);
      },
    },
    failNextAppend: () => {
      fail = true;
    },
  };
}

describe('a store that refuses an event', () => {
  it('the event is applied, sync() fails naming the store error, and a retry is a duplicate', async () => {
    const failing = storeFailingOnce();
    const h = await startRuntime({ store: failing.store });
    const root = h.userMessage('u1');
    h.send({ type: 'turn_started', turnId: 'T1', root });
    await settle();
    await h.runtime.sync();

    failing.failNextAppend();
    const call = {
      space: SPACE,
      type: 'tool_call',
      turnId: 'T1',
      callId: 'c1',
      tool: 'Read',
      eventId: 'e-1',
    };
    const first = h.runtime.ingest(call);
    expect(first).toMatchObject({ ok: true, event: { seq: 2 } });
    await expect(h.runtime.sync()).rejects.toThrow(/appendEvent failed.*SQLITE_BUSY/);
    expect(h.warnings.some((w) => w.includes('store: appendEvent failed'))).toBe(true);

    // The client saw a 500 and sends the same event again: it was applied, so it is a duplicate.
    expect(h.runtime.ingest(call)).toMatchObject({ ok: true, duplicate: true, event: { seq: 2 } });
    await h.runtime.sync();
    await h.advance(2000);
    const texts = h.surface.calls.filter((c) => c.status < 300 && c.text).map((c) => c.text ?? '');
    expect(texts.at(-1)).toContain('Read');
    // One log line for the event (the headline above the lines names the running tool too).
    expect(texts.at(-1)?.split('\n').slice(1).join('\n').match(/Read/g)).toHaveLength(1);
    await h.runtime.stop();
  });
});

describe('a store that throws on saveTurn (closed under a shutdown)', () => {
  it('the throw is reported by sync(), never thrown out of ingest nor into the actors', async () => {
    const inner = createMemoryStore();
    let closed = false;
    const store: TurnlogStore = {
      ...inner,
      saveTurn(turn) {
        if (closed) throw new Error('sqlite: saveTurn after close()');
        return inner.saveTurn(turn);
      },
    };
    const h = await startRuntime({ store });
    const root = h.userMessage('u1');
    h.send({ type: 'turn_started', turnId: 'T1', root });
    await settle();
    closed = true;
    const call = { space: SPACE, type: 'tool_call', turnId: 'T1', callId: 'c1', tool: 'Read' };
    expect(() => h.runtime.ingest(call)).not.toThrow();
    await expect(h.runtime.sync()).rejects.toThrow(/saveTurn failed.*after close/);
    expect(h.runtime.actor.getSnapshot().status).toBe('active');
  });
});
