/**
 * The space supervisor's children (machines/space.machine.ts): slot-reusing
 * child ids for turns and deliveries, and what a finished delivery leaves
 * behind (dead letters). Pure functions over the space's context.
 */

import type { RunEvent, RunEventOf } from '../src/events/schema.js';
import type { DeliveryOutput } from './delivery.machine.js';
import type { InboundAnchor, SpaceContext } from './space.types.js';

/** Bounded lists in context: a space lives for the life of the process. */
export const MAX_WARNINGS = 100;

export const turnChildId = (slot: number): string => `turn:${slot}`;
export const deliveryChildId = (slot: number): string => `delivery:${slot}`;
/** A turn's presence (reactions, typing): one per turn until its final reactions are written, slot-reused. */
export const presenceChildId = (slot: number): string => `presence:${slot}`;

/** The child id of `turnId`'s presence, or undefined when it has none (no reactions, or done). */
export function presenceIdOf(context: SpaceContext, turnId: string): string | undefined {
  const slot = context.presenceSlots.indexOf(turnId);
  return slot === -1 ? undefined : presenceChildId(slot);
}

/** The slot of a `presence:<slot>` child an actor event is about; null for another child. */
export function presenceSlotOf(eventType: string): number | null {
  const m = /^xstate\.(?:done|error)\.actor\.presence:(\d+)$/.exec(eventType);
  return m ? Number(m[1]) : null;
}

/** Is an `xstate.done.actor.*` / `xstate.error.actor.*` event about a presence child? */
export const isPresenceEvent = (eventType: string): boolean =>
  /^xstate\.(?:done|error)\.actor\.presence:/.test(eventType);

/** The id of the child an `xstate.done.actor.<id>` / `xstate.error.actor.<id>` event is about. */
export const childIdOf = (eventType: string): string =>
  eventType.replace(/^xstate\.(?:done|error)\.actor\./, '');

/** The slot of a `turn:<slot>` / `delivery:<slot>` child an actor event is about; null for another child. */
export function childSlot(eventType: string, kind: 'turn' | 'delivery'): number | null {
  const m = /^xstate\.(?:done|error)\.actor\.(turn|delivery):(\d+)$/.exec(eventType);
  return m && m[1] === kind ? Number(m[2]) : null;
}

/** The turn whose actor an actor event is about, or undefined (a delivery, or a slot no turn holds). */
export function turnOfChild(context: SpaceContext, eventType: string): string | undefined {
  const slot = childSlot(eventType, 'turn');
  return slot === null ? undefined : (context.turnSlots[slot] ?? undefined);
}

/** The child id of a turn's actor; a turn without one (unknown, crashed for good) is a bug in the caller. */
export function turnActorId(context: SpaceContext, turnId: string): string {
  const slot = context.turns[turnId]?.slot;
  if (slot === null || slot === undefined) {
    throw new Error(
      `space ${context.space}: turn ${turnId} has no actor (it is unknown or crashed for good)`,
    );
  }
  return turnChildId(slot);
}

/** Takes the lowest free slot for `holder`. */
export function takeSlot(
  slots: readonly (string | null)[],
  holder: string,
): { slot: number; slots: (string | null)[] } {
  const free = slots.indexOf(null);
  const slot = free === -1 ? slots.length : free;
  const next = [...slots];
  next[slot] = holder;
  return { slot, slots: next };
}

/** Frees a slot (free slots at the end are dropped: the list is as long as the highest slot in use). */
export function releaseSlot(slots: readonly (string | null)[], slot: number): (string | null)[] {
  const next = [...slots];
  if (slot < next.length) next[slot] = null;
  while (next.length > 0 && next[next.length - 1] === null) next.pop();
  return next;
}

/**
 * What a `delivery:<slot>` child finished with. The done event of a spawned
 * child carries `output: unknown`; a delivery machine's output is checked
 * here, so the space never takes another child's output for one.
 */
export function isDeliveryOutput(value: unknown): value is DeliveryOutput {
  return (
    typeof value === 'object' &&
    value !== null &&
    'status' in value &&
    (value.status === 'delivered' || value.status === 'failed') &&
    'purpose' in value &&
    'request' in value
  );
}

export const deliveryOutputOf = (output: unknown): DeliveryOutput | null =>
  isDeliveryOutput(output) ? output : null;

export function anchorOf(event: RunEventOf<'inbound'>): InboundAnchor {
  const { text, user } = event as { text?: unknown; user?: unknown };
  return {
    messageId: event.messageId,
    ...(event.threadId ? { threadId: event.threadId } : {}),
    ...(event.ref ? { ref: event.ref } : {}),
    // Kept short: only the first words are ever shown (an adopted message's log line).
    ...(typeof text === 'string' ? { text: text.slice(0, 200) } : {}),
    ...(typeof user === 'string' ? { user } : {}),
  };
}

/** The message ids a live turn answers (its root and what it adopted), by turn, other than `except`. */
export function liveRootsOf(context: SpaceContext, except?: string): Map<string, string> {
  const owners = new Map<string, string>();
  for (const [turnId, record] of Object.entries(context.turns)) {
    if (turnId === except || record.mode !== 'live') continue;
    if (record.anchor?.rootMessageId) owners.set(record.anchor.rootMessageId, turnId);
    for (const id of record.adopted ?? []) owners.set(id, turnId);
  }
  return owners;
}

export function orphanReason(event: RunEvent, context: SpaceContext): string {
  if (event.turnId === undefined) return 'event from a subagent without a turnId (never opens a thread)';
  const record = context.turns[event.turnId];
  if (!record) return `event for unknown turn ${event.turnId}`;
  return `turn ${event.turnId} log degraded after repeated crashes`;
}

/** The top-level note a turn that crashed for good leaves in its space. */
export function crashNote(space: string, turnId: string): RunEvent {
  return {
    type: 'note',
    space,
    turnId,
    level: 'warn',
    text: `⚠️ The activity log of this turn stopped after an error it could not recover from; its remaining activity is posted here.`,
  };
}
