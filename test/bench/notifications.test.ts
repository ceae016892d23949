/**
 * The notification goals on generated agent traces (bench/traces), at
 * default settings on Google Chat: a turn's activity log is one line per
 * tool call and a log message may take 7,000 characters, so a 200-event turn
 * takes one log message (each new one buzzes): 2 notifications a turn with
 * the answer, and every tool call stays visible, completed, in its thread.
 * Counts, not timings; `npm run bench -- notifications` prints the table.
 */
import { describe, expect, it } from 'vitest';
import { agentTurn, turnsInOneSpace } from '../../bench/traces/agent-trace.js';
import { countNotifications } from '../../bench/traces/notifications.js';

const SPACE = 'gchat:spaces/NOTIFY';

describe('notifications on agent traces (gchat, default settings)', () => {
  it('the generator is deterministic and makes 200-event turns of calls, results, thoughts and subagents', () => {
    const a = agentTurn({ space: SPACE, turnId: 'T0', rootId: 'u0', seed: 7 });
    expect(agentTurn({ space: SPACE, turnId: 'T0', rootId: 'u0', seed: 7 })).toEqual(a);
    expect(a).toHaveLength(200);
    const types = new Set(a.map((t) => t.event.type));
    expect([...types].sort()).toEqual(
      [
        'answer',
        'assistant',
        'inbound',
        'subagent',
        'tool_call',
        'tool_result',
        'turn_ended',
        'turn_started',
      ].sort(),
    );
    expect(a.every((t, i) => i === 0 || t.at >= a[i - 1]!.at)).toBe(true);
  });

  it('a lone 200-event turn: one log message, 2 notifications with the answer, every tool call visible and completed', async () => {
    for (const seed of [1, 2, 3]) {
      const r = await countNotifications(agentTurn({ space: SPACE, turnId: 'T0', rootId: 'u0', seed }));
      expect(r.logNotifications).toBe(1);
      expect(r.notifications).toBeLessThanOrEqual(2);
      // The answer is the one other notifying post.
      expect(r.notifications - r.logNotifications).toBe(1);
      expect(r.invisibleCalls).toEqual([]);
      expect(r.pendingAtEnd).toBe(0);
      expect(r.refusals).toBe(0);
    }
  });

  it('10 turns in one space: one log message a turn, every tool call visible, 0 refusals', async () => {
    const r = await countNotifications(turnsInOneSpace({ space: SPACE, count: 10, seed: 1 }));
    expect(r.turns).toBe(10);
    expect(r.logNotifications / r.turns).toBe(1);
    expect(r.notifications / r.turns).toBe(2);
    expect(r.refusals).toBe(0);
    expect(r.invisibleCalls).toEqual([]);
    expect(r.pendingAtEnd).toBe(0);
  });
});
