// Issue 21.4: the frame sender (machines/frame-sender.machine.ts) — one frame of a turn's log: its token (a
// progress token or a terminal slot), the newest frame asked of the turn at send time, the write, its retries as
// the caller's policy says, and the status it implies booked with the budget as a visible state (not a promise
// loop). Model-based: every transition of the machine is taken by some path of its graph (@xstate/graph), over
// the policies the turn's sending states use, and each path replayed on a live actor (simulated clock) keeps the
// promises: no write without a token (when it asks for one), the frame written is the one the turn prepared last,
// a skip writes nothing, a 404 or a `forbidden` is never retried, retries stay within the policy, each 429 is
// told to the budget, no status without a grant, a progress status refused is skipped, a finished turn's clear
// waits the budget's retryInMs and asks at most STATUS_CLEAR_ROUNDS times, a restored sender asks again
// (`frame.recover`), and the write's error (404, 429) is the sender's error when the policy does not retry it.
import { getAdjacencyMap, getShortestPaths } from '@xstate/graph';
import { describe, expect, it } from 'vitest';
import {
  assign,
  createActor,
  type EventObject,
  fromPromise,
  SimulatedClock,
  type SnapshotFrom,
} from 'xstate';
import {
  type FramePolicy,
  type FrameRequest,
  type FrameSenderInput,
  frameSenderMachine,
  ONE_WRITE,
  type SentFrame,
  STATUS_CLEAR_ROUNDS,
  type StatusTarget,
} from '../../machines/frame-sender.machine.js';
import { SurfaceError } from '../../src/surfaces/surface.js';
import { detachedScope } from '../../src/testing/detached-scope.js';
import { settle } from './turn.helpers.js';

type Kind = 'none' | 'progress' | 'clear';
const RETRY_IN_MS = 700;
const request = (kind: Kind, policy?: FramePolicy): FrameSenderInput => ({
  space: `slack:C${kind}`,
  frame: { kind: 'log', lines: [] },
  turnId: 'T1',
  thread: { threadId: '1.000001' },
  ...(policy ? { policy } : {}),
});
/** The newest frame the turn renders when asked (`frame.prepare`): the same space, a newer frame. */
const prepared = (kind: Kind): FrameRequest => {
  const { policy: _policy, ...rest } = request(kind);
  return { ...rest, frame: { kind: 'log', lines: [], headline: undefined }, clientId: 'newest' };
};

/** The policies the turn's sending states are to hand it (an edit, the first thread post, the terminal frame). */
const POLICIES: Record<string, FramePolicy | undefined> = {
  'one write': undefined,
  // An edit of the live log: a progress token, the newest frame, a 429 waited out, one retry without a new token.
  edit: {
    token: 'progress',
    prepare: 'ask',
    rateLimits: 'retry',
    retries: 1,
    retryDelayMs: 500,
    backoff: false,
    retryToken: false,
  },
  // The first thread post: retried twice, backing off, each time with a fresh token.
  'first post': {
    token: 'progress',
    prepare: 'ask',
    rateLimits: 'retry',
    retries: 2,
    retryDelayMs: 500,
    backoff: true,
    retryToken: true,
  },
  // The terminal frame: a terminal slot before every attempt, 429s counted among its retries.
  terminal: {
    token: 'terminal',
    prepare: 'ask',
    rateLimits: 'count',
    retries: 2,
    retryDelayMs: 500,
    backoff: false,
    retryToken: true,
  },
};
const CASES = Object.entries(POLICIES).flatMap(([name, policy]) =>
  (policy === undefined ? (['none', 'progress', 'clear'] as const) : (['none', 'clear'] as const)).map(
    (kind) => ({ name: `${name}, ${kind}`, kind, policy }),
  ),
);
const kindOf = (space: string): Kind => space.slice('slack:C'.length) as Kind;
const statusFor = (kind: Kind): StatusTarget | null =>
  kind === 'none'
    ? null
    : { space: `slack:C${kind}`, threadId: '1.000001', status: '', clear: kind === 'clear' };

/** The machine with the platform read from the request (which status is due) and no I/O of its own. */
const modelLogic = frameSenderMachine.provide({
  actions: {
    pickStatus: assign(({ context }) => ({ status: statusFor(kindOf(context.request.space)) })),
    requestStatusToken: () => {},
    requestToken: () => {},
    askForFrame: () => {},
    failWithError: () => {},
  },
});
type Snap = SnapshotFrom<typeof modelLogic>;

const failure = (kind: string, status: number) =>
  ({
    type: 'xstate.error.actor.write',
    error: new SurfaceError(kind as never, `HTTP ${status}`, { status, retryAfterMs: 2000 }),
  }) as EventObject;
const eventsFor = (kind: Kind): EventObject[] => [
  { type: 'xstate.done.actor.write', output: { messageId: 'm1', threadId: '1.000001' } } as EventObject,
  failure('not-found', 404),
  failure('rate-limited', 429),
  failure('transient', 500),
  failure('forbidden', 403),
  { type: 'budget.granted' },
  { type: 'budget.funded' },
  { type: 'budget.refused', retryInMs: RETRY_IN_MS, reason: 'write-limit' } as EventObject,
  { type: 'frame.prepared', request: prepared(kind) } as EventObject,
  { type: 'frame.skip' },
  { type: 'xstate.after.tokenRetry.frameSender.refused' },
  { type: 'xstate.after.retryAfter.frameSender.rateLimited' },
  { type: 'xstate.after.retryDelay.frameSender.retrying' },
  { type: 'xstate.after.statusRetry.frameSender.waitingForStatus' },
  { type: 'xstate.done.actor.setStatus' },
  { type: 'xstate.error.actor.setStatus', error: new SurfaceError('transient', 'HTTP 500') } as EventObject,
  { type: 'frame.recover' },
];
const serialize = (s: Snap) =>
  JSON.stringify([s.value, s.context.statusRounds, s.context.status?.clear, s.context.failures]);

function graphOf(kind: Kind, policy?: FramePolicy) {
  const options = {
    events: eventsFor(kind) as never,
    serializeState: serialize as never,
    serializeEvent: (e: EventObject) => JSON.stringify(e) as never,
    fromState: modelLogic.getInitialSnapshot(detachedScope('frame-sender'), request(kind, policy)) as never,
  };
  return { adjacency: getAdjacencyMap(modelLogic, options), paths: getShortestPaths(modelLogic, options) };
}

/** Every (state, event) the machine defines, `always` and delays included. */
function definedTransitions(): string[] {
  const keys: string[] = [];
  for (const node of Object.values(frameSenderMachine.root.states)) {
    for (const [event, list] of node.transitions) if (list.length > 0) keys.push(`${node.key} ${event}`);
    if (node.always?.length) keys.push(`${node.key} always`);
  }
  return keys.sort();
}

/** A transition as the coverage names it: `<state> <event>` (`always` for an eventless one). */
const transitionKey = (t: { source: { key: string }; eventType: string }): string =>
  `${t.source.key} ${t.eventType === '' ? 'always' : t.eventType}`;

/** The sender on a live actor: its write, status and budget answered by the path, what it did recorded. */
function liveSender(kind: Kind, policy?: FramePolicy) {
  const clock = new SimulatedClock();
  let settleWrite: { ok: (o: unknown) => void; fail: (e: unknown) => void } | undefined;
  let settleStatus: ((failed: boolean) => void) | undefined;
  const asks: number[] = [];
  const statuses: string[] = [];
  const tokenAsks: number[] = [];
  const frameAsks: number[] = [];
  const rateLimits: number[] = [];
  const written: FrameRequest[] = [];
  const taken = new Set<string>();
  const logic = frameSenderMachine.provide({
    actions: {
      pickStatus: assign(({ context }) => ({ status: statusFor(kindOf(context.request.space)) })),
      requestStatusToken: () => {
        asks.push(clock.now());
      },
      requestToken: () => {
        tokenAsks.push(clock.now());
      },
      askForFrame: () => {
        frameAsks.push(clock.now());
      },
      reportRateLimited: (_, params) => {
        rateLimits.push(params.retryAfterMs);
      },
    },
    actors: {
      write: fromPromise<SentFrame, FrameRequest>(({ input }) => {
        written.push(input);
        return new Promise<SentFrame>((ok, fail) => (settleWrite = { ok: (o) => ok(o as SentFrame), fail }));
      }),
      setStatus: fromPromise<void, StatusTarget | null>(async ({ input }) => {
        statuses.push(input?.status ?? 'none');
        await new Promise<void>(
          (ok, fail) => (settleStatus = (failed) => (failed ? fail(new Error('500')) : ok())),
        );
      }),
    },
  });
  const actor = createActor(logic, {
    clock,
    input: request(kind, policy),
    inspect: (inspection) => {
      // Only the sender takes microsteps here (its children are promises).
      if (inspection.type === '@xstate.microstep')
        for (const t of inspection._transitions) taken.add(transitionKey(t));
    },
  });
  actor.subscribe({ error: () => {} });
  actor.start();
  return {
    actor,
    clock,
    asks,
    statuses,
    tokenAsks,
    frameAsks,
    rateLimits,
    written,
    taken,
    write: () => settleWrite!,
    status: () => settleStatus!,
  };
}

/** The timer the live sender waits on, in ms (a refused token, a 429, a retry, a refused clear). */
function pendingDelay(snapshot: SnapshotFrom<typeof frameSenderMachine>): number {
  const c = snapshot.context;
  if (snapshot.matches('refused')) return c.tokenRetryMs;
  if (snapshot.matches('waitingForStatus')) return c.statusRetryMs;
  return c.retryInMs;
}

async function replay(kind: Kind, events: EventObject[], policy?: FramePolicy) {
  const live = liveSender(kind, policy);
  let granted = 0;
  let tokens = 0;
  let prepared: FrameRequest | null = null;
  let errors = 0;
  let rateLimited = 0;
  let writesAtFinalError: number | null = null;
  for (const event of events) {
    const before = live.actor.getSnapshot();
    // A finished sender hears nothing more (the turn stops talking to it).
    if (before.status !== 'active') break;
    if (event.type === 'xstate.done.actor.write')
      live.write().ok((event as unknown as { output: unknown }).output);
    else if (event.type === 'xstate.error.actor.write') {
      const { error } = event as unknown as { error: SurfaceError };
      errors++;
      if (error.kind === 'rate-limited') rateLimited++;
      if (error.kind === 'not-found' || error.kind === 'forbidden')
        writesAtFinalError ??= live.written.length;
      live.write().fail(error);
    } else if (event.type === 'xstate.done.actor.setStatus') live.status()(false);
    else if (event.type === 'xstate.error.actor.setStatus') live.status()(true);
    else if (event.type.startsWith('xstate.after.')) live.clock.increment(pendingDelay(before));
    else {
      if (event.type === 'budget.granted' && before.matches('bookingStatus')) granted++;
      if ((event.type === 'budget.granted' || event.type === 'budget.funded') && before.matches('requesting'))
        tokens++;
      if (event.type === 'frame.prepared' && before.matches('awaitingFrame'))
        prepared = (event as unknown as { request: FrameRequest }).request;
      live.actor.send(event as never);
    }
    await settle();
  }
  /**
   * Then what needs no budget: the frame the turn would render, the write landing. A write that goes
   * out here without a token asked since the last one breaks the promise the test checks after.
   */
  const finish = async (): Promise<void> => {
    for (let step = 0; step < 2; step++) {
      const snapshot = live.actor.getSnapshot();
      if (snapshot.status !== 'active') return;
      if (snapshot.matches('awaitingFrame')) {
        prepared = { ...snapshot.context.request, clientId: 'finish' };
        live.actor.send({ type: 'frame.prepared', request: prepared });
      } else if (snapshot.matches('sending')) live.write().ok({ messageId: 'm1' });
      else return;
      await settle();
    }
  };
  return {
    ...live,
    finish,
    granted,
    tokens,
    get prepared() {
      return prepared;
    },
    errors,
    rateLimited,
    writesAtFinalError,
  };
}

describe('frame sender: every path of the graph, replayed on a live actor', () => {
  const taken = new Set<string>();

  for (const { name, kind, policy } of CASES) {
    it(`keeps its promises (${name})`, async () => {
      const { paths, adjacency } = graphOf(kind, policy);
      expect(Object.keys(adjacency).length).toBeGreaterThan(2);
      const p = policy ?? ONE_WRITE;
      // Every edge of the graph: the shortest path to its state, then its event (self-loops included).
      const shortest = new Map(paths.map((path) => [serialize(path.state as Snap), path]));
      const replays = Object.values(adjacency).flatMap((vertex) => {
        const to = shortest.get(serialize(vertex.state as Snap));
        if (!to) return [];
        const prefix = to.steps.slice(1).map((step) => step.event as EventObject);
        const edges = Object.values(vertex.transitions) as { event: EventObject; state: Snap }[];
        // An event the state ignores leaves it as it was: no edge (a restore, though, always means something).
        const from = serialize(vertex.state as Snap);
        return edges
          .filter(({ event, state }) => serialize(state) !== from || event.type === 'frame.recover')
          .map(({ event, state }) => ({ events: [...prefix, event], state }));
      });
      for (const path of replays) {
        const { events } = path;
        const live = await replay(kind, events, policy);
        for (const key of live.taken) taken.add(key);
        const snapshot = live.actor.getSnapshot();
        const why = JSON.stringify(events.map((e) => e.type));
        // The model and the live actor agree on where the sender is.
        expect(snapshot.status === 'error' ? 'failed' : snapshot.value, why).toEqual(
          (path.state as Snap).value,
        );
        await live.finish();
        // A write only with a token (or, retrying an edit, the one it held); the frame is the turn's newest.
        const writes = live.written.length;
        if (p.token !== 'none')
          expect(writes, why).toBeLessThanOrEqual(
            live.tokens + (p.retryToken ? 0 : live.errors - live.rateLimited),
          );
        else expect(live.tokenAsks, why).toEqual([]);
        if (p.prepare === 'ask') {
          expect(live.frameAsks.length, why).toBeGreaterThanOrEqual(writes);
          if (writes > 0) expect(live.written.at(-1), why).toEqual(live.prepared);
        } else expect(live.frameAsks, why).toEqual([]);
        // A skip writes nothing more and ends the sender, with no status.
        if (snapshot.value === 'skipped') {
          expect(snapshot.output?.skipped, why).toBe(true);
          expect(live.statuses, why).toEqual([]);
        }
        // Retries within the policy (429s waited out uncounted under `retry`); each 429 waited out told to the budget.
        const counted = p.rateLimits === 'retry' ? live.errors - live.rateLimited : live.errors;
        expect(counted, why).toBeLessThanOrEqual(p.retries + 1);
        expect(live.rateLimits.length, why).toBeLessThanOrEqual(live.rateLimited);
        if (p.rateLimits === 'fail') expect(live.rateLimits, why).toEqual([]);
        // A 404 or a forbidden is never retried: nothing is written after it.
        if (live.writesAtFinalError !== null) expect(live.written.length, why).toBe(live.writesAtFinalError);
        // A status is set only with a token; a clear asks at most STATUS_CLEAR_ROUNDS times.
        expect(live.statuses.length, why).toBeLessThanOrEqual(live.granted);
        expect(live.asks.length, why).toBeLessThanOrEqual(
          STATUS_CLEAR_ROUNDS + events.filter((e) => e.type === 'frame.recover').length,
        );
        if (kind === 'none') expect(live.asks, why).toEqual([]);
        live.actor.stop();
      }
    });
  }

  it('takes every transition the machine defines, over those policies and statuses', () => {
    expect(definedTransitions().filter((key) => !taken.has(key))).toEqual([]);
    expect(definedTransitions().length).toBeGreaterThan(20);
  });
});

describe('frame sender: on the simulated clock', () => {
  it('a write that fails (404, 429) fails the sender with that error: the turn reads its kind', async () => {
    for (const error of [
      new SurfaceError('not-found', 'HTTP 404', { status: 404 }),
      new SurfaceError('rate-limited', 'HTTP 429', { status: 429, retryAfterMs: 2000 }),
    ]) {
      const live = liveSender('progress');
      live.write().fail(error);
      await settle();
      expect(live.actor.getSnapshot().status).toBe('error');
      expect(live.actor.getSnapshot().error).toBe(error);
      expect(live.asks).toEqual([]);
    }
  });

  it('a refused progress status is skipped at once; the frame is sent', async () => {
    const EVENTS = eventsFor('progress');
    const live = await replay('progress', [EVENTS[0]!, EVENTS[7]!]);
    expect(live.actor.getSnapshot().status).toBe('done');
    expect(live.actor.getSnapshot().output).toEqual({ messageId: 'm1', threadId: '1.000001' });
    expect(live.statuses).toEqual([]);
  });

  it('a refused clear waits the budget’s retryInMs on the clock, asks again, and gives up after 10 asks', async () => {
    const live = liveSender('clear');
    live.write().ok({ messageId: 'm1' });
    await settle();
    for (let round = 1; round < STATUS_CLEAR_ROUNDS; round++) {
      live.actor.send({ type: 'budget.refused', retryInMs: RETRY_IN_MS, reason: 'write-limit' });
      live.clock.increment(RETRY_IN_MS - 1);
      await settle();
      expect(live.asks).toHaveLength(round);
      live.clock.increment(1);
      await settle();
      expect(live.asks).toHaveLength(round + 1);
    }
    live.actor.send({ type: 'budget.refused', retryInMs: RETRY_IN_MS, reason: 'write-limit' });
    await settle();
    expect(live.asks).toHaveLength(STATUS_CLEAR_ROUNDS);
    expect(live.actor.getSnapshot().status).toBe('done');
    expect(live.statuses).toEqual([]);
  });

  it('a granted clear is set, and a restored sender waiting for its token asks again (frame.recover)', async () => {
    const live = liveSender('clear');
    live.write().ok({ messageId: 'm1' });
    await settle();
    live.actor.send({ type: 'frame.recover' });
    expect(live.asks).toHaveLength(2);
    live.actor.send({ type: 'budget.granted' });
    await settle();
    expect(live.statuses).toEqual(['']);
    live.status()(false);
    await settle();
    expect(live.actor.getSnapshot().status).toBe('done');
  });
});
