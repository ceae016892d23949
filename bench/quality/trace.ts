/**
 * Deterministic agent traces for the quality bench: seeded, so every
 * contender sees the same events at the same simulated times.
 *
 * A turn is a run of segments until it has about `events` events: bursts of
 * quick tool calls (most of the time), think gaps (3–15 s of silence), long
 * tools (a result 20–60 s after its call), large outputs (2–8k characters)
 * and subagents (a `subagent` started/done pair around a few nested calls).
 * Every tool call carries a unique path (its marker), so a contender's writes
 * can be searched for the first one that shows it.
 */
import { seeded } from '../runtime/seeded.js';

export interface TraceEvent {
  at: number;
  event: Record<string, unknown>;
  /** Text a write must contain to show this event (tool calls and the answer). */
  marker?: string;
}

export interface TurnTrace {
  turnId: string;
  space: string;
  startAt: number;
  events: TraceEvent[];
}

const TOOLS = ['Read', 'Grep', 'Bash', 'Edit', 'Glob'];

export function generateTurn(
  seed: number,
  turnId: string,
  space: string,
  startAt: number,
  events = 200,
): TurnTrace {
  const random = seeded(seed);
  const between = (lo: number, hi: number) => lo + Math.floor(random() * (hi - lo));
  const out: TraceEvent[] = [];
  let at = startAt;
  let n = 0;
  const scoped = { space, turnId };
  const call = (extra: Record<string, unknown> = {}, resultAfterMs = between(100, 800), output?: string) => {
    const callId = `c${n}`;
    const tool = TOOLS[between(0, TOOLS.length)]!;
    const marker = `q${turnId}x${n}.ts`;
    n++;
    out.push({
      at,
      event: { ...scoped, ...extra, type: 'tool_call', callId, tool, input: { path: marker } },
      marker,
    });
    const resultAt = at + resultAfterMs;
    const text = output ?? `${tool} ok: ${between(1, 40)} matches in ${marker}`;
    out.push({
      at: resultAt,
      event: { ...scoped, ...extra, type: 'tool_result', callId, tool, ok: random() > 0.05, output: text },
    });
    at = resultAt;
  };
  out.push({ at, event: { ...scoped, type: 'turn_started' } });
  while (out.length < events - 2) {
    const kind = random();
    if (kind < 0.6) {
      for (let i = between(3, 9); i > 0; i--) {
        at += between(50, 300);
        call();
      }
    } else if (kind < 0.8) {
      at += between(3000, 15_000);
    } else if (kind < 0.9) {
      at += between(100, 500);
      call({}, between(20_000, 60_000));
    } else if (kind < 0.95) {
      at += between(100, 500);
      call({}, between(200, 1500), 'x'.repeat(between(2000, 8000)));
    } else {
      const subagentId = `sub${n}`;
      at += between(100, 500);
      out.push({
        at,
        event: { ...scoped, type: 'subagent', subagentId, status: 'started', name: 'explore' },
      });
      for (let i = between(2, 6); i > 0; i--) {
        at += between(100, 1000);
        call({ subagentId });
      }
      at += between(100, 500);
      out.push({ at, event: { ...scoped, type: 'subagent', subagentId, status: 'done' } });
    }
  }
  at += between(500, 3000);
  const answer = `answer-${turnId}`;
  out.push({
    at,
    event: { ...scoped, type: 'answer', text: `Here is what I found (${answer}).` },
    marker: answer,
  });
  out.push({ at: at + 10, event: { ...scoped, type: 'turn_ended', outcome: 'ok' } });
  // A long tool's result lands after later calls: the trace is in time order.
  out.sort((a, b) => a.at - b.at);
  return { turnId, space, startAt, events: out };
}
