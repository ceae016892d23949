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
 * machines/turn.types.ts and machines/turn.policies.ts.
 *
 * Pure definition: every action, guard, actor and delay is declared by name;
 * the implementations that touch the turn log, the platform and the budget
 * are provided by `createTurnImplementations` (src/runtime/turn.implementations.ts)
 * through `.provide()`, so this file pastes into Stately Studio as it is.
 *
 * Timers are named delays (`editDebounce`, `editRetry`, `retryAfter`,
 * `budgetRetry`, `tick`); XState does not restore them from a persisted snapshot, so
 * every waiting state re-enters itself on `turn.recover`, which the
 * supervisor sends after restoring a turn.
 */
import { and, assign, or, setup } from 'xstate';
import type { ActionUser } from '../src/actions/types.js';
import type { PostedMessage } from '../src/surfaces/surface.js';
import { errorKind } from './errors.js';
import { frameSenderMachine } from './frame-sender.machine.js';
import {
  abandonMessage,
  degradeFailed,
  editInput,
  entryParams,
  errorParams,
  flushIfEnded,
  frameText,
  keepLogging,
  onNotFound,
  onRateLimited,
  postInput,
  postLanded,
  recordOutcome,
  requestingToken,
  terminalFailure,
  typingInput,
  warnFailed,
  whileLive,
} from './turn.policies.js';
import {
  clientIdFor,
  DEFAULT_TURN_TITLE,
  type EditInput,
  FIRST_POST_ATTEMPTS,
  frameKey,
  type PostedLog,
  type TurnContext,
  type TurnEvent,
  type TurnInput,
  type TurnLogItem,
  type TurnOutcome,
  type TypingInput,
} from './turn.types.js';

export * from './turn.types.js';

export const turnMachine = setup({
  types: {
    context: {} as TurnContext,
    events: {} as TurnEvent,
    input: {} as TurnInput,
  },
  actions: {
    // Turn-log operations (provided: they use the condenser).
    appendEntry: (_, _params: TurnLogItem & { following?: TurnLogItem[] }) => {},
    prepareFrame: () => {},
    applyCarry: () => {},
    keepUnsentOnly: () => {},
    markShown: () => {},
    deadLetterUnsent: (_, _params: { reason: string }) => {},
    // Budget messages (provided: they address the budget actor of the platform).
    // The write is a post while the turn has no current message, an edit once it has; a status says so.
    requestProgressToken: (_, _params?: { write: 'status' }) => {},
    bookTerminalSlot: () => {},
    reportRateLimited: (_, _params: { retryAfterMs: number }) => {},
    releaseCard: () => {},
    /** Provided: tells the frame sender in flight, if any, that the turn was restored (`frame.recover`). */
    recoverFrameSender: () => {},
    /** Remembers who asked the turn to stop (provided: it names the person as the chat may show). */
    recordStopRequest: (_, _params: { user: ActionUser }) => {},
    // Pure bookkeeping.
    recordOutcome: assign((_, params: { outcome: TurnOutcome }) => ({ outcome: params.outcome })),
    recordPosted: assign(({ context }, params: { message: PostedLog }) => ({
      ordinal: context.ordinal + 1,
      current: params.message,
      logMessages: [...context.logMessages, { ...params.message, final: false }],
      // The first post in a turn tells us the thread id (Discord creates the thread, Slack/GChat report it).
      anchor:
        context.anchor && !context.anchor.threadId && params.message.threadId
          ? { ...context.anchor, threadId: params.message.threadId }
          : context.anchor,
      lastSentText: frameKey(context.frame),
      failures: 0,
    })),
    dropHeader: assign({ header: null }),
    useHeaderAsAnchor: assign(({ context }, params: { message: PostedMessage }) => ({
      ordinal: context.ordinal + 1,
      header: null,
      anchor: {
        rootMessageId: params.message.messageId,
        ...(params.message.threadId ? { threadId: params.message.threadId } : {}),
      },
    })),
    recordEdited: assign(({ context }) => ({ lastSentText: frameKey(context.frame), failures: 0 })),
    finalizeCurrent: assign(({ context }) => ({
      current: null,
      lastSentText: null,
      logMessages: context.logMessages.map((m) =>
        m.messageId === context.current?.messageId ? { ...m, final: true } : m,
      ),
    })),
    recordRetryAfter: assign((_, params: { retryAfterMs: number }) => ({
      retryAfterMs: params.retryAfterMs,
    })),
    recordBudgetRetry: assign((_, params: { retryInMs: number }) => ({ budgetRetryMs: params.retryInMs })),
    countFailure: assign(({ context }) => ({ failures: context.failures + 1 })),
    forgetFailures: assign({ failures: 0 }),
    degradeToTopLevel: assign(({ context }, params: { reason: string }) => ({
      anchor: null,
      degradedReason: params.reason,
      lostThread: true,
      warnings: [...context.warnings, `log degraded to top-level: ${params.reason}`],
    })),
    warn: assign(({ context }, params: { message: string }) => ({
      warnings: [...context.warnings, params.message],
    })),
  },
  guards: {
    hasUnsent: ({ context }) => context.appended > context.shown,
    /** Entries arrived while the frame was in flight. */
    hasUnsentAfterFrame: ({ context }) => context.appended > (context.frame?.appended ?? context.shown),
    endRequested: ({ context }) => context.outcome !== null,
    startsDegraded: ({ context }) => context.anchor === null,
    needsHeader: ({ context }) => context.header !== null,
    /** The turn acks at start (Slack's 👀 card) and has posted nothing yet. */
    acksAtStart: ({ context }) => context.ack === true && context.ordinal === 0 && context.current === null,
    isFirstThreadPost: ({ context }) => context.anchor !== null && context.logMessages.length === 0,
    frameIsRollover: ({ context }) => context.frame?.kind === 'rollover',
    frameUnchanged: ({ context }) =>
      context.frame?.kind === 'fits' && frameKey(context.frame) === context.lastSentText,
    frameIsEmpty: ({ context }) => frameText(context) === '',
    hasCurrentMessage: ({ context }) => context.current !== null,
    canRetryEdit: ({ context }) => context.failures < 1,
    /** The first thread post failed transiently (5xx, timeout) and has attempts left. */
    canRetryFirstPost: ({ context }, params: { error: unknown }) =>
      context.anchor !== null &&
      context.logMessages.length === 0 &&
      errorKind(params.error) === 'transient' &&
      context.failures < FIRST_POST_ATTEMPTS - 1,
    /** Attempts left, and the platform may still take it: a `forbidden` answer (no access, archived, gone) will not change. */
    canRetryTerminal: ({ context }, params: { error: unknown }) =>
      context.failures < context.settings.terminalAttempts && errorKind(params.error) !== 'forbidden',
    isNotFound: (_, params: { error: unknown }) => errorKind(params.error) === 'not-found',
    /** 404 on an edit that only changed the headline (Stop): every entry was shown already. */
    isNotFoundWithNothingUnsent: ({ context }, params: { error: unknown }) =>
      errorKind(params.error) === 'not-found' && context.appended <= context.shown,
    isRateLimited: (_, params: { error: unknown }) => errorKind(params.error) === 'rate-limited',
    // Provided: they read the platform (its typing indicator, its edit window) and the clock.
    /** The platform shows a typing indicator the turn refreshes while its log is live and quiet. */
    showsTyping: () => false,
    /** The live log message will reach the platform's edit window (its age limit). */
    hasEditWindow: () => false,
    /** The live log message is about to reach the end of its edit window: roll over now. */
    editWindowClosing: () => false,
    needsTicking: or(['showsTyping', 'hasEditWindow']),
    /** Provided: the platform keeps a status for the live log (Slack) and the frame shows a tool in flight. */
    showsLiveStatus: () => false,
  },
  actors: {
    // The frame sender (machines/frame-sender.machine.ts): the write, then the status it implies.
    // Its implementations are provided (the platform's ChatSurface, the budget).
    postMessage: frameSenderMachine,
    editMessage: frameSenderMachine,
    showTyping: {} as import('xstate').PromiseActorLogic<void, TypingInput>,
    /** Re-sends the platform status the live frame implies (Slack's assistant status), without editing. */
    refreshStatus: {} as import('xstate').PromiseActorLogic<void, EditInput>,
  },
  delays: {
    editDebounce: ({ context }) => context.settings.editDebounceMs,
    editRetry: ({ context }) => context.settings.editRetryMs,
    /** Backs off: the edit retry delay, doubled after each failed first post (500 ms, 1 s by default). */
    firstPostRetry: ({ context }) => context.settings.editRetryMs * 2 ** Math.max(0, context.failures - 1),
    retryAfter: ({ context }) => context.retryAfterMs,
    budgetRetry: ({ context }) => context.budgetRetryMs,
    /** Provided: until the next typing indicator is due or the edit window closes, whichever comes first. */
    tick: () => 8000,
    /** Inside Slack's 2-minute status expiry, with room for a slow budget (docs/platforms.md). */
    statusRefresh: 90_000,
  },
}).createMachine({
  id: 'turn',
  context: ({ input }) => ({
    turnId: input.turnId,
    space: input.space,
    settings: input.settings,
    anchor: input.anchor,
    log: null,
    appended: 0,
    entryCount: 0,
    shown: 0,
    frame: null,
    current: null,
    logMessages: [],
    lastSentText: null,
    ordinal: 0,
    retryAfterMs: 0,
    budgetRetryMs: 0,
    failures: 0,
    outcome: null,
    header: input.anchor === null && input.header ? input.header : null,
    degradedReason:
      input.anchor === null && !input.header ? (input.degradedReason ?? 'no thread for this turn') : null,
    deadLetters: [],
    warnings: input.warnings ?? [],
    title: input.title ?? DEFAULT_TURN_TITLE,
    ack: input.ack === true && input.anchor !== null,
    startedAt: input.startedAt ?? null,
    toolInFlight: null,
    lastToolAt: null,
    stopRequest: null,
  }),
  on: {
    // Anywhere: the next frame shows who asked to stop, without the Stop button.
    'turn.stopRequested': {
      actions: { type: 'recordStopRequest', params: ({ event }) => ({ user: event.user }) },
    },
    // A frame in flight: its sender re-arms what XState does not restore (its status booking's wait).
    'turn.recover': { actions: 'recoverFrameSender' },
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
          invoke: {
            id: 'postHeader',
            src: 'postMessage',
            input: ({ context }) => ({
              space: context.space,
              frame: { kind: 'prose' as const, markdown: context.header ?? '' },
              // The create's own id until it lands: a retry (5xx, 429, a restart) sends the same one.
              clientId: clientIdFor(context.turnId, context.ordinal + 1),
            }),
            onDone: [
              {
                guard: 'endRequested',
                target: '#turn.flushing',
                actions: { type: 'useHeaderAsAnchor', params: ({ event }) => ({ message: event.output }) },
              },
              {
                guard: 'hasUnsent',
                target: '#turn.opened',
                actions: { type: 'useHeaderAsAnchor', params: ({ event }) => ({ message: event.output }) },
              },
              {
                target: '#turn.idle',
                actions: { type: 'useHeaderAsAnchor', params: ({ event }) => ({ message: event.output }) },
              },
            ],
            onError: [
              // The end came while the header was in flight: degraded never ends by itself.
              flushIfEnded(['dropHeader' as const, degradeFailed('header post failed')]),
              { target: '#turn.idle', actions: ['dropHeader', degradeFailed('header post failed')] },
            ],
          },
        },
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
        /**
         * Live and quiet, on a platform with a clock: every `tick` a typing
         * indicator (asking the budget first: it is a write; a refusal skips
         * it, a 429 backs off for its Retry-After), and before the log message
         * reaches the end of its edit window the turn rolls over to a fresh
         * (silent) message. Left at the next entry or the end.
         */
        ticking: {
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
        },
        /** The status is re-sent with a progress token, like any write; new entries or the end cut it short. */
        refreshingStatus: {
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
        },
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

    /**
     * The newest frame goes out at once through a terminal slot: on
     * `turn_ended` (then the turn ends; nothing is sent after) and on a
     * shutdown flush (`turn.flush`; then the turn goes on where it was, to be
     * resumed by the next process).
     */
    flushing: {
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
    },

    ended: {
      type: 'final',
      entry: 'releaseCard',
    },
  },
});
