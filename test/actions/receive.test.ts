/**
 * `Runtime.receive` → the actions outbox (docs/http-api.md, "Actions"): a
 * person's message becomes an anchor and a `message` action whose id threads
 * a turn under it (`rootRef`); a redelivery is a duplicate and records
 * nothing; what is kept is redacted; `Runtime.actions` is a long poll on the
 * runtime's clock and `onAction` sees each action once it is durable.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Action, MessageIntake } from '../../src/actions/types.js';
import { createMemoryStore } from '../../src/store/memory.js';
import { createSqliteStore } from '../../src/store/sqlite.js';
import { type Harness, SPACE, settle, startRuntime } from '../runtime/runtime.helpers.js';
import { decision, startActionsRuntime } from './actions.helpers.js';

const harnesses: Harness[] = [];
afterEach(async () => {
  for (const h of harnesses.splice(0)) await h.runtime.stop();
});
async function start(...args: Parameters<typeof startRuntime>): Promise<Harness> {
  const h = await startRuntime(...args);
  harnesses.push(h);
  return h;
}

function personSays(h: Harness, text: string, dedupeKey?: string): MessageIntake {
  const posted = h.surface.inbound({ space: SPACE, text });
  return {
    kind: 'message',
    space: SPACE,
    messageId: posted.messageId,
    threadId: posted.threadId,
    text,
    dm: false,
    user: { id: 'users/1', name: 'Alice' },
    at: h.clock.now(),
    dedupeKey: dedupeKey ?? posted.messageId,
  };
}

describe('Runtime.receive: a person’s message', () => {
  it('records a message action, and a turn with rootRef = its id threads its log under that message', async () => {
    const h = await start();
    const intake = personSays(h, 'please fix the build');
    const result = await h.runtime.receive(intake);
    expect(result.status).toBe('accepted');
    const action = result.action as Action & { type: 'message' };
    expect(action).toMatchObject({
      type: 'message',
      space: SPACE,
      messageId: intake.messageId,
      threadId: intake.threadId,
      text: 'please fix the build',
      dm: false,
      user: { id: 'users/1', name: 'Alice' },
    });
    expect(action.id).toMatch(/^act_[0-9a-f]{32}$/);
    expect((await h.runtime.actions()).actions).toEqual([action]);

    h.send({ type: 'turn_started', turnId: 'T1', rootRef: action.id });
    h.send({ type: 'tool_call', turnId: 'T1', callId: 'c1', tool: 'Read', input: { path: 'a.ts' } });
    await h.advance(2_000);
    const log = h.surface.calls.find((c) => c.op === 'create');
    expect(log?.thread).toBe(intake.threadId);
  });

  it('a redelivery (same dedupeKey) is a duplicate: nothing more is recorded', async () => {
    const h = await start();
    const intake = personSays(h, 'hello');
    const first = await h.runtime.receive(intake);
    const again = await h.runtime.receive(intake);
    expect(again).toEqual({ status: 'duplicate', action: first.action });
    expect((await h.runtime.actions()).actions).toHaveLength(1);
  });

  it('keeps the person’s text redacted: a secret they pasted is never written', async () => {
    const store = createMemoryStore();
    const h = await start({ store });
    const secret = 'ghp_0123456789abcdefghijABCDEFGHIJ0123456789';
    const result = await h.runtime.receive(personSays(h, `use token ${secret} please`));
    const kept = await store.actionsAfter(0, 10);
    expect(JSON.stringify(kept)).not.toContain(secret);
    expect((kept[0] as { text: string }).text).toMatch(/^use token .*REDACTED.* please$/);
    // The store keeps the position; the host's cursor carries the store's id with it.
    expect(result.action).toEqual({
      ...kept[0],
      cursor: `${await store.actionsStoreId()}.${kept[0]?.cursor}`,
    });
  });

  it('a message for a platform with no surface is unknown, with the reason, and records no action', async () => {
    const h = await start();
    const result = await h.runtime.receive({ ...personSays(h, 'hi'), space: 'slack:C0123' });
    expect(result).toMatchObject({ status: 'unknown', text: expect.stringMatching(/no slack surface/) });
    expect((await h.runtime.actions()).actions).toEqual([]);
  });

  it('a click turnlog cannot resolve is unknown and records nothing', async () => {
    const h = await start();
    const result = await h.runtime.receive({
      kind: 'click',
      space: SPACE,
      messageId: 'spaces/AAAA/messages/x',
      action: 'approve',
      user: { id: 'users/2' },
      at: 0,
      dedupeKey: 'k1',
    });
    expect(result.status).toBe('unknown');
    expect((await h.runtime.actions()).actions).toEqual([]);
  });
});

describe('Runtime.actions and onAction', () => {
  it('pages after a cursor, in the order received, and answers the cursor to go on from', async () => {
    const h = await start();
    for (const text of ['one', 'two', 'three']) await h.runtime.receive(personSays(h, text));
    const all = await h.runtime.actions();
    expect(all.actions.map((a) => (a as { text: string }).text)).toEqual(['one', 'two', 'three']);
    expect(all.cursor).toBe(all.actions[2]?.cursor);
    const after = await h.runtime.actions({ after: all.actions[0]?.cursor });
    expect(after.actions.map((a) => (a as { text: string }).text)).toEqual(['two', 'three']);
    const none = await h.runtime.actions({ after: all.cursor });
    expect(none).toEqual({ actions: [], cursor: all.cursor });
  });

  it('refuses a cursor it did not give out, saying what a cursor is', async () => {
    const h = await start();
    await expect(h.runtime.actions({ after: 'abc' })).rejects.toThrow(/"abc" is not an actions cursor/);
  });

  it('a long poll wakes on the next action, and ends empty when its wait passes on the clock', async () => {
    const h = await start();
    const waiting = h.runtime.actions({ waitMs: 30_000 });
    await settle();
    const result = await h.runtime.receive(personSays(h, 'wake up'));
    expect((await waiting).actions).toEqual([result.action]);

    const idle = h.runtime.actions({ after: result.action?.cursor, waitMs: 5_000 });
    let done = false;
    void idle.then(() => {
      done = true;
    });
    h.clock.increment(4_999);
    await settle();
    expect(done).toBe(false);
    h.clock.increment(1);
    expect(await idle).toEqual({ actions: [], cursor: result.action?.cursor });
  });

  it('a long poll ends empty when its signal aborts', async () => {
    const h = await start();
    const controller = new AbortController();
    const waiting = h.runtime.actions({ waitMs: 30_000, signal: controller.signal });
    controller.abort();
    expect(await waiting).toEqual({ actions: [], cursor: expect.stringMatching(/^[0-9a-f]{12}\.0$/) });
  });

  it('onAction sees each new action (not a redelivery) until unsubscribed', async () => {
    const h = await start();
    const seen: Action[] = [];
    const unsubscribe = h.runtime.onAction((action) => seen.push(action));
    const intake = personSays(h, 'first');
    const first = await h.runtime.receive(intake);
    await h.runtime.receive(intake);
    unsubscribe();
    await h.runtime.receive(personSays(h, 'second'));
    expect(seen).toEqual([first.action]);
  });
});

describe('Runtime.receive: a click', () => {
  it('records the action its resolver accepts; a second click is told it was decided, and records nothing', async () => {
    const h = await startActionsRuntime();
    h.buttons.set('card-1 approve', decision('T1', 'r1', 'approved'));
    const first = await h.runtime.receive(h.click('card-1', 'approve', 'i1'));
    expect(first.status).toBe('accepted');
    expect(first.action).toMatchObject({
      type: 'decision',
      turnId: 'T1',
      requestId: 'r1',
      decision: 'approved',
      user: { id: 'users/1', name: 'Bob' },
    });
    expect(await h.runtime.receive(h.click('card-1', 'approve', 'i2'))).toEqual({
      status: 'already-decided',
      text: 'already decided',
    });
    expect((await h.runtime.actions()).actions).toEqual([first.action]);
    await h.runtime.stop();
  });
});

describe('the outbox at rest', () => {
  it('keeps actions at least 24 h, and prunes older ones as new ones come', async () => {
    const h = await start();
    const old = await h.runtime.receive(personSays(h, 'yesterday'));
    h.clock.increment(24 * 60 * 60 * 1000 - 60_000);
    await h.runtime.receive(personSays(h, 'a minute short of a day later'));
    expect((await h.runtime.actions()).actions.map((a) => a.id)).toContain(old.action?.id);
    h.clock.increment(2 * 60_000);
    const fresh = await h.runtime.receive(personSays(h, 'a day and a minute later'));
    const kept = (await h.runtime.actions()).actions;
    expect(kept.map((a) => a.id)).not.toContain(old.action?.id);
    expect(kept.at(-1)).toEqual(fresh.action);
  });

  it('writes no unredacted text to the SQLite file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'turnlog-actions-at-rest-'));
    try {
      const path = join(dir, 'turnlog.db');
      const store = createSqliteStore({ path });
      const h = await start({ store });
      const secret = 'sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJ';
      await h.runtime.receive(personSays(h, `my key is ${secret}`));
      await h.runtime.stop();
      harnesses.splice(0);
      store.close();
      const bytes = Buffer.concat(readdirSync(dir).map((file) => readFileSync(join(dir, file)))).toString(
        'latin1',
      );
      expect(bytes).toContain('my key is');
      expect(bytes).not.toContain(secret);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
