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
  const platforms = deps.platforms;
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
      // At shutdown (`strays.flush`): a terminal slot, so the strays go out within the stop's flush bound.
      bookTerminalSlot: useBudget
        ? sendTo(
            ({ system, context }) => system.get(budgetOf(context.space)),
            ({ context, self }) => ({
              type: 'budget.terminal.book' as const,
              cardId: `strays@${context.space}`,
              channel: rateChannel(context.space, undefined, platforms),
              write: context.messageId === null ? ('post' as const) : ('edit' as const),
              replyTo: self,
            }),
          )
        : raise({ type: 'budget.funded' as const }),
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
        const { space } = input;
        // Lines past the limit continue in new messages, silent where the platform allows.
        const chunks = packLines(input.lines, maxCharsOf(space));
        let messageId = input.messageId;
        let posted = 0;
        for (const [i, chunk] of chunks.entries()) {
          const frame = frameOf(chunk);
          if (i === 0 && messageId !== null) {
            const id = messageId;
            await paceFor(surface, 'edit', { space, messageId: id }, system._clock, signal);
            await surface.edit({ space, messageId: id, frame }, { signal });
            continue;
          }
          await paceFor(surface, 'post', { space }, system._clock, signal);
          const silent = messageId !== null && surface.capabilities.silentPosts;
          // Each post its own client id: run again (a retry, a restart), it finds the message it made.
          const clientId = posted === 0 ? input.clientId : `${input.clientId}.${posted}`;
          const request = { space, frame, clientId, ...(silent ? { silent: true } : {}) };
          messageId = (await postOnce(surface, deps.store, request, signal)).messageId;
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
