/**
 * A proactive turn (a title, no root message) posts a `🕒 <title>` header
 * and threads its log under it: its thread is known only to the turn actor
 * (its `anchor`, set when the header landed). What else the space posts for
 * that turn, its approval and question cards, goes in the same thread.
 */
import type { AnyActorRef } from 'xstate';
import { turnChildId } from '../../machines/space.machine.js';
import type { ThreadAnchor } from '../surfaces/surface.js';

/** The anchor a live turn's header gave it, read from the turn actor in `slot`; null when none yet. */
export function headerAnchorOf(self: AnyActorRef, slot: number | null): ThreadAnchor | null {
  if (slot === null) return null;
  const children = (self.getSnapshot() as { children?: Record<string, AnyActorRef | undefined> }).children;
  const turn = children?.[turnChildId(slot)]?.getSnapshot() as { context?: { anchor?: unknown } } | undefined;
  const anchor = turn?.context?.anchor;
  return typeof anchor === 'object' && anchor !== null ? (anchor as ThreadAnchor) : null;
}
