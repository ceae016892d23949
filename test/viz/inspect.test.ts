/**
 * TURNLOG_INSPECT: the offline trace (one small JSON line per actor event)
 * and the live inspector's soft failure (spec: actor-runtime issue item 8,
 * "an offline trace (`TURNLOG_INSPECT=trace.jsonl`) of every actor event").
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createActor, createMachine, type InspectionEvent, setup } from 'xstate';
import {
  createInspector,
  createStatelyInspector,
  createTraceInspector,
  type InspectCallback,
  type TraceLine,
} from '../../src/viz/inspect.js';

const CONTEXT_SECRET = 'ONLY-IN-CONTEXT-4711';

const tracedMachine = setup({
  types: { events: {} as { type: 'GO'; text: string; replyTo: unknown } | { type: 'STOP' } },
  actions: { note: (_, _params: { text: string }) => {} },
}).createMachine({
  id: 'traced',
  context: { secret: CONTEXT_SECRET },
  initial: 'idle',
  states: {
    idle: {
      on: {
        GO: { target: 'busy', actions: { type: 'note', params: ({ event }) => ({ text: event.text }) } },
      },
    },
    busy: { on: { STOP: 'done' } },
    done: { type: 'final' },
  },
});

const other = createActor(createMachine({ id: 'other', initial: 'a', states: { a: {} } }));

/** Runs the traced machine through GO (with a big payload and an actor ref) and STOP. */
function drive(inspect: InspectCallback) {
  const actor = createActor(tracedMachine, { inspect });
  actor.start();
  actor.send({ type: 'GO', text: 'x'.repeat(5000), replyTo: other });
  actor.send({ type: 'STOP' });
  return actor;
}

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'turnlog-inspect-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function readTrace(path: string): Promise<{ text: string; lines: TraceLine[] }> {
  const text = await readFile(path, 'utf8');
  return {
    text,
    lines: text
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as TraceLine),
  };
}

describe('the trace inspector', () => {
  it('writes one JSON line per inspection event, with the clock’s timestamp', async () => {
    const path = join(dir, 'trace.jsonl');
    const trace = createTraceInspector(path, () => 1_700_000_000_000);
    const actor = drive(trace.inspect);
    trace.close();
    const { text, lines } = await readTrace(path);
    expect(text.endsWith('\n')).toBe(true);
    expect(lines.length).toBeGreaterThan(5);
    expect(new Set(lines.map((l) => l.ts))).toEqual(new Set([1_700_000_000_000]));
    expect(new Set(lines.map((l) => l.actor))).toEqual(new Set([actor.sessionId]));
    const types = new Set(lines.map((l) => l.type));
    for (const type of [
      '@xstate.actor',
      '@xstate.event',
      '@xstate.snapshot',
      '@xstate.action',
      '@xstate.microstep',
    ]) {
      expect(types).toContain(type);
    }
  });

  it('records the actor, events with their payload, target states, actions and transitions', async () => {
    const path = join(dir, 'trace.jsonl');
    const trace = createTraceInspector(path);
    const actor = drive(trace.inspect);
    trace.close();
    const { lines } = await readTrace(path);
    expect(lines[0]).toMatchObject({ type: '@xstate.actor', actor: actor.sessionId, machine: 'traced' });
    const go = lines.find((l) => l.type === '@xstate.event' && l.event === 'GO');
    expect(go?.payload).toMatchObject({ replyTo: `[actor ${other.sessionId}]` });
    expect(lines.find((l) => l.type === '@xstate.snapshot' && l.event === 'GO')).toMatchObject({
      value: 'busy',
      status: 'active',
    });
    expect(lines.find((l) => l.type === '@xstate.snapshot' && l.event === 'STOP')).toMatchObject({
      value: 'done',
      status: 'done',
    });
    expect(lines.find((l) => l.type === '@xstate.action')).toMatchObject({ action: 'note' });
    expect(lines.flatMap((l) => l.transitions ?? [])).toContain('traced.idle → traced.busy');
  });

  it('names the turn of a turn actor (its child id is a reusable slot): turnId on each of its lines', async () => {
    const turnLike = createMachine({
      id: 'turn',
      context: { turnId: 'T-42', space: 'gchat:spaces/AAAA' },
      initial: 'idle',
      states: { idle: { on: { GO: 'busy' } }, busy: {} },
    });
    const path = join(dir, 'trace.jsonl');
    const trace = createTraceInspector(path);
    const actor = createActor(turnLike, { id: 'turn:0', inspect: trace.inspect });
    actor.start();
    actor.send({ type: 'GO' });
    drive(trace.inspect);
    trace.close();
    const { lines } = await readTrace(path);
    const ofTurn = lines.filter((l) => l.actor === actor.sessionId);
    expect(ofTurn.map((l) => l.type)).toEqual(
      expect.arrayContaining(['@xstate.event', '@xstate.snapshot', '@xstate.microstep']),
    );
    for (const line of ofTurn.filter((l) => l.type !== '@xstate.actor')) {
      expect(line).toMatchObject({ id: 'turn:0', turnId: 'T-42' });
    }
    // Other actors' lines carry no turnId, and the context itself is still never written.
    expect(lines.filter((l) => l.actor !== actor.sessionId).every((l) => l.turnId === undefined)).toBe(true);
    expect(JSON.stringify(lines)).not.toContain('gchat:spaces/AAAA');
  });

  it('keeps lines small and JSON-safe: no context, no actor ref, payloads cut short', async () => {
    const path = join(dir, 'trace.jsonl');
    const trace = createTraceInspector(path);
    drive(trace.inspect);
    trace.close();
    const { text, lines } = await readTrace(path);
    expect(text).not.toContain(CONTEXT_SECRET);
    expect(text).not.toContain('x'.repeat(300));
    for (const line of text.trimEnd().split('\n')) expect(line.length).toBeLessThan(1500);
    const go = lines.find((l) => l.type === '@xstate.event' && l.event === 'GO');
    expect(go?.payload).toMatchObject({ text: expect.stringMatching(/^x{200}… \(4800 more chars\)$/) });
  });

  it('appends to an existing trace and ignores events after close', async () => {
    const path = join(dir, 'trace.jsonl');
    const first = createTraceInspector(path);
    drive(first.inspect);
    first.close();
    const before = (await readTrace(path)).lines.length;
    const second = createTraceInspector(path);
    drive(second.inspect);
    second.close();
    const after = (await readTrace(path)).lines.length;
    expect(after).toBe(before * 2);
    second.inspect({ type: '@xstate.actor', rootId: 'x', actorRef: other } as InspectionEvent);
    expect((await readTrace(path)).lines.length).toBe(after);
  });
});

describe('createInspector', () => {
  it('returns nothing when TURNLOG_INSPECT is unset or blank', () => {
    expect(createInspector({})).toBeUndefined();
    expect(createInspector({ TURNLOG_INSPECT: '  ' })).toBeUndefined();
  });

  it('traces to the file TURNLOG_INSPECT names', async () => {
    const path = join(dir, 'from-env.jsonl');
    const inspect = createInspector({ TURNLOG_INSPECT: path });
    expect(inspect).toBeTypeOf('function');
    drive(inspect!);
    const { lines } = await readTrace(path);
    expect(lines.some((l) => l.type === '@xstate.snapshot' && l.value === 'done')).toBe(true);
  });

  it('refuses a boolean-looking value and a file it cannot open, saying what to set', () => {
    expect(() => createInspector({ TURNLOG_INSPECT: 'true' })).toThrow(
      'TURNLOG_INSPECT="true" is not a file path: set it to a trace file (e.g. TURNLOG_INSPECT=trace.jsonl) or to "stately"',
    );
    expect(() => createInspector({ TURNLOG_INSPECT: join(dir, 'no-such-dir', 't.jsonl') })).toThrow(
      /^TURNLOG_INSPECT: cannot open the trace file .*no-such-dir/,
    );
  });

  it('TURNLOG_INSPECT=stately loads the live inspector and forwards the events of the start-up moment', async () => {
    const received: string[] = [];
    let resolveLoad!: (cb: InspectCallback) => void;
    const inspect = createInspector(
      { TURNLOG_INSPECT: 'stately' },
      { loadStately: () => new Promise((resolve) => (resolveLoad = resolve)) },
    );
    drive(inspect!);
    expect(received).toEqual([]);
    resolveLoad((event) => received.push(event.type));
    await vi.waitFor(() => expect(received[0]).toBe('@xstate.actor'), { timeout: 5000 });
    const held = received.length;
    drive(inspect!);
    expect(received.length).toBe(held * 2);
  });
});

describe('the live (stately) inspector offline', () => {
  it('fails softly when it cannot load: one warning, the actors run on', async () => {
    const warnings: string[] = [];
    const inspect = createStatelyInspector(
      () => Promise.reject(new Error('getaddrinfo ENOTFOUND stately.ai')),
      (m) => warnings.push(m),
    );
    await vi.waitFor(() => expect(warnings).toHaveLength(1), { timeout: 5000 });
    expect(warnings[0]).toContain('live inspection (TURNLOG_INSPECT=stately) is unavailable');
    expect(warnings[0]).toContain('ENOTFOUND');
    expect(drive(inspect).getSnapshot().status).toBe('done');
  });

  it('warns once for repeated socket errors, and stops using an inspector that throws', async () => {
    const warnings: string[] = [];
    let calls = 0;
    const inspect = createStatelyInspector(
      async (onError) => {
        onError(new Error('socket closed'));
        onError(new Error('socket closed again'));
        return () => {
          calls++;
          throw new Error('inspector broke');
        };
      },
      (m) => warnings.push(m),
    );
    await vi.waitFor(() => expect(warnings).toHaveLength(1), { timeout: 5000 });
    expect(drive(inspect).getSnapshot().status).toBe('done');
    expect(calls).toBe(1);
    expect(warnings).toHaveLength(1);
  });

  it('holds at most maxHeld events while loading, dropping the oldest', async () => {
    const received: number[] = [];
    let resolveLoad!: (cb: InspectCallback) => void;
    const inspect = createStatelyInspector(
      () => new Promise((resolve) => (resolveLoad = resolve)),
      () => {},
      3,
    );
    for (let i = 0; i < 5; i++)
      inspect({ type: '@xstate.actor', rootId: String(i), actorRef: other } as InspectionEvent);
    resolveLoad((event) => received.push(Number(event.rootId)));
    await vi.waitFor(() => expect(received).toEqual([2, 3, 4]), { timeout: 5000 });
  });
});
