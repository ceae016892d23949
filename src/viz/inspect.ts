/**
 * Inspecting the running actors, chosen by `TURNLOG_INSPECT`:
 * - a file path (`TURNLOG_INSPECT=trace.jsonl`): an offline trace, one JSON
 *   line per XState inspection event (actor created, event sent, snapshot,
 *   action, microstep), small and JSON-safe: no actor refs, no contexts,
 *   payloads cut short;
 * - `stately`: live inspection in Stately's web inspector (see `createStatelyInspector`).
 *
 * Pass the result as `createActor(machine, { inspect })`; undefined when unset.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { resolve } from 'node:path';
import type { InspectionEvent } from 'xstate';
import { type JsonValue, toJsonSafe } from './json-safe.js';

export type InspectCallback = (event: InspectionEvent) => void;

export const INSPECT_ENV = 'TURNLOG_INSPECT';

export interface InspectorOptions {
  /** Clock for trace timestamps (ms since the epoch). */
  now?: () => number;
  /** Where warnings go (the live inspector failing, offline). Default stderr. */
  warn?: (message: string) => void;
  /** Loads the live inspector; replaced in tests, which have no network. */
  loadStately?: (onError: (error: unknown) => void) => Promise<InspectCallback>;
}

/**
 * The inspect callback `TURNLOG_INSPECT` asks for, or undefined. Call it once
 * per process and give the callback to every root actor: each call opens the
 * trace file (or a live session) again.
 */
export function createInspector(
  env: NodeJS.ProcessEnv = process.env,
  options: InspectorOptions = {},
): InspectCallback | undefined {
  const setting = env[INSPECT_ENV]?.trim();
  if (!setting) return undefined;
  const warn = options.warn ?? ((message: string) => process.stderr.write(`turnlog: ${message}\n`));
  if (setting === 'stately') return createStatelyInspector(options.loadStately ?? loadSkyInspector, warn);
  if (/^(?:1|true|yes|on)$/i.test(setting)) {
    throw new Error(
      `${INSPECT_ENV}="${setting}" is not a file path: set it to a trace file (e.g. ${INSPECT_ENV}=trace.jsonl) or to "stately"`,
    );
  }
  const trace = createTraceInspector(resolve(setting), options.now);
  // Every line is written synchronously, so only the descriptor is left to close, at exit.
  process.once('exit', trace.close);
  return trace.inspect;
}

export interface TraceInspector {
  inspect: InspectCallback;
  /** Closes the file; later events are ignored. */
  close(): void;
}

/** Appends one JSON line per inspection event to `path`, synchronously (nothing is lost on a crash). */
export function createTraceInspector(path: string, now: () => number = Date.now): TraceInspector {
  let fd: number | null;
  try {
    fd = openSync(path, 'a');
  } catch (error) {
    throw new Error(
      `${INSPECT_ENV}: cannot open the trace file ${path}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  return {
    inspect(event) {
      if (fd !== null) writeSync(fd, `${JSON.stringify(traceLine(event, now()))}\n`);
    },
    close() {
      if (fd === null) return;
      closeSync(fd);
      fd = null;
    },
  };
}

/** One trace line: what happened, to which actor, and the state it is in, never the context. */
export interface TraceLine {
  ts: number;
  type: string;
  /** Session id of the root actor of the system. */
  root: string;
  /** Session id of the actor concerned (the receiver, for an event). */
  actor: string;
  /** The actor's id (`turn:0`), and its system id when it has one. */
  id?: string;
  systemId?: string;
  /**
   * The turn a turn actor runs (its child id is a slot its space reuses, so
   * the id alone does not say which turn a line is about).
   */
  turnId?: string;
  /** The machine id, on `@xstate.actor`. */
  machine?: string;
  /** Session id of the sender of an event. */
  source?: string;
  /** The event type. */
  event?: string;
  /** The event's other fields, made small and JSON-safe. */
  payload?: JsonValue;
  /** The state value after a snapshot or microstep. */
  value?: JsonValue;
  status?: string;
  error?: JsonValue;
  output?: JsonValue;
  /** The action type and its params. */
  action?: string;
  params?: JsonValue;
  /** `source → target` of each transition taken in a microstep. */
  transitions?: string[];
}

export function traceLine(event: InspectionEvent, ts: number): TraceLine {
  const ref = event.actorRef as { sessionId: string; id?: unknown; systemId?: unknown; logic?: unknown };
  const line: TraceLine = { ts, type: event.type, root: event.rootId, actor: ref.sessionId };
  if (typeof ref.id === 'string') line.id = ref.id;
  if (typeof ref.systemId === 'string') line.systemId = ref.systemId;
  const turnId = turnIdOf(event);
  if (turnId !== undefined) line.turnId = turnId;
  switch (event.type) {
    case '@xstate.actor': {
      const machineId = (ref.logic as { id?: unknown } | undefined)?.id;
      if (typeof machineId === 'string') line.machine = machineId;
      break;
    }
    case '@xstate.event': {
      if (event.sourceRef) line.source = event.sourceRef.sessionId;
      Object.assign(line, eventFields(event.event));
      break;
    }
    case '@xstate.snapshot':
    case '@xstate.transition':
    case '@xstate.microstep': {
      line.event = event.event.type;
      Object.assign(line, snapshotFields(event.snapshot));
      if (event.type === '@xstate.microstep') {
        line.transitions = event._transitions.map(
          (t) => `${t.source.id} → ${(t.target ?? [t.source]).map((n) => n.id).join(', ')}`,
        );
      }
      break;
    }
    case '@xstate.action': {
      line.action = event.action.type;
      if (event.action.params !== undefined) line.params = toJsonSafe(event.action.params);
      break;
    }
  }
  return line;
}

/** The `turnId` in the context of the actor concerned (a turn actor), if any; the rest of the context stays out. */
function turnIdOf(event: InspectionEvent): string | undefined {
  let snapshot: unknown;
  if ('snapshot' in event) snapshot = event.snapshot;
  else if (event.type !== '@xstate.actor') {
    // The receiver's current snapshot; an actor being created has none yet.
    try {
      snapshot = (event.actorRef as { getSnapshot?: () => unknown }).getSnapshot?.();
    } catch {
      return undefined;
    }
  }
  const turnId = (snapshot as { context?: { turnId?: unknown } } | undefined)?.context?.turnId;
  return typeof turnId === 'string' ? turnId : undefined;
}

function eventFields(event: { type: string }): Pick<TraceLine, 'event' | 'payload'> {
  const { type, ...rest } = event as { type: string } & Record<string, unknown>;
  return Object.keys(rest).length === 0 ? { event: type } : { event: type, payload: toJsonSafe(rest) };
}

function snapshotFields(snapshot: unknown): Pick<TraceLine, 'value' | 'status' | 'error' | 'output'> {
  const s = snapshot as { value?: unknown; status?: unknown; error?: unknown; output?: unknown };
  const fields: Pick<TraceLine, 'value' | 'status' | 'error' | 'output'> = {};
  if (s.value !== undefined) fields.value = toJsonSafe(s.value);
  if (typeof s.status === 'string') fields.status = s.status;
  if (s.status === 'error') fields.error = toJsonSafe(s.error);
  if (s.status === 'done' && s.output !== undefined) fields.output = toJsonSafe(s.output);
  return fields;
}

/**
 * Live inspection with `@statelyai/inspect`'s sky inspector, for a
 * developer's own machine: it streams every event and snapshot, contexts
 * included, to stately.ai over a websocket and prints a link to watch them,
 * so never turn it on where turn logs must stay private. It needs the
 * network; offline it fails softly: one warning, and the actors run as usual
 * (the socket keeps retrying and queueing in the background, so do not leave
 * it on). The module is loaded on first use (it is slow to load), and the
 * events of that first moment are held and forwarded.
 */
export function createStatelyInspector(
  load: (onError: (error: unknown) => void) => Promise<InspectCallback>,
  warn: (message: string) => void,
  maxHeld = 10_000,
): InspectCallback {
  let warned = false;
  const onError = (error: unknown) => {
    if (warned) return;
    warned = true;
    warn(`live inspection (${INSPECT_ENV}=stately) is unavailable, offline? ${describe(error)}`);
  };
  let target: InspectCallback | null = null;
  let failed = false;
  const held: InspectionEvent[] = [];
  const forward = (event: InspectionEvent) => {
    if (failed || !target) return;
    try {
      target(event);
    } catch (error) {
      // The inspector must never break an actor: stop using it.
      failed = true;
      onError(error);
    }
  };
  load(onError).then(
    (loaded) => {
      target = loaded;
      for (const event of held.splice(0)) forward(event);
    },
    (error: unknown) => {
      failed = true;
      held.length = 0;
      onError(error);
    },
  );
  return (event) => {
    if (target) forward(event);
    else if (!failed) {
      if (held.length >= maxHeld) held.shift();
      held.push(event);
    }
  };
}

async function loadSkyInspector(onError: (error: unknown) => void): Promise<InspectCallback> {
  const { createSkyInspector } = await import('@statelyai/inspect');
  const inspector = createSkyInspector({ onerror: onError });
  return (event) => inspector.inspect.next?.(event);
}

function describe(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'object' && error !== null && 'message' in error) return String(error.message);
  return String(error);
}
