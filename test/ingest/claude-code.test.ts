/**
 * Claude Code stream-json → run events, line by line over a recorded-style
 * session (test/fixtures/claude-code/session.ndjson: reads, a failing bash
 * command, grep, a Task subagent that calls tools itself, a result) and over
 * small inline streams for each edge.
 */
import { createReadStream } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseRunEvent } from '../../src/events/parse.js';
import {
  ClaudeCodeTranslator,
  type TranslatedLine,
  translateClaudeCode,
} from '../../src/ingest/claude-code.js';
import { readNdjsonLines } from '../../src/ingest/ndjson.js';
import { SESSION_FIXTURE, SESSION_ID, TASK_ID } from '../fixtures/claude-code/session.js';

const SPACE = 'gchat:spaces/AAAA';
const FIXTURE = SESSION_FIXTURE;
const SESSION = SESSION_ID;
const TASK = TASK_ID;

async function translateAll(
  lines: Iterable<{ line: number; text: string }> | AsyncIterable<{ line: number; text: string }>,
  turnId?: string,
): Promise<TranslatedLine[]> {
  const out: TranslatedLine[] = [];
  for await (const item of translateClaudeCode(lines, { space: SPACE, ...(turnId ? { turnId } : {}) })) {
    out.push(item);
  }
  return out;
}

const stream = (...messages: unknown[]) =>
  messages.map((m, i) => ({ line: i + 1, text: typeof m === 'string' ? m : JSON.stringify(m) }));
const init = { type: 'system', subtype: 'init', session_id: 'S1', tools: ['Task', 'Bash'] };
const assistant = (content: unknown[], parent: string | null = null) => ({
  type: 'assistant',
  message: { role: 'assistant', content },
  parent_tool_use_id: parent,
  session_id: 'S1',
});
const user = (content: unknown, parent: string | null = null) => ({
  type: 'user',
  message: { role: 'user', content },
  parent_tool_use_id: parent,
  session_id: 'S1',
});
const toolUse = (id: string, name: string, input: object = {}) => ({ type: 'tool_use', id, name, input });
const toolResult = (id: string, content: unknown, isError = false) => ({
  type: 'tool_result',
  tool_use_id: id,
  content,
  is_error: isError,
});
const result = { type: 'result', subtype: 'success', is_error: false, result: 'Done.', session_id: 'S1' };
const eventsOf = (items: TranslatedLine[]) => items.flatMap((i) => ('event' in i ? [i.event] : []));

describe('translateClaudeCode: the fixture session, line by line', () => {
  const expected: [line: number, event: Record<string, unknown>][] = [
    [1, { type: 'turn_started', space: SPACE, turnId: SESSION, title: 'Claude Code in turnlog' }],
    [2, { type: 'assistant', text: expect.stringMatching(/^I'll read the config loader/) }],
    [
      3,
      {
        type: 'tool_call',
        callId: 'toolu_01Rd3mXq7Lp2VbN8kHs4TfWa',
        tool: 'Read',
        input: { file_path: '/home/dev/turnlog/src/config.ts' },
      },
    ],
    [
      4,
      {
        type: 'tool_result',
        callId: 'toolu_01Rd3mXq7Lp2VbN8kHs4TfWa',
        tool: 'Read',
        ok: true,
        output: expect.stringContaining("1→import { readFileSync } from 'node:fs';"),
      },
    ],
    [
      5,
      {
        type: 'tool_call',
        tool: 'Bash',
        input: { command: 'npm test -- test/config.test.ts', description: 'Run the config tests' },
      },
    ],
    [
      6,
      {
        type: 'tool_result',
        tool: 'Bash',
        ok: false,
        output: expect.stringMatching(/^Exit code 1\n[\s\S]*1 failed \| 11 passed/),
      },
    ],
    [7, { type: 'tool_call', tool: 'Grep', input: expect.objectContaining({ pattern: 'resolveSecret\\(' }) }],
    [
      8,
      { type: 'tool_result', tool: 'Grep', ok: true, output: expect.stringMatching(/^src\/config\.ts:40:/) },
    ],
    [
      9,
      {
        type: 'tool_call',
        tool: 'Bash',
        input: { command: 'cat .env.local', description: 'Show the local environment file' },
      },
    ],
    [
      10,
      {
        type: 'tool_result',
        tool: 'Bash',
        ok: true,
        output: expect.stringContaining('postgres://turnlog:Tr0ub4dor-and-3@db.internal'),
      },
    ],
    [11, { type: 'assistant', text: expect.stringContaining("I'll have a subagent") }],
    [12, { type: 'subagent', subagentId: TASK, status: 'started', name: 'Find ingest token readers' }],
    [
      14,
      {
        type: 'tool_call',
        subagentId: TASK,
        tool: 'Grep',
        input: expect.objectContaining({ output_mode: 'files_with_matches' }),
      },
    ],
    [
      15,
      {
        type: 'tool_result',
        subagentId: TASK,
        tool: 'Grep',
        ok: true,
        output: expect.stringMatching(/^Found 2 files\n/),
      },
    ],
    [
      16,
      {
        type: 'tool_call',
        subagentId: TASK,
        tool: 'Read',
        input: expect.objectContaining({ offset: 18, limit: 6 }),
      },
    ],
    [17, { type: 'tool_result', subagentId: TASK, tool: 'Read', ok: true }],
    [18, { type: 'assistant', subagentId: TASK, text: expect.stringMatching(/^Two readers:/) }],
    [19, { type: 'subagent', subagentId: TASK, status: 'done', name: 'Find ingest token readers' }],
    [
      20,
      {
        type: 'tool_call',
        tool: 'Edit',
        input: expect.objectContaining({ new_string: expect.stringContaining('resolveSecret') }),
      },
    ],
    [21, { type: 'tool_result', tool: 'Edit', ok: true, output: expect.stringMatching(/has been updated/) }],
    [
      22,
      {
        type: 'tool_call',
        tool: 'Bash',
        input: expect.objectContaining({ description: 'Run the config tests again' }),
      },
    ],
    [23, { type: 'tool_result', tool: 'Bash', ok: true, output: expect.stringContaining('12 passed (12)') }],
    [24, { type: 'assistant', text: 'The config tests pass now.' }],
    [25, { type: 'answer', text: expect.stringMatching(/^Fixed: `turnlog serve` passed/) }],
    [25, { type: 'turn_ended', outcome: 'ok' }],
  ];

  it('turns each line into its run events (the subagent prompt on line 13 yields none)', async () => {
    const items = await translateAll(readNdjsonLines(createReadStream(FIXTURE)));
    expect(items.every((i) => 'event' in i)).toBe(true);
    expect(items.map((i) => i.line)).toEqual(expected.map(([line]) => line));
    items.forEach((item, index) => {
      expect('event' in item && item.event).toMatchObject(expected[index]?.[1] ?? {});
    });
  });

  it('stamps the space and the session id as turnId on every event, and only subagent lines carry a subagentId', async () => {
    const events = eventsOf(await translateAll(readNdjsonLines(createReadStream(FIXTURE))));
    expect(new Set(events.map((e) => e.turnId))).toEqual(new Set([SESSION]));
    expect(new Set(events.map((e) => e.space))).toEqual(new Set([SPACE]));
    const inSubagent = events.filter((e) => e.subagentId !== undefined).map((e) => `${e.type}`);
    expect(inSubagent).toEqual([
      'subagent',
      'tool_call',
      'tool_result',
      'tool_call',
      'tool_result',
      'assistant',
      'subagent',
    ]);
    expect(events.some((e) => e.parentSubagentId !== undefined)).toBe(false);
  });

  it('produces events the wire-format parser accepts, each tool_result paired with its call', async () => {
    const events = eventsOf(await translateAll(readNdjsonLines(createReadStream(FIXTURE))));
    for (const event of events) expect(parseRunEvent(event)).toMatchObject({ ok: true });
    const calls = new Map(events.flatMap((e) => (e.type === 'tool_call' ? [[e.callId, e.tool]] : [])));
    const results = events.filter((e) => e.type === 'tool_result');
    expect(results).toHaveLength(calls.size);
    for (const r of results) expect(calls.get(r.callId)).toBe(r.tool);
  });

  it('uses the given turn id instead of the session id (--turn)', async () => {
    const events = eventsOf(await translateAll(readNdjsonLines(createReadStream(FIXTURE)), 'T-host-1'));
    expect(new Set(events.map((e) => e.turnId))).toEqual(new Set(['T-host-1']));
  });
});

describe('translateClaudeCode: edges', () => {
  it('reports a malformed JSON line with its number and goes on', async () => {
    const items = await translateAll(
      stream(init, '{"type":"assistant",', assistant([{ type: 'text', text: 'hi' }])),
    );
    expect(items[1]).toEqual({ line: 2, error: expect.stringMatching(/^invalid JSON: /) });
    expect(items[2]).toMatchObject({ line: 3, event: { type: 'assistant', text: 'hi' } });
  });

  it('never quotes a malformed line in its error (it may be a secret)', async () => {
    const items = await translateAll(stream(init, 'hunter2pw', 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'));
    expect(items.slice(1, 3)).toEqual([
      { line: 2, error: expect.stringMatching(/^invalid JSON: /) },
      { line: 3, error: expect.stringMatching(/^invalid JSON: /) },
    ]);
    expect(JSON.stringify(items)).not.toContain('hunter2');
    expect(JSON.stringify(items)).not.toContain('wJalrXUtn');
  });

  it('reports a JSON line that is not a stream-json message', async () => {
    const items = await translateAll(stream(init, '[1,2]', '{"no":"type"}', result));
    expect(items.slice(1, 3)).toEqual([
      { line: 2, error: 'expected a stream-json object with a string "type"' },
      { line: 3, error: 'expected a stream-json object with a string "type"' },
    ]);
  });

  it('skips unknown line types, naming the type, and yields nothing for known lines with nothing to show', async () => {
    const items = await translateAll(
      stream(
        { type: 'system', subtype: 'hook_response', stdout: '' },
        init,
        { type: 'stream_event', event: { type: 'content_block_delta' } },
        assistant([{ type: 'thinking', thinking: 'hmm' }]),
        user('the subagent prompt, as a plain string'),
        { type: 'rate_limit_event' },
        result,
      ),
    );
    expect(items).toEqual([
      { line: 2, event: { type: 'turn_started', space: SPACE, turnId: 'S1', title: 'Claude Code' } },
      { line: 3, skipped: 'stream_event' },
      { line: 6, skipped: 'rate_limit_event' },
      { line: 7, event: { type: 'answer', space: SPACE, turnId: 'S1', text: 'Done.' } },
      { line: 7, event: { type: 'turn_ended', space: SPACE, turnId: 'S1', outcome: 'ok' } },
    ]);
  });

  it('joins the text blocks of a tool_result and maps is_error to ok: false', async () => {
    const items = await translateAll(
      stream(
        init,
        assistant([toolUse('t1', 'WebFetch', { url: 'https://example.com' })]),
        user([
          toolResult(
            't1',
            [
              { type: 'text', text: 'first' },
              { type: 'image', source: {} },
              { type: 'text', text: 'second' },
            ],
            true,
          ),
        ]),
      ),
    );
    expect(eventsOf(items)[2]).toEqual({
      type: 'tool_result',
      space: SPACE,
      turnId: 'S1',
      callId: 't1',
      tool: 'WebFetch',
      ok: false,
      output: 'first\nsecond',
    });
  });

  it('reports a tool_result whose tool_use never came', async () => {
    const items = await translateAll(stream(init, user([toolResult('toolu_ghost', 'x')])));
    expect(items[1]).toEqual({
      line: 2,
      error: 'tool_result for tool_use_id toolu_ghost, which no earlier tool_use announced',
    });
  });

  it('maps a nested subagent (Agent tool, named by subagent_type) to parentSubagentId', async () => {
    const items = await translateAll(
      stream(
        init,
        assistant([toolUse('A', 'Task', { description: 'Survey', prompt: 'p', subagent_type: 'Explore' })]),
        assistant([toolUse('B', 'Agent', { prompt: 'p', subagent_type: 'code-reviewer' })], 'A'),
        assistant([toolUse('c1', 'Read', { file_path: 'x' })], 'B'),
        user([toolResult('c1', 'contents')], 'B'),
        user([toolResult('B', [{ type: 'text', text: 'reviewed' }], true)], 'A'),
        user([toolResult('A', 'surveyed')]),
        result,
      ),
    );
    expect(eventsOf(items).slice(1, -2)).toEqual([
      { type: 'subagent', space: SPACE, turnId: 'S1', subagentId: 'A', status: 'started', name: 'Survey' },
      {
        type: 'subagent',
        space: SPACE,
        turnId: 'S1',
        subagentId: 'B',
        parentSubagentId: 'A',
        status: 'started',
        name: 'code-reviewer',
      },
      {
        type: 'tool_call',
        space: SPACE,
        turnId: 'S1',
        subagentId: 'B',
        parentSubagentId: 'A',
        callId: 'c1',
        tool: 'Read',
        input: { file_path: 'x' },
      },
      {
        type: 'tool_result',
        space: SPACE,
        turnId: 'S1',
        subagentId: 'B',
        parentSubagentId: 'A',
        callId: 'c1',
        tool: 'Read',
        ok: true,
        output: 'contents',
      },
      {
        type: 'subagent',
        space: SPACE,
        turnId: 'S1',
        subagentId: 'B',
        parentSubagentId: 'A',
        status: 'failed',
        name: 'code-reviewer',
      },
      { type: 'subagent', space: SPACE, turnId: 'S1', subagentId: 'A', status: 'done', name: 'Survey' },
    ]);
  });

  it('ends the turn as error for an error result, with no answer when there is no result text', async () => {
    const items = await translateAll(
      stream(init, {
        type: 'result',
        subtype: 'error_max_turns',
        is_error: true,
        num_turns: 30,
        session_id: 'S1',
      }),
    );
    expect(eventsOf(items).slice(1)).toEqual([
      { type: 'turn_ended', space: SPACE, turnId: 'S1', outcome: 'error' },
    ]);
    const flagged = await translateAll(
      stream(init, { ...result, is_error: true, result: 'API Error: 529 Overloaded' }),
    );
    expect(
      eventsOf(flagged)
        .slice(1)
        .map((e) => (e.type === 'turn_ended' ? e.outcome : e.type)),
    ).toEqual(['answer', 'error']);
  });

  it('titles the turn by the project directory, on any platform', async () => {
    const titles = await Promise.all(
      ['/home/dev/app/', 'C:\\Projects\\shop', '/'].map(async (cwd) => {
        const [first] = await translateAll(stream({ ...init, cwd }, result));
        return first && 'event' in first && first.event.type === 'turn_started'
          ? first.event.title
          : undefined;
      }),
    );
    expect(titles).toEqual(['Claude Code in app', 'Claude Code in shop', 'Claude Code']);
  });

  it('opens the turn from the first line when the stream has no init line', async () => {
    const items = await translateAll(stream(assistant([{ type: 'text', text: 'hello' }]), result));
    expect(eventsOf(items).map((e) => [e.type, e.turnId])).toEqual([
      ['turn_started', 'S1'],
      ['assistant', 'S1'],
      ['answer', 'S1'],
      ['turn_ended', 'S1'],
    ]);
  });

  it('refuses a line it cannot place: no turn id anywhere, or after the result', async () => {
    const noSession = await translateAll(stream({ type: 'assistant', message: { content: [] } }));
    expect(noSession).toEqual([
      { line: 1, error: 'no turn id: the line has no session_id (pass a turn id: --turn ID)' },
    ]);
    const late = await translateAll(stream(init, result, assistant([{ type: 'text', text: 'late' }])));
    expect(late.at(-1)).toEqual({
      line: 3,
      error: 'the line comes after the result line of turn S1, which has ended',
    });
  });

  it('ends a turn the stream left open (Claude Code stopped or crashed) as stopped', async () => {
    const items = await translateAll(
      stream(init, assistant([toolUse('t1', 'Bash', { command: 'sleep 600' })])),
    );
    expect(items.at(-1)).toEqual({
      line: 2,
      event: { type: 'turn_ended', space: SPACE, turnId: 'S1', outcome: 'stopped' },
    });
  });

  it('starts a fresh turn on a new init line after a result (concatenated sessions)', async () => {
    const second = { ...init, session_id: 'S2' };
    const items = await translateAll(stream(init, result, second));
    expect(eventsOf(items).map((e) => `${e.type}:${e.turnId}`)).toEqual([
      'turn_started:S1',
      'answer:S1',
      'turn_ended:S1',
      'turn_started:S2',
      'turn_ended:S2',
    ]);
  });

  it('reports a block without its id, and names a subagent without description or type by its tool', async () => {
    const items = await translateAll(
      stream(
        init,
        assistant([{ type: 'tool_use', name: 'Read' }]),
        assistant([toolUse('A', 'Task', { prompt: 'p' })]),
        result,
      ),
    );
    expect(items[1]).toEqual({ line: 2, error: 'a tool_use block has no "id"' });
    expect(items[2]).toMatchObject({ line: 3, event: { type: 'subagent', subagentId: 'A', name: 'Task' } });
  });

  it('refuses an empty turn id', () => {
    expect(() => new ClaudeCodeTranslator({ space: SPACE, turnId: '' })).toThrow(
      'translateClaudeCode: turnId must be a non-empty string when given',
    );
  });

  it('refuses a space without a platform prefix', () => {
    expect(() => new ClaudeCodeTranslator({ space: 'spaces/AAAA' })).toThrow(
      'translateClaudeCode: space "spaces/AAAA" is not a platform-prefixed space',
    );
  });
});
