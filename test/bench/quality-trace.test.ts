// The quality bench's traces (bench/quality/trace.ts) are the same on every run, and have the shapes the
// bench claims: bursts, think gaps, long tools, large outputs and subagents, with a unique marker per call.
import { describe, expect, it } from 'vitest';
import { generateTurn } from '../../bench/quality/trace.js';

describe('quality bench traces', () => {
  const trace = generateTurn(1000, 'T0', 'gchat:spaces/Q0', 1_000_000, 200);

  it('are deterministic for a seed and differ between seeds', () => {
    expect(generateTurn(1000, 'T0', 'gchat:spaces/Q0', 1_000_000, 200)).toEqual(trace);
    expect(generateTurn(1001, 'T0', 'gchat:spaces/Q0', 1_000_000, 200)).not.toEqual(trace);
  });

  it('open with turn_started, end with the answer then turn_ended, in time order, about the asked size', () => {
    const types = trace.events.map((e) => e.event.type);
    expect(types[0]).toBe('turn_started');
    expect(types.slice(-2)).toEqual(['answer', 'turn_ended']);
    expect(trace.events.length).toBeGreaterThanOrEqual(198);
    expect(trace.events.length).toBeLessThan(215);
    const times = trace.events.map((e) => e.at);
    expect(times).toEqual([...times].sort((a, b) => a - b));
  });

  it('hold think gaps, long tools, large outputs and subagents, and a unique marker per tool call', () => {
    const many = [1000, 1001, 1002, 1003].map((seed) => generateTurn(seed, `T${seed}`, 'gchat:spaces/Q0', 0));
    const events = many.flatMap((t) => t.events);
    const gaps = many.flatMap((t) => t.events.slice(1).map((e, i) => e.at - t.events[i]!.at));
    expect(Math.max(...gaps)).toBeGreaterThanOrEqual(3000);
    const outputs = events
      .filter((e) => e.event.type === 'tool_result')
      .map((e) => String(e.event.output).length);
    expect(Math.max(...outputs)).toBeGreaterThanOrEqual(2000);
    expect(events.some((e) => e.event.type === 'subagent')).toBe(true);
    // A long tool: its result 20 s or more after its call, within one turn.
    const longest = Math.max(
      ...many.map((t) => {
        const calls = new Map(
          t.events.filter((e) => e.event.type === 'tool_call').map((e) => [e.event.callId as string, e.at]),
        );
        const results = t.events.filter((e) => e.event.type === 'tool_result');
        return Math.max(...results.map((e) => e.at - calls.get(e.event.callId as string)!));
      }),
    );
    expect(longest).toBeGreaterThanOrEqual(20_000);
    const markers = events.filter((e) => e.marker).map((e) => e.marker);
    expect(new Set(markers).size).toBe(markers.length);
  });
});
