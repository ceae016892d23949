/**
 * The stray log's implementations: its write (a post, then edits of that
 * message) through the surface, a progress token from the space's budget, and
 * the dead letter for lines no write could show.
 */
import { fromPromise, raise, sendTo } from 'xstate';
import { describeError } from '../../machines/errors.js';
import {
  type StrayWriteInput,
  type StrayWriteOutput,
  strayLogMachine,
} from '../../machines/stray-log.machine.js';
import { systemClock } from '../clock.js';
import { type FrameLine, plainLine, type SurfaceFrame } from '../surfaces/frame.js';
import { createBudgetClient } from './budget-client.js';
import { createPacedCalls, surfaceResolver } from './posting.js';
import type { TurnImplementationDeps } from './turn.implementations.js';

export type StrayLogImplementations = Parameters<typeof strayLogMachine.provide>[0];

export interface StrayLogDeps extends TurnImplementationDeps {
  now: () => number;
  /** A write that failed for good: its lines are kept as a dead letter. */
  onDeadLetter?: (space: string, reason: string, text: string) => void;
}

const frameOf = (lines: FrameLine[]): SurfaceFrame => ({ kind: 'log', lines });

export function createStrayLogImplementations(deps: StrayLogDeps): StrayLogImplementations {
  const surfaceFor = surfaceResolver(deps.surfaces, deps.platforms);
  const budget = createBudgetClient(deps);
  const calls = createPacedCalls({ surfaceFor, refs: deps.store, clock: deps.clock ?? systemClock });
  const budgetOf = (space: string) => budget.systemIdOf(space);
  /** Strays are top-level: the space is the scope, their card the space's. */
  const ask = (space: string) => ({ space, cardId: `strays@${space}` });
  const maxCharsOf = (space: string): number => {
    try {
      return surfaceFor(space).capabilities.maxChars;
    } catch {
      return Number.POSITIVE_INFINITY;
    }
  };
  return {
    actions: {
      // A progress token, never a terminal slot: answers and cards book those and never wait behind strays.
      requestProgressToken: budget.enabled
        ? sendTo(
            ({ system, context }) => system.get(budgetOf(context.space)),
            ({ context, self }) => budget.progress(ask(context.space), self),
          )
        : raise({ type: 'budget.granted' as const }),
      // At shutdown (`strays.flush`): a terminal slot, so the strays go out within the stop's flush bound.
      bookTerminalSlot: budget.enabled
        ? sendTo(
            ({ system, context }) => system.get(budgetOf(context.space)),
            ({ context, self }) =>
              budget.terminal(
                { ...ask(context.space), write: context.messageId === null ? 'post' : 'edit' },
                self,
              ),
          )
        : raise({ type: 'budget.funded' as const }),
      reportRateLimited: budget.enabled
        ? sendTo(
            ({ system, context }) => system.get(budgetOf(context.space)),
            ({ context }, params: { retryAfterMs: number }) =>
              budget.rateLimited({ space: context.space }, params.retryAfterMs),
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
      writeStrays: fromPromise<StrayWriteOutput, StrayWriteInput>(async ({ input, signal }) => {
        const surface = surfaceFor(input.space);
        const { space } = input;
        // Lines past the limit continue in new messages, silent where the platform allows.
        const chunks = packLines(input.lines, maxCharsOf(space));
        let messageId = input.messageId;
        let posted = 0;
        for (const [i, chunk] of chunks.entries()) {
          const frame = frameOf(chunk);
          if (i === 0 && messageId !== null) {
            await calls.edit({ space, messageId, frame }, signal);
            continue;
          }
          const silent = messageId !== null && surface.capabilities.silentPosts;
          // Each post its own client id: run again (a retry, a restart), it finds the message it made.
          const clientId = posted === 0 ? input.clientId : `${input.clientId}.${posted}`;
          const request = { space, frame, clientId, ...(silent ? { silent: true } : {}) };
          messageId = (await calls.post(request, signal)).messageId;
          posted += 1;
        }
        const last = chunks.at(-1)?.length ?? 0;
        return {
          generation: input.generation,
          sent: input.lines.length,
          closed: input.lines.length - last,
          messageId: messageId ?? '',
          posted,
        };
      }),
    },
  };
}

/** Lines packed greedily into messages of at most `maxChars` (plain form, one line each). */
function packLines(lines: FrameLine[], maxChars: number): FrameLine[][] {
  const chunks: FrameLine[][] = [];
  let current: FrameLine[] = [];
  let size = 0;
  for (const line of lines) {
    const cost = plainLine(line).length + 1;
    if (current.length > 0 && size + cost > maxChars) {
      chunks.push(current);
      current = [];
      size = 0;
    }
    current.push(line);
    size += cost;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

export const provideStrayLogMachine = (deps: StrayLogDeps) =>
  strayLogMachine.provide(createStrayLogImplementations(deps));
