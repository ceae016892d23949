/**
 * A post that a retry (after a timeout, a crash, a restart) never duplicates:
 * platforms with idempotent creates (Google Chat `requestId`) get the client
 * id and answer with the existing message; elsewhere the recorded ref of the
 * client id is looked up first.
 */
import { fromPromise } from 'xstate';
import type { Clock } from '../clock.js';

/** What pacing needs of the runtime's clock (XState's actor-system clock: the system clock, or a SimulatedClock in tests). */
export type Timers = Pick<Clock, 'setTimeout' | 'clearTimeout'>;

import type { PlatformRegistry } from '../registry/registry.js';
import type { TurnlogStore } from '../store/store.js';
import {
  type ChatSurface,
  type EditRequest,
  type PostedMessage,
  type PostRequest,
  SurfaceError,
} from '../surfaces/surface.js';

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

function isSurface(value: unknown): value is ChatSurface {
  return typeof (value as ChatSurface).post === 'function';
}

/**
 * A surface that knows, from its platform's own rate-limit answers (Discord's
 * `X-RateLimit-*` headers), how long before a call would be admitted: 0 to go.
 */
export interface PacedSurface {
  waitMsFor(
    call: 'post' | 'edit' | 'typing',
    req: { space: string; threadId?: string; messageId?: string },
  ): number;
}

function isPaced(surface: ChatSurface): surface is ChatSurface & PacedSurface {
  return typeof (surface as Partial<PacedSurface>).waitMsFor === 'function';
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
 * Waits, on the runtime's clock, until a self-pacing surface says the call
 * would be admitted: a write the platform's headers say would 429 is delayed
 * instead of sent (and counted against the bot). Other surfaces go at once.
 */
export async function paceFor(
  surface: ChatSurface,
  call: 'post' | 'edit' | 'typing',
  req: { space: string; threadId?: string; messageId?: string },
  clock: Timers,
  signal: AbortSignal,
): Promise<void> {
  if (!isPaced(surface)) return;
  for (let round = 0; round < PACING_ROUNDS; round += 1) {
    const wait = surface.waitMsFor(call, req);
    if (!(wait > 0)) return;
    await sleepOn(clock, wait, signal);
  }
}

export const postActor = (surfaceFor: SurfaceFor, refs: PostRefs | undefined) =>
  fromPromise<PostedMessage, PostRequest>(async ({ input, signal, system }) => {
    const surface = surfaceFor(input.space);
    const threadId = input.thread?.threadId;
    await paceFor(
      surface,
      'post',
      { space: input.space, ...(threadId ? { threadId } : {}) },
      system._clock,
      signal,
    );
    return postOnce(surface, refs, input, signal);
  });

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
