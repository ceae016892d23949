/**
 * The cards a turn posts in its thread (docs/events.md): a `policy_request`
 * becomes an Approve/Reject card, a `question` a card with one button per
 * option. A button's id is what a click comes back with (src/actions/clicks.ts):
 * `approve` / `reject`, `answer:<index>` (the option's place in `options`).
 */
import { normalizeOption, type RunEvent } from '../events/schema.js';
import type { FrameCard } from '../surfaces/frame.js';

export type CardEvent = Extract<RunEvent, { type: 'policy_request' | 'question' }>;

/** The action id of option `index` of a question. */
export const answerActionId = (index: number): string => `answer:${index}`;

/** The option index an `answer:<index>` action id names; undefined for another id. */
export function answerIndexOf(actionId: string): number | undefined {
  const match = /^answer:(0|[1-9]\d{0,3})$/.exec(actionId);
  return match ? Number(match[1]) : undefined;
}

export function isCardEvent(event: RunEvent): event is CardEvent {
  return event.type === 'policy_request' || event.type === 'question';
}

/** The card an event shows, with its buttons (all its text already redacted at ingest). */
export function cardOf(event: CardEvent): FrameCard {
  if (event.type === 'policy_request') {
    return {
      kind: 'policy',
      id: event.requestId,
      title: event.title ?? 'Approval needed',
      body: [event.command, ...(event.args ?? [])].join(' '),
      actions: [
        { id: 'approve', label: 'Approve', style: 'primary' },
        { id: 'reject', label: 'Reject', style: 'danger' },
      ],
    };
  }
  return {
    kind: 'question',
    id: event.questionId,
    title: event.title ?? 'Question',
    body: event.question,
    actions: event.options.map((option, index) => ({
      id: answerActionId(index),
      label: normalizeOption(option).label,
    })),
  };
}
