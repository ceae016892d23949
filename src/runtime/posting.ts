/**
 * Every write a machine makes goes through here: the one factory of the
 * post/edit actors (`createWriteActors`) over paced calls (`createPacedCalls`),
 * which the stray log's batched writes use too.
 *
 * A post that a retry (after a timeout, a crash, a restart) never duplicates:
 * platforms with idempotent creates (Google Chat `requestId`) get the client
 * id and answer with the existing message; elsewhere the recorded ref of the
 * client id is looked up first.
 */
import { type AnyActorRef, fromPromise } from 'xstate';
import type { Clock } from '../clock.js';
import type { PlatformRegistry } from '../registry/registry.js';
import type { TurnlogStore } from '../store/store.js';
import {
  type ChatSurface,
  type EditRequest,
  type PacedCall,
  type PostedMessage,
  type PostRequest,
  SurfaceError,
  type TypingRequest,
} from '../surfaces/surface.js';

/** What waiting needs of the runtime's clock (the system clock, or a SimulatedClock in tests). */
export type Timers = Pick<Clock, 'setTimeout' | 'clearTimeout'>;

export type PostRefs = Pick<TurnlogStore, 'recordPost' | 'lookupPost'>;

export async function postOnce(
  surface: ChatSurface,
  refs: PostRefs | undefined,
  request: PostRequest,
  signal?: AbortSignal,
): Promise<PostedMessage> {
  const { clientId } = request;
  if (clientId && refs && !surface.capabilities.idempotentCreate) {
    const known = await refs.lookupPost(clientId);
    if (known) return known;
  }
  const posted = await surface.post(request, signal ? { signal } : {});
  if (clientId && refs) await refs.recordPost(clientId, posted);
  return posted;
}

/** The surface that serves a platform-prefixed space. */
export type SurfaceFor = (space: string) => ChatSurface;

/** One surface for every space, or one per platform id (the space's prefix picks it). */
export type SurfacesByPlatform = Readonly<Partial<Record<string, ChatSurface>>>;

export function surfaceResolver(
  surfaces: ChatSurface | SurfacesByPlatform,
  platforms: PlatformRegistry,
): SurfaceFor {
  if (isSurface(surfaces)) return () => surfaces;
  return (space) => {
    const platform = platforms.forSpace(space).id;
    const surface = surfaces[platform];
    if (!surface) throw new SurfaceError('invalid', `no ${platform} surface is configured (space ${space})`);
    return surface;
  };
}

function isSurface(value: ChatSurface | SurfacesByPlatform): value is ChatSurface {
  return typeof value.post === 'function';
}

/** How often a call waits for its surface's pacing before it is sent anyway (the surface then refuses it as rate-limited). */
const PACING_ROUNDS = 4;

/** Waits `ms` on the runtime's clock; rejects with the signal's reason when it aborts. */
export function sleepOn(clock: Timers, ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clock.clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = clock.setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Waits, on the runtime's clock, until a surface that paces itself
 * (`ChatSurface.pacing`) says the call would be admitted: a write the
 * platform's headers say would 429 is delayed instead of sent (and counted
 * against the bot). Other surfaces go at once.
 */
export async function paceFor(
  surface: ChatSurface,
  call: PacedCall,
  req: { space: string; threadId?: string; messageId?: string },
  clock: Timers,
  signal: AbortSignal,
): Promise<void> {
  const pacing = surface.pacing;
  if (pacing === undefined) return;
  for (let round = 0; round < PACING_ROUNDS; round += 1) {
    const wait = pacing.waitMsFor(call, req);
    if (!(wait > 0)) return;
    await sleepOn(clock, wait, signal);
  }
}

export interface WriteDeps {
  surfaceFor: SurfaceFor;
  /** Post refs by client id (a retried post on a platform without idempotent creates finds its message). */
  refs?: PostRefs | undefined;
  /** The runtime's clock, which pacing waits on. */
  clock: Timers;
}

/** A surface's writes, each paced first; a post never duplicated by a retry (`postOnce`). */
export interface PacedCalls {
  /** `onSend`: called once paced, just before the create goes out. */
  post(req: PostRequest, signal: AbortSignal, onSend?: () => void): Promise<PostedMessage>;
  edit(req: EditRequest, signal: AbortSignal): Promise<void>;
  /** Nothing on a surface without typing. */
  typing(req: TypingRequest, signal: AbortSignal): Promise<void>;
}

/** Only the request's own fields reach the surface (a machine's input may carry more). */
const postRequestOf = ({ space, frame, thread, silent, clientId }: PostRequest): PostRequest => ({
  space,
  frame,
  ...(thread !== undefined ? { thread } : {}),
  ...(silent !== undefined ? { silent } : {}),
  ...(clientId !== undefined ? { clientId } : {}),
});
const editRequestOf = ({ space, messageId, frame, threadId }: EditRequest): EditRequest => ({
  space,
  messageId,
  frame,
  ...(threadId !== undefined ? { threadId } : {}),
});

export function createPacedCalls({ surfaceFor, refs, clock }: WriteDeps): PacedCalls {
  return {
    async post(req, signal, onSend) {
      const surface = surfaceFor(req.space);
      const threadId = req.thread?.threadId;
      await paceFor(surface, 'post', { space: req.space, ...(threadId ? { threadId } : {}) }, clock, signal);
      onSend?.();
      return postOnce(surface, refs, postRequestOf(req), signal);
    },
    async edit(req, signal) {
      const surface = surfaceFor(req.space);
      const { space, threadId, messageId } = req;
      await paceFor(surface, 'edit', { space, messageId, ...(threadId ? { threadId } : {}) }, clock, signal);
      await surface.edit(editRequestOf(req), { signal });
    },
    async typing(req, signal) {
      const surface = surfaceFor(req.space);
      if (surface.typing === undefined) return;
      await paceFor(surface, 'typing', req, clock, signal);
      await surface.typing(req, { signal });
    },
  };
}

/** What a hook is given besides the write: the actor's abort signal and its system (the budget actor). */
export interface WriteScope {
  signal: AbortSignal;
  system: { get(systemId: string): AnyActorRef | undefined };
}

/** What a machine adds around a write: the turn registers its card and shows its status after it lands. */
export interface WriteHooks<P extends PostRequest, E extends EditRequest> {
  /** Stamps a post once paced, just before it is sent (the platform starts its edit window no earlier). */
  stamp?: () => number;
  afterPost?(input: P, posted: PostedMessage, scope: WriteScope): Promise<void>;
  afterEdit?(input: E, scope: WriteScope): Promise<void>;
  /** The frame as written (issue 25: a turn's log gets its run page link). */
  prepare?<R extends { frame: PostRequest['frame']; turnId?: string }>(input: R): R;
}

/** A post's output: the message, and when it was sent when the machine asked (`stamp`). */
export type PostOutput = PostedMessage & { postedAt?: number };

/**
 * A frame to write: a post (its placement), or with `messageId` an edit of
 * that message. A machine's input may carry more (the turn's `turnId`, `stopFor`).
 */
export interface WriteRequest extends Omit<PostRequest, 'frame'> {
  frame: PostRequest['frame'];
  messageId?: string;
  threadId?: string;
}

/** The one factory of the post and edit actors every machine invokes. */
export function createWriteActors<P extends PostRequest = PostRequest, E extends EditRequest = EditRequest>(
  deps: WriteDeps,
  hooks: WriteHooks<P, E> = {},
) {
  const calls = createPacedCalls(deps);
  const post = async (input: P, scope: WriteScope): Promise<PostOutput> => {
    let postedAt: number | undefined;
    const posted = await calls.post(input, scope.signal, () => {
      postedAt = hooks.stamp?.();
    });
    await hooks.afterPost?.(input, posted, scope);
    return postedAt === undefined ? posted : { ...posted, postedAt };
  };
  const edit = async (input: E, scope: WriteScope): Promise<void> => {
    await calls.edit(input, scope.signal);
    await hooks.afterEdit?.(input, scope);
  };
  return {
    postMessage: fromPromise<PostOutput, P>(({ input, signal, system }) => post(input, { signal, system })),
    editMessage: fromPromise<void, E>(({ input, signal, system }) => edit(input, { signal, system })),
    /** A post, or an edit of `messageId`; either way the message that landed is the output. */
    writeFrame: fromPromise<PostOutput, P & WriteRequest>(async ({ input: bare, signal, system }) => {
      const input = hooks.prepare ? hooks.prepare(bare) : bare;
      const { messageId } = input;
      if (messageId === undefined) return post(input, { signal, system });
      const { space, frame, threadId } = input;
      await edit({ space, messageId, frame, ...(threadId ? { threadId } : {}) } as E, { signal, system });
      return { messageId, ...(threadId ? { threadId } : {}) };
    }),
    showTyping: fromPromise<void, TypingRequest>(({ input, signal }) => calls.typing(input, signal)),
  };
}

/**
 * The budget's per-channel spacing key: what the platform rate-limits as one
 * channel (its descriptor's `rateChannel`).
 */
export function rateChannel(
  space: string,
  threadId: string | undefined,
  platforms: PlatformRegistry,
): string {
  return platforms.forSpace(space).rateChannel(space, threadId);
}
