/**
 * The turn's quiet live states (inside `opened`): the log message is live
 * and nothing is pending. `ticking` keeps the platform's clock (typing, the
 * edit window); `refreshingStatus` re-sends a platform status before it
 * expires. Split from machines/turn.machine.ts; pure like it.
 */
import {
  editInput,
  entryParams,
  onRateLimited,
  recordOutcome,
  typingInput,
  whileLive,
} from './turn.policies.js';
import { turnSetup } from './turn.setup.js';

/**
 * Live and quiet, on a platform with a clock: every `tick` a typing
 * indicator (asking the budget first: it is a write; a refusal skips
 * it, a 429 backs off for its Retry-After), and before the log message
 * reaches the end of its edit window the turn rolls over to a fresh
 * (silent) message. Left at the next entry or the end.
 */
export const tickingState = turnSetup.createStateConfig({
  initial: 'resting',
  on: {
    ...whileLive,
    // Timers are not restored: start the clock again.
    'turn.recover': { target: 'ticking', reenter: true },
  },
  states: {
    resting: {
      after: {
        tick: [
          // Through the budget like any edit: the rollover's final edit and the fresh message.
          { guard: 'editWindowClosing', target: '#turn.debouncing.requesting' },
          { guard: 'showsTyping', target: 'asking' },
          { target: 'resting', reenter: true },
        ],
      },
    },
    asking: {
      entry: 'requestProgressToken',
      on: {
        'budget.granted': 'typing',
        // No typing this time (the budget keeps its tokens for frames): try again next tick.
        'budget.refused': 'resting',
      },
    },
    typing: {
      invoke: {
        id: 'typing',
        src: 'showTyping',
        input: ({ context }) => typingInput(context),
        onDone: 'resting',
        onError: [
          onRateLimited('backingOff'),
          // Advisory: a failed indicator is not a failed turn; the next tick tries again.
          { target: 'resting' },
        ],
      },
    },
    /** 429: no typing for the Retry-After (the budget cools off the scope too), then tick again. */
    backingOff: {
      after: { retryAfter: 'resting' },
    },
  },
});

/** The status is re-sent with a progress token, like any write; new entries or the end cut it short. */
export const refreshingStatusState = turnSetup.createStateConfig({
  initial: 'requesting',
  on: {
    'turn.log': {
      target: '#turn.debouncing',
      actions: { type: 'appendEntry', params: entryParams },
    },
    // Nothing pending, but the log must say "stopping…" and lose its button: an edit goes out.
    'turn.stopRequested': {
      target: '#turn.debouncing',
      actions: { type: 'recordStopRequest', params: ({ event }) => ({ user: event.user }) },
    },
    // Even with nothing pending the headline changes (done, failed, stopped): the terminal frame goes out.
    'turn.end': {
      target: '#turn.flushing',
      actions: recordOutcome,
    },
  },
  states: {
    requesting: {
      entry: { type: 'requestProgressToken', params: { write: 'status' as const } },
      on: {
        'budget.granted': 'sending',
        'budget.refused': {
          target: 'refused',
          actions: {
            type: 'recordBudgetRetry',
            params: ({ event }) => ({ retryInMs: event.retryInMs }),
          },
        },
        'turn.recover': { target: 'requesting', reenter: true },
      },
    },
    refused: {
      after: { budgetRetry: 'requesting' },
      on: { 'turn.recover': { target: 'refused', reenter: true } },
    },
    sending: {
      invoke: {
        id: 'refreshStatus',
        src: 'refreshStatus',
        input: ({ context }) => editInput(context),
        // Advisory: a failed refresh changes nothing; the next quiet stretch tries again.
        onDone: '#turn.opened.live',
        onError: '#turn.opened.live',
      },
      on: { 'turn.recover': '#turn.opened.live' },
    },
  },
});
