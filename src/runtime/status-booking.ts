/**
 * The platform status line after each frame (Slack's
 * `assistant.threads.setStatus`), booked with the budget like every other
 * write: write kind `status`, which Slack limits per method, apart from
 * `chat.update` (src/platforms/slack/descriptor.ts, `budget.separateWrites`;
 * docs/architecture.md, "The budget"). Only a status the surface would
 * really send is booked (`assistantStatus.due`): an unchanged one costs nothing.
 *
 * A refused status rides on no frame: a progress status is skipped (the next
 * frame, or the quiet refresh, shows the newest one; a refused progress write
 * is coalesced, never queued), while the clear of a finished turn waits the
 * budget's exact `retryInMs` and asks again, so a thread is not left showing
 * a tool that is no longer running.
 */
import { type AnyActorRef, createActor, fromCallback } from 'xstate';
import type {
  BudgetReplyEvent,
  GrantedEvent,
  ProgressRequestEvent,
  RefusedEvent,
} from '../../machines/budget.protocol.js';
import type { SurfaceFrame } from '../surfaces/frame.js';
import type { ChatSurface, StatusRequest } from '../surfaces/surface.js';
import type { BudgetClient } from './budget-client.js';
import { sleepOn, type Timers, type WriteScope } from './posting.js';
import { statusOf } from './turn-headline.js';

export type { StatusRequest };

/** What booking needs of an actor's system: the budget actor by its systemId (public `system.get`). */
interface BookingSystem {
  get(systemId: string): AnyActorRef | undefined;
}

/** How often the clear of a finished turn asks the budget before it is given up. */
export const STATUS_CLEAR_ROUNDS = 10;

/**
 * One progress request to the budget actor, answered by GRANTED or REFUSED
 * (a separate write kind is answered at once). The reply-to is a callback
 * actor of its own, stopped once answered; an abort stops the wait.
 */
function askBudget(
  budget: AnyActorRef,
  request: (replyTo: AnyActorRef) => ProgressRequestEvent,
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
    budget.send(request(replyTo));
  });
}

export interface StatusBookingDeps {
  budget: BudgetClient;
  /** The runtime's clock: a finished turn's clear waits on it between asks. */
  clock: Timers;
}

/**
 * Books one status write with the space's budget, for the turn's card
 * (`cardId`: the turn id, the card the budget already knows; a status never
 * adds a card to the fair share): true to send it, false to skip it. A
 * status of no known turn is skipped, never sent outside the budget.
 * `clear`: the finished turn's clear, which waits for its turn.
 */
export function createStatusBooking({ budget, clock }: StatusBookingDeps) {
  return async (
    cardId: string | undefined,
    req: StatusRequest,
    clear: boolean,
    system: BookingSystem,
    signal: AbortSignal,
  ): Promise<boolean> => {
    if (!budget.enabled) return true;
    if (cardId === undefined) return false;
    const actor = budget.actorOf(system, req.space);
    if (actor === undefined) return true;
    // The turn's own card: its kind never waits in the line, and takes no edit token.
    const request = (replyTo: AnyActorRef) =>
      budget.progress({ space: req.space, threadId: req.threadId, cardId, write: 'status' }, replyTo);
    for (let round = 0; ; round += 1) {
      const answer = await askBudget(actor, request, signal);
      if (answer.type === 'budget.granted') return true;
      if (!clear) return false;
      // Never outside the budget: past the rounds Slack's own expiry (two minutes) clears it.
      if (round + 1 >= STATUS_CLEAR_ROUNDS) return false;
      await sleepOn(clock, answer.retryInMs, signal);
    }
  };
}

/**
 * After a log frame landed: the status it implies, booked with the budget
 * first (write kind `status`) when `cardId` is given; without one the caller
 * already holds a status token (the quiet refresh). Only a status the
 * surface would send is booked: the surface skips one it already shows
 * unless Slack's two-minute expiry is near (src/platforms/slack/assistant-status.ts).
 * The status is advisory: the frame has landed, so its failure or refusal does
 * not fail the frame (a workspace without it is remembered by the surface and
 * not asked again).
 */
export function createStatusWriter(deps: StatusBookingDeps) {
  const book = createStatusBooking(deps);
  return async (
    surface: ChatSurface,
    target: { space: string; threadId: string; frame: SurfaceFrame },
    scope: WriteScope,
    booking: { cardId: string | undefined } | 'held',
  ): Promise<void> => {
    const ability = surface.assistantStatus;
    const status = statusOf(target.frame);
    if (ability === undefined || status === undefined) return;
    const req = { space: target.space, threadId: target.threadId, status };
    if (booking !== 'held') {
      if (!ability.due(req)) return;
      const { frame } = target;
      const finished =
        frame.kind === 'log' && frame.headline !== undefined && frame.headline.state !== 'running';
      if (!(await book(booking.cardId, req, finished && status === '', scope.system, scope.signal))) return;
    }
    await ability.set(req, { signal: scope.signal }).catch(() => undefined);
  };
}
