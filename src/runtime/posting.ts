/**
 * A post that a retry (after a timeout, a crash, a restart) never duplicates:
 * platforms with idempotent creates (Google Chat `requestId`) get the client
 * id and answer with the existing message; elsewhere the recorded ref of the
 * client id is looked up first.
 */
import { fromPromise } from 'xstate';
import type { TurnlogStore } from '../store/store.js';
import type { ChatSurface, EditRequest, PostedMessage, PostRequest } from '../surfaces/surface.js';

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

export const postActor = (surface: ChatSurface, refs: PostRefs | undefined) =>
  fromPromise<PostedMessage, PostRequest>(({ input, signal }) => postOnce(surface, refs, input, signal));

export const editActor = (surface: ChatSurface) =>
  fromPromise<void, EditRequest>(({ input, signal }) => surface.edit(input, { signal }));
