/** Surfaces for the runtime benchmark: a counting wrapper, and a surface that keeps nothing. */

import type { ChatSurface, PostedMessage } from '../../src/surfaces/surface.js';
import { MEMORY_SURFACE_CAPABILITIES } from '../../src/testing/memory-surface.js';

export interface SurfaceWrites {
  post: number;
  edit: number;
  react: number;
}

/** A surface that counts the calls made through it and knows how many are still in flight. */
export interface CountingSurface extends ChatSurface {
  readonly writes: Readonly<SurfaceWrites>;
  readonly inFlight: number;
}

export function countingSurface(inner: ChatSurface): CountingSurface {
  const writes: SurfaceWrites = { post: 0, edit: 0, react: 0 };
  let inFlight = 0;
  const track = <T>(op: keyof SurfaceWrites, call: () => Promise<T>): Promise<T> => {
    writes[op] += 1;
    inFlight += 1;
    return call().finally(() => {
      inFlight -= 1;
    });
  };
  return {
    platform: inner.platform,
    capabilities: inner.capabilities,
    writes,
    get inFlight() {
      return inFlight;
    },
    post: (req, opts) => track('post', () => inner.post(req, opts)),
    edit: (req, opts) => track('edit', () => inner.edit(req, opts)),
    react: (req, opts) => track('react', () => inner.react(req, opts)),
  };
}

/**
 * A Google Chat surface that remembers nothing: every post gets a fresh id,
 * every edit succeeds. The memory surface records every call and keeps every
 * message, which would hide the runtime's own heap behind the surface's.
 */
export function forgetfulSurface(): ChatSurface {
  let ordinal = 0;
  return {
    platform: 'gchat',
    capabilities: MEMORY_SURFACE_CAPABILITIES.gchat,
    async post(req): Promise<PostedMessage> {
      ordinal += 1;
      const messageId = `m${ordinal}`;
      // A threaded post lands in the thread (its root's id when the thread id is not known yet).
      const threadId = req.thread ? (req.thread.threadId ?? req.thread.rootMessageId) : undefined;
      return threadId === undefined ? { messageId } : { messageId, threadId };
    },
    async edit() {},
    async react() {},
  };
}
