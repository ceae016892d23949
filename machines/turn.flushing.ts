/**
 * The turn's `flushing` state: the newest frame goes out through a
 * terminal slot, at the end or on a shutdown flush. Split from
 * machines/turn.machine.ts; pure like it.
 */
import { and } from 'xstate';
import {
  editInput,
  keepLogging,
  onNotFound,
  postInput,
  postLanded,
  recordOutcome,
  terminalFailure,
} from './turn.policies.js';
import { turnSetup } from './turn.setup.js';

/**
 * The newest frame goes out at once through a terminal slot: on
 * `turn_ended` (then the turn ends; nothing is sent after) and on a
 * shutdown flush (`turn.flush`; then the turn goes on where it was, to be
 * resumed by the next process).
 */
export const flushingState = turnSetup.createStateConfig({
  initial: 'booking',
  // Its frame gets its own attempts, and the frame after a flush gets its own retries.
  entry: 'forgetFailures',
  exit: 'forgetFailures',
  on: {
    ...keepLogging,
    'turn.end': {
      actions: recordOutcome,
    },
  },
  states: {
    booking: {
      entry: 'bookTerminalSlot',
      on: {
        'budget.funded': 'preparing',
        'turn.recover': { target: 'booking', reenter: true },
      },
    },
    preparing: {
      entry: 'prepareFrame',
      always: [
        { guard: 'frameIsEmpty', target: 'settled' },
        { guard: 'frameUnchanged', target: 'settled', actions: 'markShown' },
        { guard: 'hasCurrentMessage', target: 'editing' },
        { target: 'posting' },
      ],
    },
    editing: {
      invoke: {
        id: 'editFinal',
        src: 'editMessage',
        input: ({ context }) => editInput(context),
        onDone: [
          {
            guard: 'frameIsRollover',
            target: 'booking',
            actions: ['recordEdited', 'finalizeCurrent', 'applyCarry'],
          },
          { guard: 'hasUnsentAfterFrame', target: 'booking', actions: ['recordEdited', 'markShown'] },
          { target: 'settled', actions: ['recordEdited', 'markShown'] },
        ],
        onError: [onNotFound('booking'), ...terminalFailure('final edit')],
      },
    },
    posting: {
      invoke: {
        id: 'postFinal',
        src: 'postMessage',
        input: ({ context }) => postInput(context, 'log'),
        onDone: postLanded({ rollover: 'booking', unsent: 'booking', live: 'settled' }),
        onError: terminalFailure('final post'),
      },
    },
    /** Wait the Retry-After of a 429 (the edit retry delay after another failure), then book a slot again and send the newest frame. */
    retrying: {
      after: { retryAfter: 'booking' },
      on: { 'turn.recover': { target: 'retrying', reenter: true } },
    },
    /** Sent: the turn ends, or (a shutdown flush) goes on where it was. */
    settled: {
      always: [
        { guard: 'endRequested', target: '#turn.ended' },
        // A live log message, threaded or top-level (degraded), goes on being edited.
        { guard: and(['hasCurrentMessage', 'hasUnsent']), target: '#turn.debouncing' },
        { guard: 'hasCurrentMessage', target: '#turn.opened.live' },
        { guard: 'startsDegraded', target: '#turn.degraded', actions: 'keepUnsentOnly' },
        { target: '#turn.idle' },
      ],
    },
  },
});
