// spec: docs/events.md (wire format v1: unknown fields kept, unknown types rejected with a clear
// error) and §2 (ingest answers rejected lines as {line, error}); docs/architecture.md "Invalid input
// gets a clear error naming the line and field".
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseRunEvent, parseRunEventBatch, parseRunEvents } from '../../src/events/parse.js';
import { RUN_EVENT_TYPES } from '../../src/events/schema.js';
import { builtinPlatforms } from '../../src/platforms/all.js';
import { anyText } from './secret-fixtures.js';

const toolResult = {
  type: 'tool_result',
  space: 'slack:C0123ABCD',
  turnId: 'T1',
  callId: 'c1',
  tool: 'bash',
  ok: true,
};

/** One valid event of every type. */
const VALID_EVENTS: Record<string, unknown>[] = [
  { type: 'inbound', space: 'gchat:spaces/AAAA', messageId: 'spaces/AAAA/messages/m1', ref: 'r1' },
  { type: 'turn_started', space: 'gchat:spaces/AAAA', turnId: 'T1', rootRef: 'r1' },
  { type: 'input', space: 'slack:C0123ABCD', turnId: 'T1', text: 'hello' },
  {
    type: 'tool_call',
    space: 'slack:C0123ABCD',
    turnId: 'T1',
    callId: 'c1',
    tool: 'bash',
    input: { cmd: 'ls' },
  },
  toolResult,
  { type: 'assistant', space: 'discord:123456789012345678', turnId: 'T1', text: 'thinking' },
  {
    type: 'subagent',
    space: 'discord:123456789012345678',
    turnId: 'T1',
    subagentId: 's1',
    status: 'started',
  },
  {
    type: 'policy_request',
    space: 'slack:C0123ABCD',
    turnId: 'T1',
    requestId: 'p1',
    command: 'rm',
    args: ['-rf', 'x'],
  },
  { type: 'policy_decision', space: 'slack:C0123ABCD', turnId: 'T1', requestId: 'p1', decision: 'approved' },
  { type: 'note', space: 'slack:C0123ABCD', turnId: 'T1', text: 'n', level: 'warn' },
  { type: 'command', space: 'slack:C0123ABCD', turnId: 'T1', command: 'make', exitCode: 0 },
  { type: 'answer', space: 'slack:C0123ABCD', turnId: 'T1', text: 'done' },
  {
    type: 'question',
    space: 'slack:C0123ABCD',
    turnId: 'T1',
    questionId: 'q1',
    question: 'Which?',
    options: ['Skip it', { label: 'Fix', selectedLabel: '✅ Fixing', value: 'fix' }],
  },
  { type: 'turn_ended', space: 'slack:C0123ABCD', turnId: 'T1', outcome: 'ok' },
  {
    type: 'messages_adopted',
    space: 'gchat:spaces/AAAA',
    turnId: 'T1',
    messages: [{ messageId: 'spaces/AAAA/messages/m2' }],
  },
];

function errorOf(input: unknown): string {
  const result = parseRunEvent(input);
  if (result.ok) throw new Error(`expected a rejection, got ${JSON.stringify(result.event)}`);
  return result.error;
}

describe('parseRunEvent', () => {
  it('accepts one valid event of every type, from an object or JSON text', () => {
    expect(VALID_EVENTS.map((e) => e.type)).toEqual(RUN_EVENT_TYPES);
    for (const event of VALID_EVENTS) {
      expect(parseRunEvent(event)).toEqual({ ok: true, event });
      expect(parseRunEvent(JSON.stringify(event))).toEqual({ ok: true, event });
    }
  });

  it('keeps unknown fields', () => {
    const result = parseRunEvent({ ...toolResult, hostField: { x: 1 } });
    expect(result).toEqual({ ok: true, event: { ...toolResult, hostField: { x: 1 } } });
  });

  it('names the field, what was expected and what was got', () => {
    expect(errorOf({ ...toolResult, ok: 'yes' })).toBe('tool_result.ok: expected a boolean, got "yes"');
    expect(errorOf({ ...toolResult, exitCode: 1.5 })).toBe(
      'tool_result.exitCode: expected an integer, got 1.5',
    );
    expect(errorOf({ ...toolResult, at: -5 })).toBe('tool_result.at: expected a number >= 0, got -5');
    expect(errorOf({ ...toolResult, callId: '' })).toBe(
      'tool_result.callId: expected a non-empty string, got ""',
    );
  });

  it('says a required field is missing', () => {
    const { callId: _callId, ...noCallId } = toolResult;
    expect(errorOf(noCallId)).toBe('tool_result.callId: missing (expected a string)');
  });

  it('lists the allowed values of an enum', () => {
    expect(errorOf({ ...VALID_EVENTS[6], status: 'running' })).toBe(
      'subagent.status: expected one of "started", "done", "failed", got "running"',
    );
  });

  it('explains a malformed space, by the registry given (issue 21.1: no platform list in the core)', () => {
    expect(errorOf({ ...toolResult, space: 'C0123' })).toMatch(
      /^tool_result\.space: expected a platform-prefixed space: <platform>:<its own id>, e\.g\. slack:C0123ABCD, got "C0123"$/,
    );
    // Without a registry any prefix passes; the registry checks the platform's own id.
    expect(parseRunEvent({ ...toolResult, space: 'slack:c0123' }).ok).toBe(true);
    expect(parseRunEvent({ ...toolResult, space: 'slack:c0123' }, { platforms: builtinPlatforms })).toEqual({
      ok: false,
      error: expect.stringMatching(
        /^tool_result\.space: expected a platform-prefixed space: gchat:spaces\/AAAA, slack:C0123ABCD or discord:<channel id digits>, got "slack:c0123"$/,
      ),
    });
  });

  it('names nested paths and array indices', () => {
    expect(errorOf({ ...VALID_EVENTS[1], root: { messageId: 5 } })).toBe(
      'turn_started.root.messageId: expected a string, got 5',
    );
    expect(errorOf({ ...VALID_EVENTS[7], args: ['ok', 7] })).toBe(
      'policy_request.args[1]: expected a string, got 7',
    );
  });

  it('says a missing turnId is missing', () => {
    expect(errorOf({ type: 'turn_started', space: 'slack:C0123ABCD' })).toBe(
      'turn_started: missing turnId (required on turn_started events)',
    );
    expect(errorOf({ type: 'answer', space: 'slack:C0123ABCD', text: 'x' })).toBe(
      'answer: missing turnId (required on answer events)',
    );
  });

  it('accepts events a subagent emitted without a turnId (routed top-level later)', () => {
    const event = { type: 'subagent', space: 'slack:C0123ABCD', subagentId: 's1', status: 'done' };
    expect(parseRunEvent(event)).toEqual({ ok: true, event });
  });

  it('rejects an unknown type, listing the known ones', () => {
    expect(errorOf({ type: 'tool_use', space: 'slack:C1' })).toBe(
      `unknown type "tool_use"; known types: ${RUN_EVENT_TYPES.join(', ')}`,
    );
    expect(errorOf({ type: 42 })).toBe(`unknown type 42; known types: ${RUN_EVENT_TYPES.join(', ')}`);
  });

  it('rejects a missing type', () => {
    expect(errorOf({ space: 'slack:C1' })).toBe(`missing "type" (one of: ${RUN_EVENT_TYPES.join(', ')})`);
  });

  it('rejects what is not an object', () => {
    expect(errorOf([])).toBe('expected a JSON object (one run event), got an array');
    expect(errorOf(null)).toBe('expected a JSON object (one run event), got null');
    expect(errorOf('42')).toBe('expected a JSON object (one run event), got 42');
    expect(errorOf('"a string"')).toBe('expected a JSON object (one run event), got "a string"');
  });

  it('reports a JSON syntax error', () => {
    expect(errorOf('{"type": "note",')).toMatch(/^invalid JSON: .+/);
  });

  it('never quotes the input in a JSON syntax error (it may be a secret)', () => {
    for (const [text, secret] of [
      ['hunter2pw', 'hunter2'],
      ['wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', 'wJalrXUtn'],
    ]) {
      const error = errorOf(text);
      expect(error).toMatch(/^invalid JSON: /);
      expect(error).not.toContain(secret);
    }
  });

  it('shortens a long received value', () => {
    expect(errorOf({ ...toolResult, ok: 'y'.repeat(500) })).toBe(
      `tool_result.ok: expected a boolean, got "${'y'.repeat(60)}…"`,
    );
  });

  it('rejects instead of throwing on values with throwing getters', () => {
    const hostile = {
      type: 'note',
      space: 'slack:C1',
      get text(): string {
        throw new Error('boom');
      },
    };
    expect(errorOf(hostile)).toBe('could not read the event: boom');
  });
});

describe('parseRunEvents (NDJSON)', () => {
  it('parses each line, skips blank ones and numbers rejected lines from 1', () => {
    const ndjson = [
      JSON.stringify(VALID_EVENTS[1]),
      '',
      JSON.stringify({ ...toolResult, ok: 'yes' }),
      '   ',
      '{not json',
      JSON.stringify(VALID_EVENTS[12]),
      '',
    ].join('\r\n');
    const { events, rejected } = parseRunEvents(ndjson);
    expect(events).toEqual([VALID_EVENTS[1], VALID_EVENTS[12]]);
    expect(rejected).toHaveLength(2);
    expect(rejected[0]).toEqual({ line: 3, error: 'line 3: tool_result.ok: expected a boolean, got "yes"' });
    expect(rejected[1]?.line).toBe(5);
    expect(rejected[1]?.error).toMatch(/^line 5: invalid JSON: /);
  });

  it('gives nothing for an empty body', () => {
    expect(parseRunEvents('')).toEqual({ events: [], rejected: [] });
  });
});

describe('parseRunEventBatch (JSON array or object body)', () => {
  it('parses an array, reporting rejected items by their 0-based index', () => {
    const { events, rejected } = parseRunEventBatch([
      VALID_EVENTS[2],
      { type: 'nope' },
      'text',
      VALID_EVENTS[3],
    ]);
    expect(events).toEqual([VALID_EVENTS[2], VALID_EVENTS[3]]);
    expect(rejected).toEqual([
      { line: 1, error: `index 1: unknown type "nope"; known types: ${RUN_EVENT_TYPES.join(', ')}` },
      { line: 2, error: 'index 2: expected a JSON object (one run event), got "text"' },
    ]);
  });

  it('accepts a single event object', () => {
    expect(parseRunEventBatch(VALID_EVENTS[4])).toEqual({ events: [VALID_EVENTS[4]], rejected: [] });
    expect(parseRunEventBatch({ type: 'x' }).rejected[0]?.error).toMatch(/^body: unknown type "x"/);
  });

  it('rejects a body that is neither', () => {
    expect(parseRunEventBatch(5)).toEqual({
      events: [],
      rejected: [{ line: 0, error: 'body: expected a JSON array of run events or one event object, got 5' }],
    });
  });
});

describe('parsing never throws (fuzz)', () => {
  const settles = (result: ReturnType<typeof parseRunEvent>) =>
    result.ok ? typeof result.event.type === 'string' : result.error.length > 0;

  it('arbitrary JSON values yield an event or an error', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(settles(parseRunEvent(value))).toBe(true);
        expect(settles(parseRunEvent(JSON.stringify(value)))).toBe(true);
        const batch = parseRunEventBatch(value);
        const items = Array.isArray(value) ? value.length : 1;
        expect(batch.events.length + batch.rejected.length).toBe(items);
      }),
    );
  });

  it('arbitrary strings yield an event or an error, per line', () => {
    fc.assert(
      fc.property(anyText(), (text) => {
        expect(settles(parseRunEvent(text))).toBe(true);
        const { events, rejected } = parseRunEvents(text);
        const nonBlank = text.split('\n').filter((l) => l.trim() !== '').length;
        expect(events.length + rejected.length).toBe(nonBlank);
      }),
    );
  });

  it('arbitrary values (not only JSON) yield an event or an error', () => {
    fc.assert(
      fc.property(
        fc.anything({ withBigInt: true, withMap: true, withSet: true, withTypedArray: true }),
        (value) => {
          expect(settles(parseRunEvent(value))).toBe(true);
        },
      ),
    );
  });

  it('mutated valid events yield an event or an error that names the mutated field', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...VALID_EVENTS),
        fc.anything(),
        fc.nat(),
        (event, replacement, keySeed) => {
          const keys = Object.keys(event);
          const key = keys[keySeed % keys.length] ?? 'type';
          const mutated = { ...event, [key]: replacement };
          const result = parseRunEvent(mutated);
          expect(settles(result)).toBe(true);
          if (!result.ok && key !== 'type') expect(result.error).toContain(key);
        },
      ),
    );
  });

  it('deleting a field yields an event or an error', () => {
    fc.assert(
      fc.property(fc.constantFrom(...VALID_EVENTS), fc.nat(), (event, keySeed) => {
        const keys = Object.keys(event);
        const key = keys[keySeed % keys.length] ?? 'type';
        const { [key]: _dropped, ...rest } = event;
        expect(settles(parseRunEvent(rest))).toBe(true);
      }),
    );
  });
});
