/**
 * What a failed delivery leaves in its space (machines/space.machine.ts,
 * `recordDeadLetter`): a dead letter naming why, with the text that was not
 * delivered. Kept out of machines/ because it renders the frame's plain text
 * (src/surfaces/frame.ts): the machines import only types and xstate.
 */
import type { DeliveryOutput } from '../../machines/delivery.machine.js';
import type { SpaceContext, SpaceDeadLetter } from '../../machines/space.types.js';
import { plainText } from '../surfaces/frame.js';

/** Bounded list in context: a space lives for the life of the process. */
export const MAX_DEAD_LETTERS = 1000;

/** The dead letters with a failed delivery's added (a delivered one adds nothing). */
export function withDeadLetter(context: SpaceContext, output: DeliveryOutput, at: number): SpaceDeadLetter[] {
  if (output.status !== 'failed') return context.deadLetters;
  return [
    ...context.deadLetters,
    { at, reason: deadLetterReason(output), text: undeliveredText(output) },
  ].slice(-MAX_DEAD_LETTERS);
}

/** A failed delivery's reason, naming the parts after the refused one that were never sent. */
export function deadLetterReason(output: Extract<DeliveryOutput, { status: 'failed' }>): string {
  const unsent = output.unsent?.length ?? 0;
  const after = unsent > 0 ? ` (and the ${unsent} part${unsent === 1 ? '' : 's'} after it, not sent)` : '';
  return `${output.purpose}: ${output.error}${after}`;
}

/** What a failed delivery did not deliver: the refused message and the parts after it, none lost. */
export function undeliveredText(output: Extract<DeliveryOutput, { status: 'failed' }>): string {
  return [plainText(output.request.frame), ...(output.unsent ?? [])].join('\n\n');
}
