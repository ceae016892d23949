// Issue 21.4: the frame sender (machines/frame-sender.machine.ts) — one write of a log frame, then the
// status it implies booked with the budget as a visible state (not a promise loop). Model-based: every
// transition of the machine is taken by some path of its graph (@xstate/graph), and each path replayed on a
// live actor (simulated clock) keeps the promises: no status without a grant, a progress status refused is
// skipped, a finished turn's clear waits the budget's retryInMs and asks at most STATUS_CLEAR_ROUNDS times,
// a restored sender asks again (`frame.recover`), and the write's error (404, 429) is the sender's error.
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
  type FrameRequest,
  frameSenderMachine,
  type SentFrame,
  STATUS_CLEAR_ROUNDS,
  type StatusTarget,
} from '../../machines/frame-sender.machine.js';
import { SurfaceError } from '../../src/surfaces/surface.js';
import { detachedScope } from '../../src/testing/detached-scope.js';
import { settle } from './turn.helpers.js';

type Kind = 'none' | 'progress' | 'clear';
const RETRY_IN_MS = 700;
const request = (kind: Kind): FrameRequest => ({
  space: `slack:C${kind}`,
  frame: { kind: 'log', lines: [] },
  turnId: 'T1',
  thread: { threadId: '1.000001' },
});
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
    failWithError: () => {},
  },
});
type Snap = SnapshotFrom<typeof modelLogic>;

const EVENTS: EventObject[] = [
  { type: 'xstate.done.actor.write', output: { messageId: 'm1', threadId: '1.000001' } } as EventObject,
  { type: 'xstate.error.actor.write', error: new SurfaceError('not-found', 'HTTP 404') } as EventObject,
  { type: 'budget.granted' },
  { type: 'budget.refused', retryInMs: RETRY_IN_MS, reason: 'write-limit' } as EventObject,
  { type: 'xstate.after.statusRetry.frameSender.waitingForStatus' },
  { type: 'xstate.done.actor.setStatus' },
  { type: 'xstate.error.actor.setStatus', error: new SurfaceError('transient', 'HTTP 500') } as EventObject,
  { type: 'frame.recover' },
];
const serialize = (s: Snap) => JSON.stringify([s.value, s.context.statusRounds, s.context.status?.clear]);

function graphOf(kind: Kind) {
  const options = {
    events: EVENTS as never,
    serializeState: serialize as never,
    serializeEvent: (e: EventObject) => JSON.stringify(e) as never,
    fromState: modelLogic.getInitialSnapshot(detachedScope('frame-sender'), request(kind)) as never,
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

describe('frame sender: the graph', () => {
  it('takes every transition the machine defines, over requests with no status, a progress status and a clear', () => {
    const taken = new Set<string>();
    for (const kind of ['none', 'progress', 'clear'] as const) {
      for (const vertex of Object.values(graphOf(kind).adjacency)) {
        const from = vertex.state as Snap;
        for (const { event, state: next } of Object.values(vertex.transitions) as {
          event: EventObject;
          state: Snap;
        }[]) {
          if (serialize(next) === serialize(from) && event.type !== 'frame.recover') continue;
          taken.add(`${String(from.value)} ${event.type}`);
          // Through `checkingStatus` (eventless): its `always` was taken.
          if (from.value === 'sending' && next.value !== 'failed') taken.add('checkingStatus always');
        }
      }
    }
    expect(definedTransitions().filter((key) => !taken.has(key))).toEqual([]);
    expect(definedTransitions().length).toBeGreaterThan(8);
  });
});

/** The sender on a live actor: its write and status answered by the path, its asks counted. */
function liveSender(kind: Kind) {
  const clock = new SimulatedClock();
  let settleWrite: { ok: (o: unknown) => void; fail: (e: unknown) => void } | undefined;
  let settleStatus: ((failed: boolean) => void) | undefined;
  const asks: number[] = [];
  const statuses: string[] = [];
  const logic = frameSenderMachine.provide({
    actions: {
      pickStatus: assign(({ context }) => ({ status: statusFor(kindOf(context.request.space)) })),
      requestStatusToken: () => {
        asks.push(clock.now());
      },
    },
    actors: {
      write: fromPromise<SentFrame, FrameRequest>(
        () => new Promise<SentFrame>((ok, fail) => (settleWrite = { ok: (o) => ok(o as SentFrame), fail })),
      ),
      setStatus: fromPromise<void, StatusTarget | null>(async ({ input }) => {
        statuses.push(input?.status ?? 'none');
        await new Promise<void>(
          (ok, fail) => (settleStatus = (failed) => (failed ? fail(new Error('500')) : ok())),
        );
      }),
    },
  });
  const actor = createActor(logic, { clock, input: request(kind) });
  actor.subscribe({ error: () => {} });
  actor.start();
  return { actor, clock, asks, statuses, write: () => settleWrite!, status: () => settleStatus! };
}

async function replay(kind: Kind, events: EventObject[]) {
  const live = liveSender(kind);
  let granted = 0;
  for (const event of events) {
    if (event.type === 'xstate.done.actor.write')
      live.write().ok((event as unknown as { output: unknown }).output);
    else if (event.type === 'xstate.error.actor.write')
      live.write().fail((event as unknown as { error: unknown }).error);
    else if (event.type === 'xstate.done.actor.setStatus') live.status()(false);
    else if (event.type === 'xstate.error.actor.setStatus') live.status()(true);
    else if (event.type.startsWith('xstate.after.')) live.clock.increment(RETRY_IN_MS);
    else {
      if (event.type === 'budget.granted') granted++;
      live.actor.send(event as never);
    }
    await settle();
  }
  return { ...live, granted };
}

describe('frame sender: every path of the graph, replayed on a live actor', () => {
  for (const kind of ['none', 'progress', 'clear'] as const) {
    it(`keeps its promises (${kind})`, async () => {
      const { paths, adjacency } = graphOf(kind);
      expect(Object.keys(adjacency).length).toBeGreaterThan(2);
      for (const path of paths) {
        const events = path.steps.slice(1).map((step) => step.event as EventObject);
        const live = await replay(kind, events);
        const snapshot = live.actor.getSnapshot();
        // The model and the live actor agree on where the sender is.
        expect(snapshot.status === 'error' ? 'failed' : snapshot.value, JSON.stringify(events)).toEqual(
          (path.state as Snap).value,
        );
        // A status is set only with a token; a clear asks at most STATUS_CLEAR_ROUNDS times.
        expect(live.statuses.length).toBeLessThanOrEqual(live.granted);
        expect(live.asks.length).toBeLessThanOrEqual(
          STATUS_CLEAR_ROUNDS + events.filter((e) => e.type === 'frame.recover').length,
        );
        if (kind === 'none') expect(live.asks).toEqual([]);
        live.actor.stop();
      }
    });
  }
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
    const live = await replay('progress', [EVENTS[0]!, EVENTS[3]!]);
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
