/**
 * The clients' side of people's actions (docs/library.md, "Actions"): the
 * `actions()` async iterator over `GET /v1/actions` (HTTP) and over
 * `Runtime.actions` (in process) — every action in order, the cursor moved
 * on, a wait woken by the next action, an end on abort or close — and a turn
 * scope's `onDecision` / `onAnswer` / `onStop`.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Action } from '../../src/actions/types.js';
import { ActionsRequestError } from '../../src/client/http-actions.js';
import { createTurnlogClient } from '../../src/client/http-client.js';
import { createInProcessClient } from '../../src/client/in-process-client.js';
import type { TurnlogClient } from '../../src/client/types.js';
import { type IngestServer, startIngestServer } from '../../src/serve/http.js';
import { createServeLogger } from '../../src/serve/logger.js';
import { type ActionsHarness, decision, startActionsRuntime } from '../actions/actions.helpers.js';
import { SPACE } from '../runtime/runtime.helpers.js';

const TOKEN = 's3cret-ingest-token-0123456789';
const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function serveOver(h: ActionsHarness): Promise<IngestServer> {
  const server = await startIngestServer({
    runtime: h.runtime,
    surfaces: { gchat: h.surface },
    host: '127.0.0.1',
    port: 0,
    token: TOKEN,
    bodyLimitBytes: 1_000_000,
    deadLetter: () => {},
    logger: createServeLogger('silent'),
  });
  cleanups.push(() => server.close());
  return server;
}

async function harness(): Promise<ActionsHarness> {
  const h = await startActionsRuntime();
  cleanups.push(() => h.runtime.stop());
  return h;
}

/** The two clients over the same runtime: in process, and over HTTP. */
const clients: [string, (h: ActionsHarness) => Promise<TurnlogClient>][] = [
  ['in-process client', async (h) => createInProcessClient(h.runtime)],
  [
    'HTTP client',
    async (h) => createTurnlogClient({ url: (await serveOver(h)).url, token: TOKEN, clock: h.clock }),
  ],
];

describe.each(clients)('%s: actions()', (_name, makeClient) => {
  it('yields every kept action in order, then waits for the next one, and ends on abort', async () => {
    const h = await harness();
    const client = await makeClient(h);
    cleanups.push(() => client.close());
    const one = (await h.runtime.receive(h.message('one'))).action as Action;
    const two = (await h.runtime.receive(h.message('two'))).action as Action;

    const controller = new AbortController();
    const iterator = client.actions({ signal: controller.signal, waitS: 30 });
    expect((await iterator.next()).value).toEqual(one);
    expect((await iterator.next()).value).toEqual(two);
    const waiting = iterator.next();
    const three = (await h.runtime.receive(h.message('three'))).action as Action;
    expect((await waiting).value).toEqual(three);

    const ending = iterator.next();
    controller.abort();
    expect(await ending).toEqual({ done: true, value: undefined });
  });

  it('starts after a given cursor', async () => {
    const h = await harness();
    const client = await makeClient(h);
    cleanups.push(() => client.close());
    const one = (await h.runtime.receive(h.message('one'))).action as Action;
    const two = (await h.runtime.receive(h.message('two'))).action as Action;
    const controller = new AbortController();
    const seen: Action[] = [];
    for await (const action of client.actions({ after: one.cursor, signal: controller.signal })) {
      seen.push(action);
      controller.abort();
    }
    expect(seen).toEqual([two]);
  });

  // Issue 22.4: a cursor serve never gave out (a restart of a memory store) is refused; the iterator
  // says so and reads on from the oldest kept, so the actions recorded since are not missed.
  it('a refused cursor: told once, then every kept action from the oldest', async () => {
    const h = await harness();
    const client = await makeClient(h);
    cleanups.push(() => client.close());
    const one = (await h.runtime.receive(h.message('one'))).action as Action;
    const refusals: { cursor: string; reason: string }[] = [];
    const controller = new AbortController();
    const seen: Action[] = [];
    const stale = 'abcdef012345.7';
    for await (const action of client.actions({
      after: stale,
      signal: controller.signal,
      onCursorRefused: (refusal) => refusals.push(refusal),
    })) {
      seen.push(action);
      controller.abort();
    }
    expect(seen).toEqual([one]);
    expect(refusals).toEqual([{ cursor: stale, reason: expect.stringMatching(/is from another store/) }]);
  });

  it('an iterator waiting for an action ends when the client closes', async () => {
    const h = await harness();
    const client = await makeClient(h);
    const iterator = client.actions({ waitS: 30 });
    const waiting = iterator.next();
    await client.close();
    expect(await waiting).toEqual({ done: true, value: undefined });
  });
});

describe.each(clients)('%s: a turn scope’s onDecision / onAnswer / onStop', (_name, makeClient) => {
  it('hears its own turn’s actions (by request or question id when given), earlier ones included', async () => {
    const h = await harness();
    const client = await makeClient(h);
    cleanups.push(() => client.close());
    h.buttons.set('card-1 approve', decision('T1', 'r1', 'approved'));
    h.buttons.set('card-2 reject', decision('T1', 'r2', 'rejected'));
    h.buttons.set('card-3 approve', decision('T2', 'r1', 'approved'));
    h.buttons.set('card-4 answer:0', {
      type: 'answer',
      space: SPACE,
      at: 0,
      user: { id: 'u' },
      turnId: 'T1',
      questionId: 'q1',
      value: 'blue',
      label: 'Blue',
    });
    h.buttons.set('log-1 stop', { type: 'stop', space: SPACE, at: 0, user: { id: 'u' }, turnId: 'T1' });

    const turn = client.startTurn({ space: SPACE, turnId: 'T1', title: 'Deploy' });
    // Clicked before anyone listens: still heard.
    await h.runtime.receive(h.click('card-1', 'approve', 'i1'));
    const all: string[] = [];
    const r2: string[] = [];
    const answers: string[] = [];
    const stops: string[] = [];
    turn.onDecision((a) => all.push(`${a.requestId}:${a.decision}`));
    turn.onDecision('r2', (a) => r2.push(a.decision));
    turn.onAnswer('q1', (a) => answers.push(`${a.value}/${a.label}`));
    turn.onStop((a) => stops.push(a.turnId));
    await h.runtime.receive(h.click('card-3', 'approve', 'i3')); // another turn's
    await h.runtime.receive(h.click('card-2', 'reject', 'i2'));
    await h.runtime.receive(h.click('card-4', 'answer:0', 'i4'));
    await h.runtime.receive(h.click('log-1', 'stop', 'i5'));

    await vi.waitFor(() => expect(stops).toEqual(['T1']), { timeout: 5_000 });
    expect(all).toEqual(['r1:approved', 'r2:rejected']);
    expect(r2).toEqual(['rejected']);
    expect(answers).toEqual(['blue/Blue']);
    await turn.end('ok');
    expect(() => turn.onStop(() => {})).toThrow(/turn T1 has ended/);
  });

  it('stops calling back once unsubscribed', async () => {
    const h = await harness();
    const client = await makeClient(h);
    cleanups.push(() => client.close());
    h.buttons.set('card-1 approve', decision('T1', 'r1', 'approved'));
    h.buttons.set('card-2 approve', decision('T1', 'r2', 'approved'));
    h.buttons.set('log-1 stop', { type: 'stop', space: SPACE, at: 0, user: { id: 'u' }, turnId: 'T1' });
    const turn = client.startTurn({ space: SPACE, turnId: 'T1', title: 'Deploy' });
    const heard: string[] = [];
    const stops: string[] = [];
    const unsubscribe = turn.onDecision((a) => heard.push(a.requestId));
    turn.onStop((a) => stops.push(a.turnId));
    await h.runtime.receive(h.click('card-1', 'approve', 'i1'));
    await vi.waitFor(() => expect(heard).toEqual(['r1']), { timeout: 5_000 });
    unsubscribe();
    await h.runtime.receive(h.click('card-2', 'approve', 'i2'));
    await h.runtime.receive(h.click('log-1', 'stop', 'i3'));
    // The stop came after the second decision on the same iterator: once it is heard, the decision was passed over.
    await vi.waitFor(() => expect(stops).toEqual(['T1']), { timeout: 5_000 });
    expect(heard).toEqual(['r1']);
  });
});

describe('the HTTP client’s actions()', () => {
  it('throws an ActionsRequestError naming the status when the token is refused', async () => {
    const h = await harness();
    const server = await serveOver(h);
    const client = createTurnlogClient({ url: server.url, token: 'wrong-token-0123456789' });
    cleanups.push(() => client.close());
    const iterator = client.actions();
    const failure = iterator.next();
    await expect(failure).rejects.toBeInstanceOf(ActionsRequestError);
    await expect(failure).rejects.toThrow(/^GET \/v1\/actions: HTTP 401: missing or wrong bearer token/);
  });

  it('an in-process client over a runtime without actions() says so', () => {
    const client = createInProcessClient({ ingest: () => ({ ok: false, error: 'x' }) });
    expect(() => client.actions()).toThrow(/no actions source/);
    const turn = client.startTurn({ space: SPACE, turnId: 'T1' });
    expect(() => turn.onStop(() => {})).toThrow(/onStop: this client has no actions source/);
  });
});
