/**
 * What the space supervisor's implementations decide from its context alone
 * (src/runtime/space.implementations.ts): where an event goes, which
 * anchor a turn hangs under, how a batch is ordered, the input of a turn
 * restored from a snapshot, an answer's parts and the next delivery slot.
 */
import type { DeliveryInput } from '../../machines/delivery.machine.js';
import { deliveryChildId, type SpaceContext, takeSlot } from '../../machines/space.machine.js';
import type { TurnInput } from '../../machines/turn.machine.js';
import type { RunEvent, RunEventOf } from '../events/schema.js';
import { routeEvent } from '../routing/route.js';
import type { Destination } from '../routing/types.js';
import type { ThreadAnchor } from '../surfaces/surface.js';
import { escapedUnits, splitProse } from '../turnlog/split-prose.js';

/** Event types a batch hands straight to a live turn's log (`space.events`). */
export const BATCHED_ENTRY_TYPES: ReadonlySet<RunEvent['type']> = new Set([
  'tool_call',
  'tool_result',
  'assistant',
  'subagent',
  'note',
  'command',
]);

/**
 * A live turn's answer whose `turn_ended` comes later in the same batch goes
 * right after that end (with the turn's other answers before it, in order):
 * the turn then books its final frame (✅) first and the answer takes the
 * channel's next slot, so a person sees the card finished before, not about a
 * second after, the answer (docs/events.md, "The answer and the final
 * frame"). Null when `head` is no such answer.
 */
export function answersAfterEnd(
  context: SpaceContext,
  head: RunEvent,
  rest: readonly RunEvent[],
): RunEvent[] | null {
  const turnId = head.turnId;
  if (head.type !== 'answer' || turnId === undefined || context.turns[turnId]?.mode !== 'live') return null;
  const end = rest.findIndex((event) => event.type === 'turn_ended' && event.turnId === turnId);
  if (end < 0) return null;
  const before = rest.slice(0, end);
  const isItsAnswer = (event: RunEvent) => event.type === 'answer' && event.turnId === turnId;
  return [
    ...before.filter((event) => !isItsAnswer(event)),
    rest[end] as RunEvent,
    head,
    ...before.filter(isItsAnswer),
    ...rest.slice(end + 1),
  ];
}

/** Subagent nesting shown as indentation: the parent agent 0, a subagent 1, a nested one 2. */
export function depthOf(event: RunEvent): number {
  const nested = event.parentSubagentId !== undefined ? 1 : 0;
  // A subagent's own status line sits at its parent's level.
  if (event.type === 'subagent') return nested;
  return event.subagentId !== undefined ? 1 + nested : 0;
}

export function routeFor(context: SpaceContext, event: RunEvent): Destination {
  const record = event.turnId !== undefined ? context.turns[event.turnId] : undefined;
  const dm = context.settings.routing.dm === true || record?.dm === true;
  return routeEvent(event, { ...context.settings.routing, dm });
}

/** The turn's anchor: the root the host named, or a recent inbound message it referred to. */
export function resolveAnchor(
  context: SpaceContext,
  event: RunEventOf<'turn_started'>,
): { anchor: ThreadAnchor | null; reason?: string; header?: string } {
  if (event.root) {
    return {
      anchor: {
        rootMessageId: event.root.messageId,
        ...(event.root.threadId ? { threadId: event.root.threadId } : {}),
      },
    };
  }
  if (event.rootRef) {
    const found = [...context.anchors].reverse().find((a) => a.ref === event.rootRef);
    if (found) {
      return {
        anchor: { rootMessageId: found.messageId, ...(found.threadId ? { threadId: found.threadId } : {}) },
      };
    }
    return {
      anchor: null,
      reason: `root message ${event.rootRef} is not among the last ${context.settings.anchorCapacity} inbound messages`,
      header: lostRootHeader(event),
    };
  }
  if (event.title !== undefined && context.settings.jobs === 'header')
    return { anchor: null, header: `🕒 ${event.title}` };
  if (event.title !== undefined)
    return { anchor: null, reason: 'a proactive turn (visibility.jobs: top-level)' };
  return { anchor: null, reason: 'the turn has no root message', header: lostRootHeader(event) };
}

/**
 * The header a turn without its root message threads its log under: one
 * top-level message (one notification) instead of every log batch top-level.
 */
export function lostRootHeader(event: RunEventOf<'turn_started'>): string {
  return `🧵 ${event.title ?? `Agent activity (turn ${event.turnId})`}`;
}

/** An answer's parts; text with nothing to show stays one part (the platform refuses it, and that is reported). */
export function answerParts(text: string, maxChars: number): string[] {
  if (!Number.isFinite(maxChars)) return [text];
  // Sized for the text as it is sent: an escaped `&` (Slack's `&amp;`) is five characters, not one.
  const parts = splitProse(text, maxChars, escapedUnits);
  return parts.length > 0 ? parts : [text];
}

/** The next delivery child: the lowest free slot (`delivery:<slot>`) and the context that takes it. */
export function nextDelivery(context: SpaceContext, input: DeliveryInput) {
  const { slot, slots } = takeSlot(context.deliverySlots, input.purpose);
  return {
    id: deliveryChildId(slot),
    input,
    assignment: { deliverySlots: slots, deliveries: context.deliveries + 1 },
  };
}

export const threadsOn = (context: SpaceContext): boolean =>
  context.settings.routing.threads && context.settings.routing.threadsDisabled !== true;

export const optionalClientId = (clientId: string | undefined) => (clientId ? { clientId } : {});

/** Input of a turn restored from a snapshot: only used when the snapshot cannot be read. */
export function placeholderInput(context: SpaceContext, turnId: string): TurnInput {
  return { turnId, space: context.space, anchor: null, settings: context.settings.turn };
}

export function restoredInput(snapshot: unknown): TurnInput | undefined {
  const ctx = (
    snapshot as {
      context?: {
        turnId?: string;
        space?: string;
        anchor?: ThreadAnchor | null;
        settings?: TurnInput['settings'];
      };
    }
  )?.context;
  if (!ctx?.turnId || !ctx.space || !ctx.settings) return undefined;
  return { turnId: ctx.turnId, space: ctx.space, anchor: ctx.anchor ?? null, settings: ctx.settings };
}
