/**
 * The channel adapter's backend over the runtime (`runtime.channel`): the
 * host's posts, edits, reactions and cards become deliveries of the space they go to
 * (machines/delivery.machine.ts), so they are redacted, split at the
 * platform's limit, budgeted with the activity log's own writes and retried
 * on 429 like an answer; a card's buttons are registered like a question's.
 * The outbox gives the host's inbound side.
 */
import type { DeliveryOutput } from '../../machines/delivery.machine.js';
import type { HostDelivery } from '../../machines/space.machine.js';
import type { ActionPage, ActionsPollOptions } from '../actions/outbox.js';
import { redactSecrets } from '../events/redact.js';
import { type FrameCard, proseFrame } from '../surfaces/frame.js';
import type { ChatSurface, PostedMessage } from '../surfaces/surface.js';
import { escapedUnits, splitProse } from '../turnlog/split-prose.js';
import type { ChannelBackend } from './channel-adapter.js';

/** A host's write the platform refused for good (after the delivery's retries). */
export class HostWriteError extends Error {
  override readonly name = 'HostWriteError';
}

export interface RuntimeBackendDeps {
  /** Sends the space its delivery (spawning the space when it has none yet). */
  deliver(space: string, delivery: HostDelivery): void;
  actions(options: ActionsPollOptions): Promise<ActionPage>;
  /** The surface of a space's platform; throws naming an unknown platform. */
  surfaceOf(space: string): ChatSurface;
}

export interface RuntimeBackend extends ChannelBackend {
  /** A delivery with a ticket is done (the space's `onHostWrite`). */
  settle(ticket: string, output: DeliveryOutput): void;
  /** Rejects every write still waiting (the runtime stops). */
  close(): void;
}

/** How long one long poll of the outbox waits before asking again (the host's `signal` ends it sooner). */
const POLL_WAIT_MS = 25_000;

export function createRuntimeBackend(deps: RuntimeBackendDeps): RuntimeBackend {
  const waiting = new Map<
    string,
    { resolve: (output: DeliveryOutput) => void; reject: (e: Error) => void }
  >();
  let tickets = 0;
  let closed = false;

  function write(space: string, delivery: Omit<HostDelivery, 'ticket'>): Promise<PostedMessage> {
    if (closed) return Promise.reject(new HostWriteError('the runtime has stopped'));
    deps.surfaceOf(space);
    const ticket = `host-${++tickets}`;
    return new Promise<DeliveryOutput>((resolve, reject) => {
      waiting.set(ticket, { resolve, reject });
      deps.deliver(space, { ...delivery, ticket });
    }).then((output) => {
      if (output.status === 'delivered') return output.message;
      throw new HostWriteError(`${delivery.purpose} in ${space} not delivered: ${output.error}`);
    });
  }

  const clean = (text: string): string => redactSecrets(text);
  const cleanCard = (card: FrameCard): FrameCard => ({
    ...card,
    title: clean(card.title),
    body: clean(card.body),
    actions: card.actions.map((action) => ({ ...action, label: clean(action.label) })),
  });
  const thread = (threadId: string | undefined) => (threadId === undefined ? {} : { thread: { threadId } });

  return {
    async *actions({ after, signal }) {
      let cursor = after;
      while (!signal.aborted) {
        const page = await deps.actions({
          ...(cursor !== undefined ? { after: cursor } : {}),
          waitMs: POLL_WAIT_MS,
          signal,
        });
        for (const action of page.actions) yield action;
        cursor = page.cursor;
      }
    },
    async post({ space, threadId, markdown }) {
      const [first, ...rest] = splitProse(
        clean(markdown),
        deps.surfaceOf(space).capabilities.maxChars,
        escapedUnits,
      );
      return write(space, {
        purpose: 'host post',
        request: { space, frame: proseFrame(first ?? ''), ...thread(threadId) },
        ...(rest.length > 0 ? { continuation: rest } : {}),
      });
    },
    async edit({ space, messageId, threadId, markdown }) {
      const max = deps.surfaceOf(space).capabilities.maxChars;
      const text = clean(markdown);
      if (text.length > max) {
        throw new HostWriteError(`an edit of ${text.length} characters is over ${space}'s limit of ${max}`);
      }
      await write(space, {
        purpose: 'host edit',
        request: { space, frame: proseFrame(text), ...thread(threadId) },
        edit: { messageId, ...(threadId !== undefined ? { threadId } : {}) },
      });
    },
    async react({ space, messageId, emoji, threadId }) {
      // A write like any other: booked with the platform's budget, retried on 429, a dead letter when refused.
      await write(space, {
        purpose: `host reaction on ${messageId}`,
        request: { space, frame: proseFrame(clean(emoji)), ...thread(threadId) },
        reaction: { messageId, emoji: clean(emoji), ...(threadId !== undefined ? { threadId } : {}) },
      });
    },
    async postCard({ space, threadId, card, options, turnId }) {
      return write(space, {
        purpose: 'host card',
        request: { space, frame: { kind: 'card', card: cleanCard(card) }, ...thread(threadId) },
        card: {
          turnId: turnId ?? '',
          options: options.map((option) => ({
            label: clean(option.label),
            selectedLabel: clean(option.selectedLabel),
            value: option.value,
          })),
        },
      });
    },
    async typing({ space, threadId }) {
      await deps.surfaceOf(space).typing?.({ space, ...(threadId !== undefined ? { threadId } : {}) });
    },
    settle(ticket, output) {
      const entry = waiting.get(ticket);
      if (!entry) return;
      waiting.delete(ticket);
      entry.resolve(output);
    },
    close() {
      closed = true;
      for (const [ticket, entry] of waiting) {
        waiting.delete(ticket);
        entry.reject(new HostWriteError('the runtime stopped before the write was delivered'));
      }
    },
  };
}
