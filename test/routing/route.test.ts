import { describe, expect, it } from 'vitest';
import { RUN_EVENT_TYPES, type RunEvent, type RunEventType } from '../../src/events/schema.js';
import {
  DEFAULT_DESTINATIONS,
  resolveSpaceRouting,
  routeEvent,
  validateRoutingFilters,
} from '../../src/routing/route.js';
import type { SpaceRoutingConfig } from '../../src/routing/types.js';

const space = 'slack:C0123ABCD';
const turnId = 'T1';

/** One valid event of each type. */
const sample: { [T in RunEventType]: Extract<RunEvent, { type: T }> } = {
  inbound: { type: 'inbound', space, messageId: '1700000000.000100' },
  turn_started: { type: 'turn_started', space, turnId },
  messages_adopted: { type: 'messages_adopted', space, turnId, refs: ['u2'] },
  input: { type: 'input', space, turnId, text: 'fix the bug' },
  tool_call: { type: 'tool_call', space, turnId, callId: 'c1', tool: 'Read', input: { path: 'a.ts' } },
  tool_result: { type: 'tool_result', space, turnId, callId: 'c1', tool: 'Read', ok: true },
  assistant: { type: 'assistant', space, turnId, text: 'Looking.' },
  subagent: { type: 'subagent', space, turnId, subagentId: 'sa1', status: 'started', name: 'Explore' },
  policy_request: { type: 'policy_request', space, turnId, requestId: 'r1', command: 'rm' },
  policy_decision: { type: 'policy_decision', space, turnId, requestId: 'r1', decision: 'approved' },
  note: { type: 'note', space, turnId, text: 'compacted' },
  command: { type: 'command', space, turnId, command: '/compact' },
  answer: { type: 'answer', space, turnId, text: 'Done.' },
  question: { type: 'question', space, turnId, questionId: 'q1', question: 'Which?', options: ['A', 'B'] },
  turn_ended: { type: 'turn_ended', space, turnId, outcome: 'ok' },
};

const threaded: SpaceRoutingConfig = { threads: true };
const kindOf = (event: RunEvent, config: SpaceRoutingConfig = threaded) => routeEvent(event, config).kind;

describe('routeEvent — default table (docs/events.md, spec "Event routing")', () => {
  const expected: Record<RunEventType, string> = {
    inbound: 'drop',
    turn_started: 'drop',
    messages_adopted: 'drop',
    turn_ended: 'drop',
    input: 'drop',
    tool_call: 'thread-log',
    tool_result: 'thread-log',
    assistant: 'thread-log',
    subagent: 'thread-log',
    policy_decision: 'thread-log',
    note: 'thread-log',
    command: 'thread-log',
    policy_request: 'thread-message',
    question: 'thread-message',
    answer: 'top-level',
  };

  for (const type of RUN_EVENT_TYPES) {
    it(`routes ${type} → ${expected[type]}`, () => {
      expect(routeEvent(sample[type], threaded)).toEqual({ kind: expected[type] });
      expect(DEFAULT_DESTINATIONS[type]).toBe(expected[type]);
    });
  }

  // spec: E2E 6 "drops UserMessage regardless of filters"
  it('drops the turn lifecycle whatever the filters say (the runtime handles it)', () => {
    const loud: SpaceRoutingConfig = { threads: true, filters: { verbose: true, user: true } };
    for (const type of ['inbound', 'turn_started', 'turn_ended'] as const) {
      expect(kindOf(sample[type], loud)).toBe('drop');
    }
  });
});

describe('routeEvent — filters', () => {
  // spec: E2E 8 "honors existing filters config (verbose off hides subagent_update)"
  it('verbose: false hides subagent status updates and info notes, not warnings or errors', () => {
    const quiet: SpaceRoutingConfig = { threads: true, filters: { verbose: false } };
    expect(kindOf(sample.subagent, quiet)).toBe('drop');
    expect(kindOf(sample.note, quiet)).toBe('drop');
    expect(kindOf({ ...sample.note, level: 'info' }, quiet)).toBe('drop');
    expect(kindOf({ ...sample.note, level: 'warn' }, quiet)).toBe('thread-log');
    expect(kindOf({ ...sample.note, level: 'error' }, quiet)).toBe('thread-log');
    expect(kindOf(sample.tool_call, quiet)).toBe('thread-log');
  });

  it('subagentStatus overrides verbose for subagent status lines', () => {
    expect(
      kindOf(sample.subagent, { threads: true, filters: { verbose: false, subagentStatus: true } }),
    ).toBe('thread-log');
    expect(kindOf(sample.subagent, { threads: true, filters: { subagentStatus: false } })).toBe('drop');
    expect(kindOf(sample.note, { threads: true, filters: { subagentStatus: false } })).toBe('thread-log');
  });

  it('user: true shows the input in the thread log', () => {
    expect(kindOf(sample.input, { threads: true, filters: { user: true } })).toBe('thread-log');
    expect(kindOf(sample.input, { threads: true, filters: { user: false } })).toBe('drop');
  });

  it('destinations override the table and the other filters, per type', () => {
    const config: SpaceRoutingConfig = {
      threads: true,
      filters: {
        verbose: false,
        destinations: {
          subagent: 'thread-log',
          tool_result: 'drop',
          answer: 'thread-message',
          policy_request: 'top-level',
        },
      },
    };
    expect(kindOf(sample.subagent, config)).toBe('thread-log');
    expect(kindOf(sample.tool_result, config)).toBe('drop');
    expect(kindOf(sample.answer, config)).toBe('thread-message');
    expect(kindOf(sample.policy_request, config)).toBe('top-level');
    expect(kindOf(sample.tool_call, config)).toBe('thread-log');
  });
});

describe('routeEvent — threads off, DMs, missing turn', () => {
  // spec: E2E 12 "falls back to top-level when threadsDisabled is set on the space"
  it('threadsDisabled on the space sends thread-log and thread-message top-level', () => {
    const config: SpaceRoutingConfig = { threads: true, threadsDisabled: true };
    expect(routeEvent(sample.tool_call, config)).toEqual({ kind: 'top-level' });
    expect(routeEvent(sample.policy_request, config)).toEqual({ kind: 'top-level' });
    expect(kindOf(sample.answer, config)).toBe('top-level');
    expect(kindOf(sample.input, config)).toBe('drop');
  });

  // spec: E2E 13 "falls back to top-level when visibility.threads is false globally"
  it('threads: false globally sends thread-log and thread-message top-level', () => {
    const config: SpaceRoutingConfig = { threads: false };
    expect(kindOf(sample.tool_result, config)).toBe('top-level');
    expect(kindOf(sample.policy_request, config)).toBe('top-level');
    expect(kindOf(sample.turn_ended, config)).toBe('drop');
  });

  // spec: E2E 14 "DM spaces never open a thread"; spec "DM behavior"
  it('in a DM, thread-log is dropped and thread-message goes top-level', () => {
    const dm: SpaceRoutingConfig = { threads: true, dm: true };
    expect(kindOf(sample.tool_call, dm)).toBe('drop');
    expect(kindOf(sample.subagent, dm)).toBe('drop');
    expect(kindOf(sample.policy_request, dm)).toBe('top-level');
    expect(kindOf(sample.answer, dm)).toBe('top-level');
    // The DM rule wins over threads off: activity stays out of a DM.
    expect(kindOf(sample.tool_call, { threads: false, dm: true })).toBe('drop');
  });

  // spec: E2E 22 "activity from a subagent without turnId does not open a second thread"
  it('a subagent event without a turnId goes top-level with a warning, never into a thread', () => {
    const { turnId: _omit, ...orphan } = { ...sample.tool_call, subagentId: 'sa7' };
    const destination = routeEvent(orphan, threaded);
    expect(destination.kind).toBe('top-level');
    expect(destination).toHaveProperty('warning', expect.stringMatching(/subagent sa7.*no turnId/));
    const { turnId: _omit2, ...status } = sample.subagent;
    expect(routeEvent(status, threaded)).toMatchObject({
      kind: 'top-level',
      warning: expect.stringContaining('sa1'),
    });
  });

  it('any thread-bound event without a turnId goes top-level with a warning; a dropped one stays dropped', () => {
    const { turnId: _omit, ...noTurn } = sample.note;
    expect(routeEvent(noTurn, threaded)).toMatchObject({
      kind: 'top-level',
      warning: expect.stringMatching(/note .*no turnId/),
    });
    expect(kindOf(noTurn, { threads: true, filters: { verbose: false } })).toBe('drop');
    expect(kindOf(sample.inbound, threaded)).toBe('drop');
  });
});

describe('validateRoutingFilters', () => {
  it('accepts valid overrides', () => {
    const filters = {
      verbose: false,
      destinations: { answer: 'thread-message', tool_call: 'drop' },
    } as const;
    expect(validateRoutingFilters(filters)).toEqual(filters);
  });

  it('rejects an unknown event type, naming the known ones', () => {
    expect(() => validateRoutingFilters({ destinations: { tool_use: 'drop' } })).toThrow(
      /filters\.destinations\.tool_use: "tool_use" is not a run event type \(one of input, tool_call/,
    );
  });

  it('rejects routing the turn lifecycle', () => {
    expect(() => validateRoutingFilters({ destinations: { turn_ended: 'top-level' } })).toThrow(
      /filters\.destinations\.turn_ended: the turn lifecycle .* is handled by the runtime/,
    );
  });

  it('rejects an unknown destination and an answer in the thread log', () => {
    expect(() => validateRoutingFilters({ destinations: { note: 'thread' as 'drop' } })).toThrow(
      /filters\.destinations\.note: "thread" is not a destination \(drop, top-level, thread-log, thread-message\)/,
    );
    expect(() => validateRoutingFilters({ destinations: { answer: 'thread-log' } })).toThrow(
      /filters\.destinations\.answer: the answer is a message of its own.*top-level, thread-message or drop/,
    );
  });
});

describe('resolveSpaceRouting', () => {
  it('merges the global visibility with the space config; the space opt-out wins', () => {
    expect(
      resolveSpaceRouting(
        { threads: true, filters: { verbose: false } },
        { threadsDisabled: true, dm: false },
      ),
    ).toEqual({
      threads: true,
      threadsDisabled: true,
      dm: false,
      filters: { verbose: false },
    });
    expect(resolveSpaceRouting({ threads: false })).toEqual({ threads: false });
  });

  it('defaults threads to on', () => {
    expect(resolveSpaceRouting({})).toEqual({ threads: true });
  });

  it('validates the filters', () => {
    expect(() => resolveSpaceRouting({ filters: { destinations: { nope: 'drop' } } })).toThrow(
      /filters\.destinations\.nope/,
    );
  });
});
