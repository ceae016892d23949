/**
 * The turn machine: one actor per agent turn, keeping ONE activity-log
 * message in the turn's thread and editing it as entries arrive.
 *
 *   idle ──log──▶ opened ──log──▶ debouncing ──edit──▶ opened.live
 *   idle ──ack (Slack: the empty log at once, 👀)──▶ opened
 *                   opened.live ──the platform has a clock (typing, an edit window)──▶ opened.ticking
 *                   opened.ticking: typing every `tick`; the edit window closing ──▶ debouncing (a rollover)
 *                   │                 │  └─rollover─▶ rolling-over ──▶ debouncing | opened.live
 *                   └─first post fails (transiently, 3 times)─▶ degraded (one top-level log message, edited)
 *   proactive: idle ──▶ heading (post `🕒 <title>`, the log threads under it) ──▶ idle
 *   any ──turn.end──▶ flushing (terminal slot, newest frame) ──▶ ended
 *   any ──turn.flush (shutdown)──▶ flushing ──▶ back where it was
 *
 * Every post and edit of the log invokes the frame sender child
 * (machines/frame-sender.machine.ts: the write, then the status it implies);
 * the types and the shared transitions and error policies are in
 * machines/turn.types.ts and machines/turn.policies.ts, the named actions,
 * guards, actors and delays in machines/turn.setup.ts, and the larger
 * states in their own files (machines/turn.quiet.ts: ticking and the status
 * refresh; machines/turn.flushing.ts: the terminal frame).
 *
 * Pure definition: every action, guard, actor and delay is declared by name;
 * the implementations that touch the turn log, the platform and the budget
 * are provided by `createTurnImplementations` (src/runtime/turn.implementations.ts)
 * through `.provide()`; the machine and its split files (setup, states)
 * paste into Stately Studio together.
 *
 * Timers are named delays (`editDebounce`, `editRetry`, `retryAfter`,
 * `budgetRetry`, `tick`); XState does not restore them from a persisted snapshot, so
 * every waiting state re-enters itself on `turn.recover`, which the
 * supervisor sends after restoring a turn.
 */
import { and } from 'xstate';
import { flushingState } from './turn.flushing.js';
import {
  abandonMessage,
  degradeFailed,
  editInput,
  entryParams,
  errorParams,
  flushIfEnded,
  HEADER_POST,
  keepLogging,
  onNotFound,
  onRateLimited,
  postInput,
  postLanded,
  recordOutcome,
  requestingToken,
  warnFailed,
  whileLive,
} from './turn.policies.js';
import { refreshingStatusState, tickingState } from './turn.quiet.js';
import { initialTurnContext, turnSetup } from './turn.setup.js';
import { clientIdFor } from './turn.types.js';

export * from './turn.types.js';

export const turnMachine = turnSetup.createMachine({
  id: 'turn',
  context: ({ input }) => initialTurnContext(input),
  on: {
    // Anywhere: the next frame shows who asked to stop, without the Stop button.
    'turn.stopRequested': {
      actions: { type: 'recordStopRequest', params: ({ event }) => ({ user: event.user }) },
    },
    // A frame in flight: its sender re-arms what XState does not restore (its status booking's wait).
    'turn.recover': { actions: 'recoverFrameSender' },
    // Anywhere: later messages join the turn (issue 26); their log lines come as `turn.log`, the answer goes once.
    'turn.adopt': {
      actions: { type: 'recordAdopted', params: ({ event }) => ({ messages: event.messages }) },
    },
  },
  initial: 'idle',
  states: {
    /** No live log message. The next entry posts one at once (the first frame is never debounced). */
    idle: {
      always: [
        { guard: 'needsHeader', target: 'heading' },
        { guard: 'startsDegraded', target: 'degraded' },
        // The ack: the empty log posted at once, before the first entry (the renderer shows 👀).
        { guard: 'acksAtStart', target: 'opened' },
      ],
      on: {
        'turn.log': {
          target: 'opened',
          actions: { type: 'appendEntry', params: entryParams },
        },
        // Entries left pending by failed posts go out now; with nothing pending there is nothing to flush.
        'turn.flush': { guard: 'hasUnsent', target: 'flushing' },
        'turn.end': [
          {
            guard: 'hasUnsent',
            target: 'flushing',
            actions: recordOutcome,
          },
          {
            target: 'ended',
            actions: recordOutcome,
          },
        ],
      },
    },

    /**
     * A proactive turn (no user message): post its header (`🕒 <title>`)
     * top-level first, then thread the log under it. Entries wait meanwhile.
     */
    heading: {
      on: {
        ...keepLogging,
        'turn.end': {
          actions: recordOutcome,
        },
      },
      // The frame sender asks the budget for the header's token itself (HEADER_POST), then posts it.
      invoke: {
        id: 'postHeader',
        src: 'postMessage',
        input: ({ context }) => ({
          space: context.space,
          frame: { kind: 'prose' as const, markdown: context.header ?? '' },
          // The create's own id until it lands: a retry (5xx, 429, a restart) sends the same one.
          clientId: clientIdFor(context.turnId, context.ordinal + 1),
          // Its token is booked for the turn's card.
          turnId: context.turnId,
          policy: HEADER_POST,
        }),
        onDone: [
          {
            guard: 'endRequested',
            target: 'flushing',
            actions: { type: 'useHeaderAsAnchor', params: ({ event }) => ({ message: event.output }) },
          },
          {
            guard: 'hasUnsent',
            target: 'opened',
            actions: { type: 'useHeaderAsAnchor', params: ({ event }) => ({ message: event.output }) },
          },
          {
            target: 'idle',
            actions: { type: 'useHeaderAsAnchor', params: ({ event }) => ({ message: event.output }) },
          },
        ],
        onError: [
          // The end came while the header was in flight: degraded never ends by itself.
          flushIfEnded(['dropHeader' as const, degradeFailed('header post failed')]),
          { target: 'idle', actions: ['dropHeader', degradeFailed('header post failed')] },
        ],
      },
    },

    /** A log message is being created, or is live with nothing pending. */
    opened: {
      initial: 'requesting',
      on: {
        ...keepLogging,
        'turn.end': {
          actions: recordOutcome,
        },
      },
      states: {
        ...requestingToken('posting'),
        posting: {
          entry: 'prepareFrame',
          invoke: {
            id: 'postLog',
            src: 'postMessage',
            input: ({ context }) => postInput(context, 'log'),
            // Guards see the context before this transition's actions: they compare with the frame just sent.
            onDone: postLanded({
              rollover: '#turn.rolling-over.opening',
              ended: '#turn.flushing',
              unsent: '#turn.debouncing',
              live: 'live',
            }),
            onError: [
              onRateLimited('rateLimited'),
              {
                // A transient failure of the first thread post is tried again (backing off) before degrading.
                guard: { type: 'canRetryFirstPost', params: errorParams },
                target: 'retryingFirstPost',
                actions: 'countFailure',
              },
              {
                // The end came while the first thread post was in flight: degraded never ends by itself.
                guard: and(['isFirstThreadPost', 'endRequested']),
                target: '#turn.flushing',
                actions: ['forgetFailures', degradeFailed('thread post failed')],
              },
              {
                guard: 'isFirstThreadPost',
                target: '#turn.degraded',
                actions: ['forgetFailures', degradeFailed('thread post failed')],
              },
              flushIfEnded(warnFailed('post failed')),
              // Entries stay pending; the next entry (or the end) opens a fresh message.
              { target: '#turn.idle', actions: warnFailed('post failed') },
            ],
          },
        },
        rateLimited: {
          after: { retryAfter: 'requesting' },
          on: { 'turn.recover': { target: 'rateLimited', reenter: true } },
        },
        /** The first thread post failed transiently: wait, then post the newest frame again. */
        retryingFirstPost: {
          after: { firstPostRetry: 'requesting' },
          on: { 'turn.recover': { target: 'retryingFirstPost', reenter: true } },
        },
        live: {
          // Where the platform keeps a clock on a live log (Discord: typing, the edit window), it ticks.
          always: { guard: 'needsTicking', target: 'ticking' },
          // A quiet turn (one long tool) sends no frames: its platform status (Slack's "is working…") is re-sent before it expires.
          after: { statusRefresh: { guard: 'showsLiveStatus', target: 'refreshingStatus' } },
          on: { ...whileLive, 'turn.recover': { target: 'live', reenter: true } },
        },
        ticking: tickingState,
        refreshingStatus: refreshingStatusState,
      },
    },

    /**
     * Entries are pending: one edit per window at most, never postponed past
     * one window by continuous activity (the window is not extended), each
     * edit drawing a progress token from the budget.
     */
    debouncing: {
      initial: 'waiting',
      on: {
        ...keepLogging,
        // The end cuts the wait short: the terminal frame goes out at once.
        'turn.end': {
          target: 'flushing',
          actions: recordOutcome,
        },
        'turn.flush': 'flushing',
      },
      states: {
        waiting: {
          after: { editDebounce: 'requesting' },
          on: { 'turn.recover': { target: 'waiting', reenter: true } },
        },
        requesting: {
          entry: 'requestProgressToken',
          on: {
            'budget.granted': 'preparing',
            'budget.refused': {
              target: 'refused',
              actions: { type: 'recordBudgetRetry', params: ({ event }) => ({ retryInMs: event.retryInMs }) },
            },
            'turn.recover': { target: 'requesting', reenter: true },
          },
        },
        /** Refused: the entries stay pending (no frame is queued); ask again when the budget says. */
        refused: {
          after: { budgetRetry: 'requesting' },
          on: { 'turn.recover': { target: 'refused', reenter: true } },
        },
        /** Render now, at send time. */
        preparing: {
          entry: 'prepareFrame',
          always: [
            { guard: 'frameIsRollover', target: '#turn.rolling-over' },
            { guard: 'frameUnchanged', target: '#turn.opened.live', actions: 'markShown' },
            { target: 'editing' },
          ],
        },
        editing: {
          invoke: {
            id: 'editLog',
            src: 'editMessage',
            input: ({ context }) => editInput(context),
            onDone: [
              { guard: 'hasUnsentAfterFrame', target: 'waiting', actions: ['recordEdited', 'markShown'] },
              { target: '#turn.opened.live', actions: ['recordEdited', 'markShown'] },
            ],
            onError: [
              // Deleted while only the headline changed (Stop): nothing is left to show in a new one.
              {
                guard: { type: 'isNotFoundWithNothingUnsent', params: errorParams },
                target: '#turn.idle',
                actions: ['finalizeCurrent', 'keepUnsentOnly'],
              },
              // A person deleted the log message: open a new one with the pending entries.
              onNotFound('#turn.opened'),
              onRateLimited('rateLimited'),
              { guard: 'canRetryEdit', target: 'retrying', actions: 'countFailure' },
              // Failed twice: stop editing this message; the next entry opens a fresh one with the pending entries.
              abandonMessage('#turn.idle', 'edit failed twice'),
            ],
          },
        },
        retrying: {
          after: { editRetry: 'preparing' },
          on: { 'turn.recover': { target: 'retrying', reenter: true } },
        },
        /** 429: wait the Retry-After, then send the newest frame. */
        rateLimited: {
          after: { retryAfter: 'requesting' },
          on: { 'turn.recover': { target: 'rateLimited', reenter: true } },
        },
      },
    },

    /** The log message is full: finalize it with its final text, open a new one (silent) with the carried entries. */
    'rolling-over': {
      initial: 'finalizing',
      on: {
        ...keepLogging,
        'turn.end': {
          actions: recordOutcome,
        },
      },
      states: {
        finalizing: {
          invoke: {
            id: 'finalizeLog',
            src: 'editMessage',
            input: ({ context }) => editInput(context),
            onDone: { target: 'opening', actions: ['finalizeCurrent', 'applyCarry'] },
            onError: [
              onRateLimited('finalizeRateLimited'),
              // Could not finalize (deleted or failing): the unsent entries move to the new message.
              abandonMessage('opening', 'finalize failed'),
            ],
          },
        },
        finalizeRateLimited: {
          after: {
            retryAfter: [
              // Debouncing forgets an end received here when the next frame no longer rolls over (dropping strategies).
              { guard: 'endRequested', target: '#turn.flushing' },
              { target: '#turn.debouncing.requesting' },
            ],
          },
          on: { 'turn.recover': { target: 'finalizeRateLimited', reenter: true } },
        },
        opening: {
          always: [{ guard: 'endRequested', target: '#turn.flushing' }, { target: '#turn.opened' }],
        },
      },
    },

    /**
     * The first thread post failed (or the turn has no thread): the rest of
     * the turn's log goes top-level, in ONE message edited as entries arrive
     * (a new one only on rollover or when it cannot be edited); the thread is not
     * tried again on every event.
     */
    degraded: {
      initial: 'quiet',
      on: {
        ...keepLogging,
        'turn.end': [
          {
            guard: 'hasUnsent',
            target: 'flushing',
            actions: recordOutcome,
          },
          {
            target: 'ended',
            actions: recordOutcome,
          },
        ],
        'turn.flush': { guard: 'hasUnsent', target: 'flushing' },
      },
      states: {
        quiet: {
          always: { guard: 'hasUnsent', target: 'collecting' },
          on: {
            'turn.log': {
              target: 'collecting',
              actions: { type: 'appendEntry', params: entryParams },
            },
          },
        },
        collecting: {
          after: { editDebounce: 'requesting' },
          on: { 'turn.recover': { target: 'collecting', reenter: true } },
        },
        ...requestingToken('posting'),
        posting: {
          entry: 'prepareFrame',
          // The batch in flight is not cancelled (that could post it twice): the end and a flush wait for it.
          on: {
            'turn.end': {
              actions: recordOutcome,
            },
            'turn.flush': {},
          },
          invoke: {
            id: 'postTopLevel',
            src: 'postMessage',
            input: ({ context }) => postInput(context, 'top-level'),
            // The top-level message is the live log from now on: edited in place like a thread log, not followed by new ones.
            onDone: postLanded({
              rollover: '#turn.rolling-over.opening',
              ended: '#turn.flushing',
              unsent: '#turn.debouncing',
              live: '#turn.opened.live',
            }),
            onError: [
              flushIfEnded(warnFailed('top-level post failed')),
              onRateLimited('rateLimited'),
              // Kept pending: the next batch carries them.
              { target: 'waitingForMore', actions: warnFailed('top-level post failed') },
            ],
          },
        },
        waitingForMore: {
          on: {
            'turn.log': {
              target: 'collecting',
              actions: { type: 'appendEntry', params: entryParams },
            },
          },
        },
        rateLimited: {
          after: { retryAfter: 'requesting' },
          on: { 'turn.recover': { target: 'rateLimited', reenter: true } },
        },
      },
    },

    flushing: flushingState,

    ended: {
      type: 'final',
      entry: 'releaseCard',
    },
  },
});
