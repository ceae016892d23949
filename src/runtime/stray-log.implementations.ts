/**
 * The stray log's implementations: its write (a post, then edits of that
 * message) through the surface, a progress token from the space's budget, and
 * the dead letter for lines no write could show.
 */
import { fromPromise, raise, sendTo } from 'xstate';
import { budgetSystemId } from '../../machines/budget.protocol.js';
import { describeError } from '../../machines/errors.js';
import {
  type StrayWriteInput,
  type StrayWriteOutput,
  strayLogMachine,
} from '../../machines/stray-log.machine.js';
import { builtinPlatforms } from '../platforms/registry.js';
import { type FrameLine, plainLine, type SurfaceFrame } from '../surfaces/frame.js';
import { paceFor, postOnce, rateChannel, surfaceResolver } from './posting.js';
import type { TurnImplementationDeps } from './turn.implementations.js';

export type StrayLogImplementations = Parameters<typeof strayLogMachine.provide>[0];

export interface StrayLogDeps extends TurnImplementationDeps {
  now: () => number;
  /** A write that failed for good: its lines are kept as a dead letter. */
  onDeadLetter?: (space: string, reason: string, text: string) => void;
}

const frameOf = (lines: FrameLine[]): SurfaceFrame => ({ kind: 'log', lines });

export function createStrayLogImplementations(deps: StrayLogDeps): StrayLogImplementations {
  const platforms = deps.platforms ?? builtinPlatforms;
  const surfaceFor = surfaceResolver(deps.surfaces, platforms);
  const budgetOf = (space: string) => budgetSystemId(platforms.forSpace(space).id);
  const useBudget = (deps.budget ?? 'system') === 'system';
  const maxCharsOf = (space: string): number => {
    try {
      return surfaceFor(space).capabilities.maxChars;
    } catch {
      return Number.POSITIVE_INFINITY;
    }
  };
  return {
    guards: {
      // The plain form is what the size limit is measured on (one line each, plus the newlines).
      fits: ({ context }, params) =>
        params.lines.length === 0 ||
        [...params.lines, params.line].reduce((sum, line) => sum + plainLine(line).length + 1, 0) <=
          maxCharsOf(context.space),
    },
    actions: {
      // A progress token, never a terminal slot: answers and cards book those and never wait behind strays.
      requestProgressToken: useBudget
        ? sendTo(
            ({ system, context }) => system.get(budgetOf(context.space)),
            ({ context, self }) => ({
              type: 'budget.progress.request' as const,
              cardId: `strays@${context.space}`,
              channel: rateChannel(context.space, undefined, platforms),
              replyTo: self,
            }),
          )
        : raise({ type: 'budget.granted' as const }),
      reportRateLimited: useBudget
        ? sendTo(
            ({ system, context }) => system.get(budgetOf(context.space)),
            ({ context }, params: { retryAfterMs: number }) => ({
              type: 'budget.rate-limited' as const,
              retryAfterMs: params.retryAfterMs,
              channel: rateChannel(context.space, undefined, platforms),
            }),
          )
        : () => {},
      deadLetter: ({ context }, params) =>
        deps.onDeadLetter?.(
          context.space,
          `stray log: ${describeError(params.error)}`,
          params.lines.map(plainLine).join('\n'),
        ),
    },
    actors: {
      writeStrays: fromPromise<StrayWriteOutput, StrayWriteInput>(async ({ input, signal, system }) => {
        const surface = surfaceFor(input.space);
        const frame = frameOf(input.lines);
        const done = { generation: input.generation, sent: input.lines.length };
        if (input.messageId === null) {
          await paceFor(surface, 'post', { space: input.space }, system._clock, signal);
          const posted = await postOnce(surface, deps.store, { space: input.space, frame }, signal);
          return { ...done, messageId: posted.messageId };
        }
        const { messageId } = input;
        await paceFor(surface, 'edit', { space: input.space, messageId }, system._clock, signal);
        await surface.edit({ space: input.space, messageId, frame }, { signal });
        return { ...done, messageId };
      }),
    },
  };
}

export const provideStrayLogMachine = (deps: StrayLogDeps) =>
  strayLogMachine.provide(createStrayLogImplementations(deps));
