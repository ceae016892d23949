/**
 * The frame sender: one write of a turn's log frame (a post or an edit),
 * then the platform status that frame implies (Slack's assistant status),
 * booked with the budget like every write. The turn machine invokes it
 * wherever it posts or edits its log (`postMessage`, `editMessage`).
 *
 *   sending ──landed──▶ checkingStatus ──a status is due──▶ bookingStatus ──granted──▶ settingStatus ──▶ sent
 *      │                      └──none due (no status on this platform, unchanged)──────────────────────▶ sent
 *      └──failed──▶ failed (the write's error becomes the actor's: the turn's `onError` decides)
 *   bookingStatus ──refused──▶ waitingForStatus (a finished turn's clear only, 10 rounds) ──▶ bookingStatus
 *                 └─refused (a progress status: the next frame shows the newest one)──▶ sent
 *
 * The status is advisory: once the frame landed nothing fails the sender.
 * Pure definition: the write, the status and the budget message are
 * provided (src/runtime/frame-sender.implementations.ts), so this file
 * pastes into Stately Studio as it is.
 */
import { assign, setup } from 'xstate';
import type { SurfaceFrame } from '../src/surfaces/frame.js';
import type { PostedMessage, ThreadAnchor } from '../src/surfaces/surface.js';
import type { GrantedEvent, RefusedEvent } from './budget.protocol.js';

/**
 * What is written: the space, the frame, and either a post's placement
 * (`thread`, `clientId`, `silent`) or the message an edit changes
 * (`messageId`, `threadId`). `turnId`: whose card the status is booked for;
 * `stopFor`: a post whose log shows Stop (it goes in the card registry).
 */
export interface FrameRequest {
  space: string;
  frame: SurfaceFrame;
  thread?: ThreadAnchor;
  silent?: boolean;
  clientId?: string;
  messageId?: string;
  threadId?: string;
  turnId?: string;
  stopFor?: string;
}

/** What landed: the message (an edit's is the message it changed), and when a post was sent. */
export interface SentFrame extends PostedMessage {
  postedAt?: number;
}

/** The status to show in a thread after the frame; `clear`: a finished turn's last, which waits its turn. */
export interface StatusTarget {
  space: string;
  threadId: string;
  status: string;
  clear: boolean;
}

export interface FrameSenderContext {
  request: FrameRequest;
  sent: SentFrame | null;
  /** The status the landed frame implies, when the platform would send it now; null otherwise. */
  status: StatusTarget | null;
  /** Asks for a status token so far (a clear asks up to `STATUS_CLEAR_ROUNDS` times). */
  statusRounds: number;
  statusRetryMs: number;
  error: unknown;
}

export type FrameSenderEvent =
  | GrantedEvent
  | RefusedEvent
  /** Sent after the turn was restored: XState restores no timer and the budget's answer was lost. */
  | { type: 'frame.recover' };

/** How often a finished turn's clear asks the budget before it is given up (Slack's own expiry clears it). */
export const STATUS_CLEAR_ROUNDS = 10;

export const frameSenderMachine = setup({
  types: {
    context: {} as FrameSenderContext,
    events: {} as FrameSenderEvent,
    input: {} as FrameRequest,
    output: {} as SentFrame,
  },
  actions: {
    recordSent: assign((_, params: { sent: SentFrame }) => ({ sent: params.sent })),
    recordError: assign((_, params: { error: unknown }) => ({ error: params.error })),
    /** The write failed: the sender fails with its error, which the turn's `onError` reads. */
    failWithError: ({ context }) => {
      throw context.error;
    },
    /** Provided: reads the platform (is a status due?) and the landed frame (which status?). */
    pickStatus: () => {},
    /** Provided: a `status` write of the turn's card, to the space's budget (granted at once without one). */
    requestStatusToken: () => {},
    recordStatusRefusal: assign(({ context }, params: { retryInMs: number }) => ({
      statusRounds: context.statusRounds + 1,
      statusRetryMs: params.retryInMs,
    })),
  },
  guards: {
    statusDue: ({ context }) => context.status !== null,
    /** A clear with asks left: the thread must not keep showing a tool that no longer runs. */
    clearMayWait: ({ context }) =>
      context.status?.clear === true && context.statusRounds + 1 < STATUS_CLEAR_ROUNDS,
  },
  actors: {
    // Provided: the post or the edit through the platform's surface (paced, never duplicated).
    write: {} as import('xstate').PromiseActorLogic<SentFrame, FrameRequest>,
    // Provided: the platform's status call; advisory, so it never fails.
    setStatus: {} as import('xstate').PromiseActorLogic<void, StatusTarget | null>,
  },
  delays: {
    statusRetry: ({ context }) => context.statusRetryMs,
  },
}).createMachine({
  id: 'frameSender',
  context: ({ input }) => ({
    request: input,
    sent: null,
    status: null,
    statusRounds: 0,
    statusRetryMs: 0,
    error: null,
  }),
  initial: 'sending',
  states: {
    sending: {
      invoke: {
        id: 'write',
        src: 'write',
        input: ({ context }) => context.request,
        onDone: {
          target: 'checkingStatus',
          actions: { type: 'recordSent', params: ({ event }) => ({ sent: event.output }) },
        },
        onError: {
          target: 'failed',
          actions: { type: 'recordError', params: ({ event }) => ({ error: event.error }) },
        },
      },
    },
    checkingStatus: {
      entry: 'pickStatus',
      always: [{ guard: 'statusDue', target: 'bookingStatus' }, { target: 'sent' }],
    },
    bookingStatus: {
      entry: 'requestStatusToken',
      on: {
        'budget.granted': 'settingStatus',
        'budget.refused': [
          {
            guard: 'clearMayWait',
            target: 'waitingForStatus',
            actions: {
              type: 'recordStatusRefusal',
              params: ({ event }) => ({ retryInMs: event.retryInMs }),
            },
          },
          // A progress status is skipped: the next frame, or the quiet refresh, shows the newest one.
          { target: 'sent' },
        ],
        'frame.recover': { target: 'bookingStatus', reenter: true },
      },
    },
    waitingForStatus: {
      after: { statusRetry: 'bookingStatus' },
      on: { 'frame.recover': { target: 'waitingForStatus', reenter: true } },
    },
    settingStatus: {
      invoke: {
        id: 'setStatus',
        src: 'setStatus',
        input: ({ context }) => context.status,
        onDone: 'sent',
        onError: 'sent',
      },
    },
    sent: { type: 'final' },
    /** Not final: entering it fails the actor with the write's error. */
    failed: { entry: 'failWithError' },
  },
  output: ({ context }) => context.sent ?? { messageId: context.request.messageId ?? '' },
});
