/**
 * The frame sender: one frame of a turn's log, from its token to its status.
 * It asks the budget for the write's token (a progress token, or a terminal
 * slot), has the turn render the newest frame at send time (`frame.prepare`,
 * answered `frame.prepared` or `frame.skip`), writes it (a post or an edit),
 * retries as the caller's policy says (a 429 after its Retry-After, other
 * failures after a delay, never a 404 or a `forbidden`), then books and sets
 * the platform status that frame implies (Slack's assistant status). The turn
 * machine invokes it wherever it posts or edits its log (`postMessage`,
 * `editMessage`).
 *
 *   starting ──token none──▶ preparing    starting ──▶ requesting ──granted/funded──▶ preparing
 *   requesting ──refused──▶ refused ──tokenRetry──▶ requesting
 *   preparing ──given──▶ sending     preparing ──▶ awaitingFrame ──frame.prepared──▶ sending
 *                                                    awaitingFrame ──frame.skip──▶ skipped
 *   sending ──landed──▶ checkingStatus ──a status is due──▶ bookingStatus ──granted──▶ settingStatus ──▶ sent
 *      │                      └──none due (no status on this platform, unchanged)──────────────────────▶ sent
 *      ├──429 (policy: retry, count)──▶ rateLimited ──retryAfter──▶ starting (a fresh token, the newest frame)
 *      ├──another failure with retries left──▶ retrying ──retryDelay──▶ starting | preparing
 *      └──404, forbidden, no retries left──▶ failed (the write's error becomes the actor's: the turn's `onError` decides)
 *   bookingStatus ──refused──▶ waitingForStatus (a finished turn's clear only, 10 rounds) ──▶ bookingStatus
 *                 └─refused (a progress status: the next frame shows the newest one)──▶ sent
 *
 * Without a policy (`FrameSenderInput.policy`) it is one write as given: no
 * token (the caller holds it), no retry (the caller decides). Every waiting
 * state asks again or re-arms its timer on `frame.recover` (the turn was
 * restored: XState restores no timer, and a budget answer may be lost).
 *
 * The status is advisory: once the frame landed nothing fails the sender.
 * Pure definition: the write, the status and the budget messages are
 * provided (src/runtime/frame-sender.implementations.ts), so this file
 * pastes into Stately Studio as it is.
 */
import { assign, sendParent, setup } from 'xstate';
import type { SurfaceFrame } from '../src/surfaces/frame.js';
import type { PostedMessage, ThreadAnchor } from '../src/surfaces/surface.js';
import type { FundedEvent, GrantedEvent, RefusedEvent } from './budget.protocol.js';
import { errorKind, retryAfterOf } from './errors.js';

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

/**
 * How the sender gets and retries its frame (the caller's error policy).
 * `token`: none (the caller holds one), a progress token or a terminal slot,
 * asked before every attempt. `prepare`: the request as given, or the newest
 * frame asked of the turn after each token (`frame.prepare`).
 * `rateLimits`: a 429 fails the sender, is waited out (its Retry-After) and
 * tried again, or is waited out and counted as a retry. `retries`: how many
 * times another failure is tried again (never a 404 nor a `forbidden`), after
 * `retryDelayMs` (doubled after each when `backoff`), with a fresh token
 * when `retryToken`.
 */
export interface FramePolicy {
  token: 'none' | 'progress' | 'terminal';
  prepare: 'given' | 'ask';
  rateLimits: 'fail' | 'retry' | 'count';
  retries: number;
  retryDelayMs: number;
  backoff: boolean;
  retryToken: boolean;
}

/** One write as given: the caller holds its token and handles every failure. */
export const ONE_WRITE: FramePolicy = {
  token: 'none',
  prepare: 'given',
  rateLimits: 'fail',
  retries: 0,
  retryDelayMs: 0,
  backoff: false,
  retryToken: false,
};

/** The request, and how to get and retry it (default: `ONE_WRITE`). */
export type FrameSenderInput = FrameRequest & { policy?: FramePolicy };

/**
 * What landed: the message (an edit's is the message it changed), and when a
 * post was sent; `skipped`: the turn had nothing new to send (`frame.skip`).
 */
export interface SentFrame extends PostedMessage {
  postedAt?: number;
  skipped?: true;
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
  policy: FramePolicy;
  sent: SentFrame | null;
  /** Failed attempts retried so far (a 429 counts only under `rateLimits: 'count'`). */
  failures: number;
  /** The wait before the next attempt: a 429's Retry-After, or the policy's retry delay. */
  retryInMs: number;
  /** The wait before asking a refused token again. */
  tokenRetryMs: number;
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
  | FundedEvent
  /** The turn rendered the newest frame (`prepare: 'ask'`): send this. */
  | { type: 'frame.prepared'; request: FrameRequest }
  /** The turn has nothing new to send (unchanged, empty, or a rollover it handles itself). */
  | { type: 'frame.skip' }
  /** Sent after the turn was restored: XState restores no timer and the budget's answer was lost. */
  | { type: 'frame.recover' };

/** How often a finished turn's clear asks the budget before it is given up (Slack's own expiry clears it). */
export const STATUS_CLEAR_ROUNDS = 10;

export const frameSenderMachine = setup({
  types: {
    context: {} as FrameSenderContext,
    events: {} as FrameSenderEvent,
    input: {} as FrameSenderInput,
    output: {} as SentFrame,
  },
  actions: {
    /** Provided: a progress token or a terminal slot for this write, to the space's budget (granted at once without one). */
    requestToken: () => {},
    recordTokenRefusal: assign((_, params: { retryInMs: number }) => ({ tokenRetryMs: params.retryInMs })),
    /** The turn renders the newest frame now, at send time, and answers `frame.prepared` or `frame.skip`. */
    askForFrame: sendParent({ type: 'frame.prepare' }),
    recordPrepared: assign((_, params: { request: FrameRequest }) => ({ request: params.request })),
    recordSent: assign((_, params: { sent: SentFrame }) => ({ sent: params.sent })),
    recordSkipped: assign(({ context }) => ({
      sent: { messageId: context.request.messageId ?? '', skipped: true as const },
    })),
    recordError: assign((_, params: { error: unknown }) => ({ error: params.error })),
    /** Waits a 429's Retry-After (counted as a retry under `rateLimits: 'count'`). */
    recordRateLimit: assign(({ context }, params: { error: unknown }) => ({
      error: params.error,
      retryInMs: retryAfterOf(params.error),
      failures: context.policy.rateLimits === 'count' ? context.failures + 1 : context.failures,
    })),
    /** Another failure: the policy's delay, doubled after each retry when it backs off. */
    recordRetry: assign(({ context }, params: { error: unknown }) => ({
      error: params.error,
      retryInMs: context.policy.retryDelayMs * (context.policy.backoff ? 2 ** context.failures : 1),
      failures: context.failures + 1,
    })),
    /** Provided: tells the budget the platform answered 429 (it cools the scope off). */
    reportRateLimited: (_, _params: { retryAfterMs: number }) => {},
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
    holdsToken: ({ context }) => context.policy.token === 'none',
    framePrepared: ({ context }) => context.policy.prepare === 'given',
    /** A 429 the policy waits out, within its retries when they are counted. */
    waitsOutRateLimit: ({ context }, params: { error: unknown }) =>
      errorKind(params.error) === 'rate-limited' &&
      (context.policy.rateLimits === 'retry' ||
        (context.policy.rateLimits === 'count' && context.failures < context.policy.retries)),
    /** Retries left for a failure worth trying again: never a 404 (the turn opens a new message) nor a `forbidden`. */
    canRetry: ({ context }, params: { error: unknown }) => {
      const kind = errorKind(params.error);
      return (
        kind !== 'not-found' &&
        kind !== 'forbidden' &&
        (kind !== 'rate-limited' || context.policy.rateLimits === 'count') &&
        context.failures < context.policy.retries
      );
    },
    retriesWithToken: ({ context }) => context.policy.retryToken,
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
    tokenRetry: ({ context }) => context.tokenRetryMs,
    retryAfter: ({ context }) => context.retryInMs,
    retryDelay: ({ context }) => context.retryInMs,
    statusRetry: ({ context }) => context.statusRetryMs,
  },
}).createMachine({
  id: 'frameSender',
  context: ({ input: { policy, ...request } }) => ({
    request,
    policy: policy ?? ONE_WRITE,
    sent: null,
    failures: 0,
    retryInMs: 0,
    tokenRetryMs: 0,
    status: null,
    statusRounds: 0,
    statusRetryMs: 0,
    error: null,
  }),
  initial: 'starting',
  states: {
    /** Each attempt starts here: with a token the caller holds, or by asking the budget for one. */
    starting: {
      always: [{ guard: 'holdsToken', target: 'preparing' }, { target: 'requesting' }],
    },
    requesting: {
      entry: 'requestToken',
      on: {
        'budget.granted': 'preparing',
        'budget.funded': 'preparing',
        'budget.refused': {
          target: 'refused',
          actions: { type: 'recordTokenRefusal', params: ({ event }) => ({ retryInMs: event.retryInMs }) },
        },
        'frame.recover': { target: 'requesting', reenter: true },
      },
    },
    /** Refused: ask again when the budget says. */
    refused: {
      after: { tokenRetry: 'requesting' },
      on: { 'frame.recover': { target: 'refused', reenter: true } },
    },
    /** Render at send time: the request as given, or the newest frame the turn renders now. */
    preparing: {
      always: [{ guard: 'framePrepared', target: 'sending' }, { target: 'awaitingFrame' }],
    },
    awaitingFrame: {
      entry: 'askForFrame',
      on: {
        'frame.prepared': {
          target: 'sending',
          actions: { type: 'recordPrepared', params: ({ event }) => ({ request: event.request }) },
        },
        'frame.skip': { target: 'skipped', actions: 'recordSkipped' },
        'frame.recover': { target: 'awaitingFrame', reenter: true },
      },
    },
    sending: {
      invoke: {
        id: 'write',
        src: 'write',
        input: ({ context }) => context.request,
        onDone: {
          target: 'checkingStatus',
          actions: { type: 'recordSent', params: ({ event }) => ({ sent: event.output }) },
        },
        onError: [
          {
            guard: { type: 'waitsOutRateLimit', params: ({ event }) => ({ error: event.error }) },
            target: 'rateLimited',
            actions: [
              { type: 'recordRateLimit', params: ({ event }) => ({ error: event.error }) },
              {
                type: 'reportRateLimited',
                params: ({ event }) => ({ retryAfterMs: retryAfterOf(event.error) }),
              },
            ],
          },
          {
            guard: { type: 'canRetry', params: ({ event }) => ({ error: event.error }) },
            target: 'retrying',
            actions: { type: 'recordRetry', params: ({ event }) => ({ error: event.error }) },
          },
          {
            target: 'failed',
            actions: { type: 'recordError', params: ({ event }) => ({ error: event.error }) },
          },
        ],
      },
    },
    /** 429: wait the Retry-After, then a fresh token and the newest frame. */
    rateLimited: {
      after: { retryAfter: 'starting' },
      on: { 'frame.recover': { target: 'rateLimited', reenter: true } },
    },
    /** Another failure with retries left: wait, then try again (with a fresh token when the policy says). */
    retrying: {
      after: { retryDelay: [{ guard: 'retriesWithToken', target: 'starting' }, { target: 'preparing' }] },
      on: { 'frame.recover': { target: 'retrying', reenter: true } },
    },
    /** The turn had nothing new to send: nothing was written. */
    skipped: { type: 'final' },
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
