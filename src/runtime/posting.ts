/**
 * A post that a retry (after a timeout, a crash, a restart) never duplicates:
 * platforms with idempotent creates (Google Chat `requestId`) get the client
 * id and answer with the existing message; elsewhere the recorded ref of the
 * client id is looked up first.
 */
import { fromPromise } from 'xstate';
import { builtinPlatforms, type PlatformRegistry } from '../platforms/registry.js';
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
  platforms: PlatformRegistry = builtinPlatforms,
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

export const postActor = (surfaceFor: SurfaceFor, refs: PostRefs | undefined) =>
  fromPromise<PostedMessage, PostRequest>(({ input, signal }) =>
    postOnce(surfaceFor(input.space), refs, input, signal),
  );

export const editActor = (surfaceFor: SurfaceFor) =>
  fromPromise<void, EditRequest>(({ input, signal }) => surfaceFor(input.space).edit(input, { signal }));

/**
 * The budget's per-channel spacing key: what the platform rate-limits as one
 * channel (its descriptor's `rateChannel`).
 */
export function rateChannel(
  space: string,
  threadId: string | undefined,
  platforms: PlatformRegistry = builtinPlatforms,
): string {
  return platforms.forSpace(space).rateChannel(space, threadId);
}
