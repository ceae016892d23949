/**
 * Writes to one message never overtake each other (issue 22.1): a surface
 * wrapped here sends at most one edit per message at a time, in order; a
 * newer frame supersedes one still queued; and once a final frame (an ended
 * log's headline, a decided card) has landed, an older frame sent or retried
 * after it is dropped instead of overwriting it. The final frame is the last
 * write.
 *
 * A caller that gives up (its actor stopped, its signal aborted) is answered
 * at once, but a write already sent is not cut off: an aborted HTTP request
 * may still land, so the next write waits for it to settle. The same holds
 * for a create with a client id: a second create with that id waits for the
 * first and gets its message, rather than making another.
 *
 * The runtime installs it around every surface (src/runtime.ts), so turns,
 * cards, stray logs and answers all get it.
 */
import type { SurfaceFrame } from './frame.js';
import {
  type CallOpts,
  type ChatSurface,
  type EditRequest,
  isSurfaceError,
  type PostedMessage,
  type PostRequest,
} from './surface.js';

/** How many messages' final state (and landed client ids) are remembered; the oldest are forgotten first. */
export const REMEMBERED_MESSAGES = 10_000;

const ORDERED = Symbol.for('turnlog.orderedWrites');

/** Is this the last frame a message should show: an ended log, or a card someone decided? */
export function isFinalFrame(frame: SurfaceFrame): boolean {
  if (frame.kind === 'log') return frame.headline !== undefined && frame.headline.state !== 'running';
  if (frame.kind === 'card') return frame.card.outcome !== undefined;
  return false;
}

interface Pending {
  req: EditRequest;
  final: boolean;
  /** Settles the caller's promise (once; later calls do nothing). */
  settle(error?: unknown): void;
}

interface Lane {
  running: boolean;
  queued: Pending | undefined;
}

function abortError(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The surface call was aborted', 'AbortError');
}

/** A map that forgets its oldest keys past `max`. */
function boundedSet(max: number) {
  const keys = new Set<string>();
  return {
    has: (key: string) => keys.has(key),
    add(key: string) {
      keys.delete(key);
      keys.add(key);
      if (keys.size > max) keys.delete(keys.values().next().value as string);
    },
  };
}

/** Answers the caller when `work` settles, or at once when its signal aborts (the work goes on). */
function detached<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return work;
  if (signal.aborted) return Promise.reject(abortError(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortError(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/** `surface` with its writes ordered per message (everything else passes through). Wrapping twice changes nothing. */
export function orderWrites<S extends ChatSurface>(surface: S): S {
  if ((surface as { [ORDERED]?: true })[ORDERED]) return surface;
  const lanes = new Map<string, Lane>();
  const ended = boundedSet(REMEMBERED_MESSAGES);
  const creates = new Map<string, Promise<PostedMessage>>();
  const created = new Map<string, PostedMessage>();
  const keyOf = (req: Pick<EditRequest, 'space' | 'messageId'>) => `${req.space}\u0000${req.messageId}`;

  function pump(key: string, lane: Lane): void {
    const next = lane.queued;
    if (lane.running || next === undefined) {
      if (!lane.running && next === undefined) lanes.delete(key);
      return;
    }
    lane.queued = undefined;
    // A frame older than the final one that landed while it waited is not sent.
    if (!next.final && ended.has(key)) {
      next.settle();
      pump(key, lane);
      return;
    }
    lane.running = true;
    surface.edit(next.req).then(
      () => {
        if (next.final) ended.add(key);
        lane.running = false;
        next.settle();
        pump(key, lane);
      },
      (error: unknown) => {
        lane.running = false;
        next.settle(error ?? new Error('edit failed'));
        pump(key, lane);
      },
    );
  }

  function edit(req: EditRequest, opts?: CallOpts): Promise<void> {
    const key = keyOf(req);
    const final = isFinalFrame(req.frame);
    // A retried or late frame after the message's final one: the final frame stays.
    if (!final && ended.has(key)) return Promise.resolve();
    const signal = opts?.signal;
    if (signal?.aborted) return Promise.reject(abortError(signal));
    let lane = lanes.get(key);
    if (lane === undefined) {
      lane = { running: false, queued: undefined };
      lanes.set(key, lane);
    }
    const queuedFinal = lane.queued?.final === true;
    // A queued final frame is not superseded by an older-state one sent after it.
    if (queuedFinal && !final) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      let settled = false;
      const pending: Pending = {
        req,
        final,
        settle(error) {
          if (settled) return;
          settled = true;
          signal?.removeEventListener('abort', onAbort);
          if (error === undefined) resolve();
          else reject(error);
        },
      };
      const onAbort = () => {
        // Still queued: it is never sent. Already sent: the caller stops waiting, the lane waits for it.
        if (lane.queued === pending) lane.queued = undefined;
        pending.settle(abortError(signal as AbortSignal));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      // The newer frame shows everything the queued one did: the queued one is done without being sent.
      lane.queued?.settle();
      lane.queued = pending;
      pump(key, lane);
    });
  }

  /**
   * An uncertain create (5xx, timeout: it may have landed) is sent once more with the same client id at
   * once: the platform answers with the message it made (Google Chat `requestId`, Discord `nonce`; Slack
   * finds it by its metadata first), so the caller never posts the same thing under a new id beside an orphan.
   */
  async function postReconciled(req: PostRequest): Promise<PostedMessage> {
    try {
      return await surface.post(req);
    } catch (error) {
      if (!isSurfaceError(error) || error.kind !== 'transient') throw error;
      return surface.post(req);
    }
  }

  function post(req: PostRequest, opts?: CallOpts): Promise<PostedMessage> {
    const { clientId } = req;
    if (clientId === undefined) return surface.post(req, opts);
    const key = `${req.space}\u0000${clientId}`;
    const known = created.get(key);
    if (known !== undefined) return Promise.resolve(known);
    // A create with this client id is still on its way: its message is this one's.
    const inFlight = creates.get(key);
    const work =
      inFlight ??
      postReconciled(req).then(
        (posted) => {
          created.set(key, posted);
          if (created.size > REMEMBERED_MESSAGES) created.delete(created.keys().next().value as string);
          creates.delete(key);
          return posted;
        },
        (error: unknown) => {
          creates.delete(key);
          throw error;
        },
      );
    if (inFlight === undefined) creates.set(key, work);
    return detached(work, opts?.signal);
  }

  const ordered = Object.create(surface) as S;
  Object.defineProperties(ordered, {
    edit: { value: edit, enumerable: true },
    post: { value: post, enumerable: true },
    [ORDERED]: { value: true },
  });
  return ordered;
}

/** Every surface of a platform map, ordered (the runtime's surfaces). */
export function orderedSurfaces<T extends Partial<Record<string, ChatSurface>>>(surfaces: T): T {
  const out: Partial<Record<string, ChatSurface>> = {};
  for (const [platform, surface] of Object.entries(surfaces)) {
    if (surface !== undefined) out[platform] = orderWrites(surface);
  }
  return out as T;
}
