/**
 * The platform status line after each frame (Slack's
 * `assistant.threads.setStatus`), booked with the budget like every other
 * write: write kind `status`, which Slack limits per method, apart from
 * `chat.update` (src/platforms/slack/descriptor.ts, `budget.separateWrites`;
 * docs/architecture.md, "The budget"). Only a status the surface would
 * really send is booked (`statusDue`): an unchanged one costs nothing.
 *
 * A refused status rides on no frame: a progress status is skipped (the next
 * frame, or the quiet refresh, shows the newest one; a refused progress write
 * is coalesced, never queued), while the clear of a finished turn waits the
 * budget's exact `retryInMs` and asks again, so a thread is not left showing
 * a tool that is no longer running.
 */
import { type AnyActorRef, createActor, fromCallback } from 'xstate';
import {
  type BudgetReplyEvent,
  budgetSystemId,
  type GrantedEvent,
  type ProgressRequestEvent,
  type RefusedEvent,
} from '../../machines/budget.protocol.js';
import type { PlatformRegistry } from '../registry/registry.js';
import type { ChatSurface } from '../surfaces/surface.js';
import { rateChannel, sleepOn, type Timers } from './posting.js';

/** What booking needs of an actor's system: the budget actor by its systemId, and the runtime's clock. */
interface BookingSystem {
  get(systemId: string): AnyActorRef | undefined;
  _clock: Timers;
}

export interface StatusRequest {
  space: string;
  threadId: string;
  status: string;
}

/** A surface that says whether `setStatus` would send now (not a repeat, not a workspace without statuses). */
export interface StatusAwareSurface {
  statusDue(req: StatusRequest): boolean;
}

function isStatusAware(surface: ChatSurface): surface is ChatSurface & StatusAwareSurface {
  return typeof (surface as Partial<StatusAwareSurface>).statusDue === 'function';
}

/** Whether the surface would send this status now (a surface that cannot tell: yes). */
export const statusDue = (surface: ChatSurface, req: StatusRequest): boolean =>
  isStatusAware(surface) ? surface.statusDue(req) : true;

/** How often the clear of a finished turn asks the budget before it is given up. */
export const STATUS_CLEAR_ROUNDS = 10;

/**
 * One progress request to the budget actor, answered by GRANTED or REFUSED
 * (a separate write kind is answered at once). The reply-to is a callback
 * actor of its own, stopped once answered; an abort stops the wait.
 */
function askBudget(
  budget: AnyActorRef,
  request: Omit<ProgressRequestEvent, 'replyTo'>,
  signal: AbortSignal,
): Promise<GrantedEvent | RefusedEvent> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const replyTo = createActor(
      fromCallback<BudgetReplyEvent>(({ receive }) => {
        receive((event) => {
          if (event.type !== 'budget.granted' && event.type !== 'budget.refused') return;
          done();
          resolve(event);
        });
      }),
    );
    const onAbort = () => {
      done();
      reject(signal.reason);
    };
    const done = () => {
      signal.removeEventListener('abort', onAbort);
      // Stopped after the reply is handled, not inside its own receive.
      queueMicrotask(() => replyTo.stop());
    };
    signal.addEventListener('abort', onAbort, { once: true });
    replyTo.start();
    budget.send({ ...request, replyTo });
  });
}

export interface StatusBookingDeps {
  platforms: PlatformRegistry;
  /** False: no budget actor (`budget: 'unlimited'`), every status goes. */
  useBudget: boolean;
}

/**
 * Books one status write with the space's budget, for the turn's card
 * (`cardId`: the turn id, the card the budget already knows; a status never
 * adds a card to the fair share): true to send it, false to skip it. A
 * status of no known turn is skipped, never sent outside the budget.
 * `clear`: the finished turn's clear, which waits for its turn.
 */
export function createStatusBooking({ platforms, useBudget }: StatusBookingDeps) {
  return async (
    cardId: string | undefined,
    req: StatusRequest,
    clear: boolean,
    system: BookingSystem,
    signal: AbortSignal,
  ): Promise<boolean> => {
    if (!useBudget) return true;
    if (cardId === undefined) return false;
    const budget = system.get(budgetSystemId(platforms.forSpace(req.space).id));
    if (budget === undefined) return true;
    const request = {
      type: 'budget.progress.request' as const,
      // The turn's own card: its kind never waits in the line, and takes no edit token.
      cardId,
      channel: rateChannel(req.space, req.threadId, platforms),
      write: 'status' as const,
    };
    for (let round = 0; ; round += 1) {
      const answer = await askBudget(budget, request, signal);
      if (answer.type === 'budget.granted') return true;
      if (!clear) return false;
      // Never outside the budget: past the rounds Slack's own expiry (two minutes) clears it.
      if (round + 1 >= STATUS_CLEAR_ROUNDS) return false;
      await sleepOn(system._clock, answer.retryInMs, signal);
    }
  };
}
