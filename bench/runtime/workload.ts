/**
 * The benchmark's turns. A turn is a list of rounds; turns run interleaved:
 * round r sends every turn's r-th step, then the simulated clock moves on,
 * so debounce windows fire while the turns are live.
 */
import type { BenchRuntime } from './harness.js';

export interface TurnPlan {
  turnId: string;
  space: string;
  /** The id of the person's message the turn's thread hangs off. */
  rootId: string;
}

/** One step of a turn: the events it sends in one round. */
export type Round = (turn: TurnPlan) => Record<string, unknown>[];

/** A person's message, then the turn that answers it (anchored by `rootRef`, the ring of recent messages). */
export const openOnInbound: Round = ({ turnId, space, rootId }) => [
  { type: 'inbound', space, messageId: rootId, threadId: rootId, ref: turnId },
  { type: 'turn_started', space, turnId, rootRef: turnId },
];

/** The turn starts on a message the host names itself (no inbound event). */
export const openOnRoot: Round = ({ turnId, space, rootId }) => [
  { type: 'turn_started', space, turnId, root: { messageId: rootId, threadId: rootId } },
];

export const toolCall =
  (n: number): Round =>
  ({ turnId, space }) => [
    { type: 'tool_call', space, turnId, callId: `c${n}`, tool: 'Read', input: { path: `src/module${n}.ts` } },
  ];

export const toolCallAndResult =
  (n: number): Round =>
  (turn) => [
    ...toolCall(n)(turn),
    {
      type: 'tool_result',
      space: turn.space,
      turnId: turn.turnId,
      callId: `c${n}`,
      tool: 'Read',
      ok: true,
      output: `export const value${n} = ${n};`,
    },
  ];

export const answerAndEnd: Round = ({ turnId, space }) => [
  { type: 'answer', space, turnId, text: `Done with ${turnId}.` },
  { type: 'turn_ended', space, turnId, outcome: 'ok' },
];

/** Events one turn sends through `rounds`. */
export function eventsPerTurn(rounds: readonly Round[]): number {
  const sample: TurnPlan = { turnId: 'T', space: 'gchat:spaces/S', rootId: 'u' };
  return rounds.reduce((n, round) => n + round(sample).length, 0);
}

/** Turns `first`…`first + count - 1`, spread round-robin over `spaces` Google Chat spaces. */
export function planTurns(
  count: number,
  spaces: number,
  rootId: (space: string, turn: number) => string,
  first = 0,
): TurnPlan[] {
  return Array.from({ length: count }, (_, i) => {
    const n = first + i;
    const space = `gchat:spaces/S${n % spaces}`;
    return { turnId: `T${n}`, space, rootId: rootId(space, n) };
  });
}

/** Stops a long run early; asked every `STOP_CHECK_TURNS` turns of a round and between the timers of the drain. */
export type StopWhen = () => boolean;

const STOP_CHECK_TURNS = 100;

/**
 * Sends every turn's rounds (`roundMs` of simulated time between rounds),
 * then drains: every timer fired, every call answered. Returns false when
 * `stop` cut it short.
 */
export async function runTurns(
  bench: BenchRuntime,
  turns: readonly TurnPlan[],
  rounds: readonly Round[],
  roundMs: number,
  stop: StopWhen = () => false,
): Promise<boolean> {
  for (const round of rounds) {
    for (const [i, turn] of turns.entries()) {
      for (const event of round(turn)) bench.ingest(event);
      if (i % STOP_CHECK_TURNS === STOP_CHECK_TURNS - 1 && stop()) return false;
    }
    await bench.advance(roundMs);
    if (stop()) return false;
  }
  return bench.drain(stop);
}
