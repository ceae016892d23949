/**
 * A turn's presence on the person's message (issue 26): the reactions on its
 * roots (👀 while it runs, then ✅ / ❌ / ⏹️, the 👀 removed) and the
 * platform's typing indicator (Discord) from the start, every `typingInterval`
 * while live. Spawned by the space next to the turn (`presence:<turnId>`);
 * the space tells it about adopted messages (`presence.adopt`) and the end
 * (`presence.end`).
 *
 * Every write is advisory (`budget.advisory.request`): granted only from
 * tokens no frame or answer is owed, so it never delays one. A 👀 that is
 * refused is skipped; a final reaction (and the 👀's removal) is asked for
 * again after `finalRetry` until it goes. A root the app cannot react to
 * (403, 404) is a warning, never a failure. Pure: implementations are
 * provided (src/runtime/presence.implementations.ts).
 */
import { and, assign, setup } from 'xstate';
import type { AdvisoryAnswerEvent } from './budget.protocol.js';

export type PresenceOutcome = 'ok' | 'error' | 'stopped';

/** A message the turn answers: its root, or one it adopted. */
export interface PresenceRoot {
  messageId: string;
  threadId?: string;
}

/** One reaction write: add or remove `emoji` on a root; a `skippable` one (the 👀) is dropped when refused. */
export interface ReactionJob {
  kind: 'add' | 'remove';
  root: PresenceRoot;
  emoji: string;
  skippable: boolean;
}

export interface PresenceInput {
  turnId: string;
  space: string;
  roots: PresenceRoot[];
  /** React on the roots (`visibility.reactions` and a platform with reactions). */
  reactions: boolean;
  /** Show typing (a platform with a typing indicator). */
  typing: boolean;
  /** The emoji while the turn runs, and per outcome. */
  emoji: { working: string; ok: string; error: string; stopped: string };
}

export interface PresenceContext extends PresenceInput {
  /** Reactions still to write, in order; the head is the one being asked for or sent. */
  jobs: ReactionJob[];
  /** Roots whose 👀 was sent (or is being sent): their 👀 is removed at the end. */
  eyed: string[];
  outcome: PresenceOutcome | null;
  /** The last 429's Retry-After (ms). */
  retryAfterMs: number;
}

export type PresenceEvent =
  | { type: 'presence.adopt'; roots: PresenceRoot[] }
  | { type: 'presence.end'; outcome: PresenceOutcome }
  | AdvisoryAnswerEvent;

const working = (context: PresenceContext, root: PresenceRoot): ReactionJob => ({
  kind: 'add',
  root,
  emoji: context.emoji.working,
  skippable: true,
});

const isGranted = (event: PresenceEvent, purpose: string): boolean =>
  event.type === 'budget.advisory.answer' && event.purpose === purpose && event.granted;
const isAnswer = (event: PresenceEvent, purpose: string): boolean =>
  event.type === 'budget.advisory.answer' && event.purpose === purpose;

export const presenceMachine = setup({
  types: {
    context: {} as PresenceContext,
    events: {} as PresenceEvent,
    input: {} as PresenceInput,
  },
  actions: {
    /** Provided: asks the space's budget for an advisory write (`purpose` `reaction` or `typing`). */
    requestAdvisory: (_, _params: { purpose: 'reaction' | 'typing'; method?: string }) => {},
    /** Provided: tells the budget the platform answered 429 (it cools off the scope). */
    reportRateLimited: (_, _params: { error: unknown }) => {},
    recordRetryAfter: assign((_, params: { error: unknown }) => ({
      retryAfterMs: (params.error as { retryAfterMs?: number } | null)?.retryAfterMs ?? 1000,
    })),
    /** Provided: a root the app could not react to, kept as the turn's warning. */
    warn: (_, _params: { message: string }) => {},
    adoptRoots: assign(({ context }, params: { roots: PresenceRoot[] }) => {
      const known = new Set(context.roots.map((r) => r.messageId));
      const fresh = params.roots.filter((r) => !known.has(r.messageId));
      return {
        roots: [...context.roots, ...fresh],
        jobs: context.reactions ? [...context.jobs, ...fresh.map((r) => working(context, r))] : context.jobs,
      };
    }),
    /** The head job is going out: a 👀 on its way is removed at the end. */
    markSending: assign(({ context }) => {
      const job = context.jobs[0];
      if (!job || job.kind !== 'add' || job.emoji !== context.emoji.working) return {};
      return { eyed: [...context.eyed, job.root.messageId] };
    }),
    dropHead: assign(({ context }) => ({ jobs: context.jobs.slice(1) })),
    /** The head 👀 failed for good (403, 404): there is none to remove at the end. */
    unmarkSending: assign(({ context }) => {
      const job = context.jobs[0];
      if (!job || job.kind !== 'add' || job.emoji !== context.emoji.working) return {};
      return { eyed: context.eyed.filter((id) => id !== job.root.messageId) };
    }),
    /**
     * The end: 👀s not yet asked for are dropped; every root gets the
     * outcome's reaction, and the 👀 sent on it is removed.
     */
    finish: assign(({ context }, params: { outcome: PresenceOutcome }) => {
      if (!context.reactions) return { outcome: params.outcome, jobs: [] };
      const [head, ...queued] = context.jobs;
      const kept = [...(head ? [head] : []), ...queued.filter((job) => !job.skippable)];
      const emoji = context.emoji[params.outcome];
      const finals: ReactionJob[] = context.roots.flatMap((root) => [
        { kind: 'add' as const, root, emoji, skippable: false },
        ...(context.eyed.includes(root.messageId) ||
        (head?.skippable && head.root.messageId === root.messageId)
          ? [{ kind: 'remove' as const, root, emoji: context.emoji.working, skippable: false }]
          : []),
      ]);
      return { outcome: params.outcome, jobs: [...kept, ...finals] };
    }),
  },
  guards: {
    hasJob: ({ context }) => context.jobs.length > 0,
    headSkippable: ({ context }) => context.jobs[0]?.skippable === true,
    showsTyping: ({ context }) => context.typing,
    ended: ({ context }) => context.outcome !== null,
    live: ({ context }) => context.outcome === null,
    reactionGranted: ({ event }) => isGranted(event, 'reaction'),
    reactionAnswer: ({ event }) => isAnswer(event, 'reaction'),
    typingGranted: ({ event }) => isGranted(event, 'typing'),
    typingAnswer: ({ event }) => isAnswer(event, 'typing'),
    /** Provided: the error is the platform's 429. */
    isRateLimited: (_, _params: { error: unknown }) => false,
  },
  actors: {
    react: {} as import('xstate').PromiseActorLogic<void, { space: string; job: ReactionJob }>,
    showTyping: {} as import('xstate').PromiseActorLogic<void, { space: string }>,
  },
  delays: {
    /** Discord shows typing for 10 s: refreshed before it fades. */
    typingInterval: 8000,
    retryAfter: ({ context }) => context.retryAfterMs,
    /** A refused final reaction asks again after this long (it is never skipped). */
    finalRetry: 2000,
  },
}).createMachine({
  id: 'presence',
  context: ({ input }) => ({
    ...input,
    jobs: input.reactions ? input.roots.map((root) => working(input as PresenceContext, root)) : [],
    eyed: [],
    outcome: null,
    retryAfterMs: 0,
  }),
  type: 'parallel',
  on: {
    'presence.adopt': {
      guard: 'live',
      actions: { type: 'adoptRoots', params: ({ event }) => ({ roots: event.roots }) },
    },
    'presence.end': {
      guard: 'live',
      actions: { type: 'finish', params: ({ event }) => ({ outcome: event.outcome }) },
    },
  },
  states: {
    reactions: {
      initial: 'idle',
      states: {
        /** Between writes: the next job, or (once ended with none left) done. Adoption and the end add jobs. */
        idle: {
          always: [
            { guard: 'hasJob', target: 'asking' },
            { guard: 'ended', target: 'done' },
          ],
        },
        asking: {
          entry: {
            type: 'requestAdvisory',
            params: ({ context }) => ({
              purpose: 'reaction' as const,
              method: context.jobs[0]?.kind === 'remove' ? 'reactions.remove' : 'reactions.add',
            }),
          },
          on: {
            'budget.advisory.answer': [
              { guard: 'reactionGranted', target: 'sending', actions: 'markSending' },
              // Under pressure the 👀 is skipped, never the final reaction: that one asks again.
              { guard: and(['reactionAnswer', 'headSkippable']), target: 'idle', actions: 'dropHead' },
              { guard: 'reactionAnswer', target: 'waiting' },
            ],
          },
        },
        waiting: { after: { finalRetry: 'asking' } },
        sending: {
          invoke: {
            id: 'react',
            src: 'react',
            input: ({ context }) => ({ space: context.space, job: context.jobs[0]! }),
            onDone: { target: 'idle', actions: 'dropHead' },
            onError: [
              {
                guard: { type: 'isRateLimited', params: ({ event }) => ({ error: event.error }) },
                target: 'waiting',
                actions: { type: 'reportRateLimited', params: ({ event }) => ({ error: event.error }) },
              },
              {
                target: 'idle',
                actions: [
                  {
                    type: 'warn',
                    params: ({ context, event }) => ({
                      message: `could not ${context.jobs[0]?.kind === 'remove' ? 'remove' : 'add'} ${context.jobs[0]?.emoji} on ${context.jobs[0]?.root.messageId}: ${String((event.error as Error)?.message ?? event.error)}`,
                    }),
                  },
                  'unmarkSending',
                  'dropHead',
                ],
              },
            ],
          },
        },
        done: { type: 'final' },
      },
    },
    typing: {
      initial: 'check',
      states: {
        check: {
          always: [
            { guard: 'ended', target: 'done' },
            { guard: 'showsTyping', target: 'asking' },
            { target: 'done' },
          ],
        },
        asking: {
          entry: { type: 'requestAdvisory', params: { purpose: 'typing' as const, method: 'typing' } },
          always: { guard: 'ended', target: 'done' },
          on: {
            'budget.advisory.answer': [
              { guard: 'typingGranted', target: 'sending' },
              { guard: 'typingAnswer', target: 'resting' },
            ],
          },
        },
        sending: {
          always: { guard: 'ended', target: 'done' },
          invoke: {
            id: 'typing',
            src: 'showTyping',
            input: ({ context }) => ({ space: context.space }),
            onDone: 'resting',
            onError: [
              // 429: no typing for the Retry-After (the budget cools off the scope too), then again.
              {
                guard: { type: 'isRateLimited', params: ({ event }) => ({ error: event.error }) },
                target: 'backingOff',
                actions: [
                  { type: 'recordRetryAfter', params: ({ event }) => ({ error: event.error }) },
                  { type: 'reportRateLimited', params: ({ event }) => ({ error: event.error }) },
                ],
              },
              // Advisory: a failed indicator is not a failed turn; the next interval tries again.
              { target: 'resting' },
            ],
          },
        },
        backingOff: {
          always: { guard: 'ended', target: 'done' },
          after: { retryAfter: 'resting' },
        },
        resting: {
          always: { guard: 'ended', target: 'done' },
          after: { typingInterval: 'check' },
        },
        done: { type: 'final' },
      },
    },
  },
});
