/** Turn and subagent scopes over the in-process client: stamping, nesting limits, lifecycle and refusals. */
import { describe, expect, it } from 'vitest';
import {
  createInProcessClient,
  DeliveryError,
  describeEvent,
  type EventNotAcceptedError,
  type TurnlogClient,
} from '../../src/client/index.js';
import { parseRunEvent } from '../../src/events/parse.js';

const SPACE = 'slack:C0123ABCD';

function recordingClient(options: Parameters<typeof createInProcessClient>[1] = {}): {
  client: TurnlogClient;
  events: Record<string, unknown>[];
} {
  const events: Record<string, unknown>[] = [];
  const client = createInProcessClient(
    {
      ingest: (input) => {
        events.push(input as Record<string, unknown>);
        return parseRunEvent(input);
      },
    },
    options,
  );
  return { client, events };
}

describe('turn scope', () => {
  it('opens the turn with what startTurn was given, and stamps space and turnId on what it logs', () => {
    const { client, events } = recordingClient();
    const turn = client.startTurn({
      space: SPACE,
      turnId: 'T1',
      root: { messageId: '1700000000.000100', threadId: '1700000000.000100' },
      dm: false,
      title: 'nightly build',
    });
    turn.log({ type: 'policy_request', requestId: 'p1', command: 'rm', args: ['-rf', 'dist'] });
    turn.toolCall('Bash', { command: 'ls' }, { callId: 'c1', summary: 'list files' });
    turn.toolResult('c1', { ok: true, output: 'README.md', exitCode: 0 });
    expect(events).toEqual([
      {
        type: 'turn_started',
        space: SPACE,
        turnId: 'T1',
        root: { messageId: '1700000000.000100', threadId: '1700000000.000100' },
        dm: false,
        title: 'nightly build',
      },
      {
        type: 'policy_request',
        requestId: 'p1',
        command: 'rm',
        args: ['-rf', 'dist'],
        space: SPACE,
        turnId: 'T1',
      },
      {
        type: 'tool_call',
        callId: 'c1',
        tool: 'Bash',
        input: { command: 'ls' },
        summary: 'list files',
        space: SPACE,
        turnId: 'T1',
      },
      {
        type: 'tool_result',
        callId: 'c1',
        tool: 'Bash',
        ok: true,
        output: 'README.md',
        exitCode: 0,
        space: SPACE,
        turnId: 'T1',
      },
    ]);
  });

  it('generates a callId per toolCall and names the tool of a result from its call', () => {
    const { client, events } = recordingClient();
    const turn = client.startTurn({ space: SPACE });
    const a = turn.toolCall('Read');
    const b = turn.toolCall('Grep');
    turn.toolResult(b, { ok: true });
    turn.toolResult('elsewhere', { ok: false, tool: 'WebFetch' });
    expect(a).not.toBe(b);
    expect(events.slice(3).map((e) => [e.callId, e.tool])).toEqual([
      [b, 'Grep'],
      ['elsewhere', 'WebFetch'],
    ]);
    expect(() => turn.toolResult('unknown', { ok: true })).toThrow(
      "toolResult: call unknown was not made by this scope's toolCall(); pass the tool name ({tool})",
    );
  });

  it('logs lifecycle events only through their own methods', () => {
    const { client } = recordingClient();
    const turn = client.startTurn({ space: SPACE });
    const log = turn.log.bind(turn) as (event: Record<string, unknown>) => void;
    expect(() => log({ type: 'turn_ended', outcome: 'ok' })).toThrow(
      'log: turn_ended events are logged by end()',
    );
    expect(() => log({ type: 'subagent', subagentId: 's', status: 'started' })).toThrow(
      'log: subagent events are logged by subagent()',
    );
    expect(() => log({ type: 'inbound', messageId: 'm' })).toThrow('logged by client.inbound()');
    expect(() => log({ text: 'no type' })).toThrow('log: the event needs a "type"');
    // Any other type is the ingest's to judge (an object's built-in keys are not lifecycle types).
    expect(() => log({ type: 'constructor' })).not.toThrow();
  });

  it("refuses an event that names another turn or space than the scope's", () => {
    const { client } = recordingClient();
    const turn = client.startTurn({ space: SPACE, turnId: 'T1' });
    const log = turn.log.bind(turn) as (event: Record<string, unknown>) => void;
    expect(() => log({ type: 'note', text: 'x', turnId: 'T2' })).toThrow(
      'log note: the event carries turnId "T2", but this scope logs turnId "T1"',
    );
    expect(() => log({ type: 'note', text: 'x', space: 'slack:C999' })).toThrow('carries space "slack:C999"');
  });

  it('refuses a space without a platform prefix, and an empty turnId', () => {
    const { client } = recordingClient();
    expect(() => client.startTurn({ space: 'spaces/AAAA' })).toThrow(
      'startTurn: space "spaces/AAAA" is not a platform-prefixed space',
    );
    expect(() => client.startTurn({ space: SPACE, turnId: '' })).toThrow(
      'startTurn: turnId must be a non-empty string',
    );
    expect(() => client.inbound({ space: 'C0123', messageId: 'm' })).toThrow('inbound: space "C0123"');
  });

  it('logs nothing after the turn ended, in the turn or any subagent', async () => {
    const { client } = recordingClient();
    const turn = client.startTurn({ space: SPACE, turnId: 'T1' });
    const child = turn.subagent('Explore');
    await turn.end('stopped');
    expect(() => turn.note('late')).toThrow('log note: turn T1 has ended');
    expect(() => child.toolCall('Read')).toThrow('turn T1 has ended');
    expect(() => child.end()).toThrow('turn T1 has ended');
    await expect(turn.end()).rejects.toThrow('end(ok): turn T1 has ended');
  });
});

describe('subagent scopes', () => {
  it('nest up to 2 levels by default; a third is refused with the limit named', () => {
    const { client } = recordingClient();
    const turn = client.startTurn({ space: SPACE });
    const child = turn.subagent('a');
    const grandchild = child.subagent('b');
    expect([turn.depth, child.depth, grandchild.depth]).toEqual([0, 1, 2]);
    expect(() => grandchild.subagent('c')).toThrow(
      'subagent("c"): subagents nest at most 2 levels deep (maxSubagentDepth) and this scope is already at depth 2',
    );
  });

  it('nest as deep as maxSubagentDepth allows; 0 allows none', () => {
    const deep = recordingClient({ maxSubagentDepth: 3 }).client.startTurn({ space: SPACE });
    expect(deep.subagent('a').subagent('b').subagent('c').depth).toBe(3);
    const flat = recordingClient({ maxSubagentDepth: 0 }).client.startTurn({ space: SPACE });
    expect(() => flat.subagent('a')).toThrow('nest at most 0 levels');
    expect(() => recordingClient({ maxSubagentDepth: -1 })).toThrow(
      'maxSubagentDepth must be an integer ≥ 0, got -1',
    );
  });

  it('carry the given subagentId, end as failed, and log nothing after their end', () => {
    const { client, events } = recordingClient();
    const turn = client.startTurn({ space: SPACE, turnId: 'T1' });
    const child = turn.subagent('Explore', { subagentId: 'sa-1' });
    child.end('failed');
    expect(events.slice(1)).toEqual([
      {
        type: 'subagent',
        status: 'started',
        name: 'Explore',
        space: SPACE,
        turnId: 'T1',
        subagentId: 'sa-1',
      },
      { type: 'subagent', status: 'failed', name: 'Explore', space: SPACE, turnId: 'T1', subagentId: 'sa-1' },
    ]);
    expect(() => child.note('late')).toThrow('log note: subagent Explore (sa-1) has ended');
    expect(() => turn.subagent('x', { subagentId: '' })).toThrow('subagentId must not be empty');
  });
});

describe('describeEvent', () => {
  it.each([
    [{ type: 'tool_call', callId: 'c1', turnId: 'T1' }, 'tool_call c1 of turn T1'],
    [
      { type: 'policy_request', requestId: 'p1', turnId: 'T1', subagentId: 's1' },
      'policy_request p1 of turn T1 in subagent s1',
    ],
    [{ type: 'subagent', subagentId: 's1', status: 'done', turnId: 'T1' }, 'subagent s1 (done) of turn T1'],
    [{ type: 'inbound', messageId: '1700.01', space: SPACE }, 'inbound 1700.01 in slack:C0123ABCD'],
    [{ type: 'note', callId: '' }, 'note'],
    [{ text: 'x' }, 'event without a type'],
  ])('%j → %s', (event, text) => {
    expect(describeEvent(event)).toBe(text);
  });
});

describe('refused events are never dropped silently', () => {
  it('end() rejects with a DeliveryError naming each refused event of the turn', async () => {
    const { client } = recordingClient();
    const turn = client.startTurn({ space: SPACE, turnId: 'T1' });
    turn.toolCall('', {}, { callId: 'c1' });
    const other = client.startTurn({ space: SPACE, turnId: 'T2' });
    other.log({ type: 'note', text: 'fine' });
    const error = await turn.end('ok').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DeliveryError);
    expect((error as DeliveryError).message).toBe(
      '1 event of turn T1 was not accepted: turnlog rejected tool_call c1 of turn T1: tool_call.tool: expected a non-empty string, got ""',
    );
    expect((error as DeliveryError).errors[0]?.event).toMatchObject({ callId: 'c1', tool: '' });
    await expect(other.end()).resolves.toBeUndefined();
    expect(client.counts).toEqual({ sent: 6, accepted: 5, rejected: 1 });
  });

  it('with onRejected, each refusal goes there at once and end() resolves', async () => {
    const seen: EventNotAcceptedError[] = [];
    const { client } = recordingClient({ onRejected: (e) => seen.push(e) });
    const turn = client.startTurn({ space: SPACE, turnId: 'T1' });
    turn.log({ type: 'command', command: '' });
    expect(seen.map((e) => [e.kind, e.reason])).toEqual([
      ['rejected', 'command.command: expected a non-empty string, got ""'],
    ]);
    await expect(turn.end()).resolves.toBeUndefined();
  });

  it('names the subagent a refused event came from', () => {
    const seen: EventNotAcceptedError[] = [];
    const { client } = recordingClient({ onRejected: (e) => seen.push(e) });
    const turn = client.startTurn({ space: SPACE, turnId: 'T1' });
    const grand = turn.subagent('Survey', { subagentId: 'sa-2' }).subagent('Review', { subagentId: 'sa-3' });
    grand.toolCall('', {}, { callId: 'c9' });
    expect(seen.map((e) => e.message)).toEqual([
      'turnlog rejected tool_call c9 of turn T1 in subagent sa-3: tool_call.tool: expected a non-empty string, got ""',
    ]);
  });

  it('a flush report lists refusals (then seen); close() throws for the ones nobody saw', async () => {
    const { client } = recordingClient();
    client.send({ type: 'nope', space: SPACE });
    const report = await client.flush();
    expect(report.accepted).toBe(0);
    expect(report.rejected.map((e) => e.message)).toEqual([
      expect.stringMatching(/^turnlog rejected nope in slack:C0123ABCD: unknown type "nope"/),
    ]);
    client.inbound({ space: SPACE, messageId: '' });
    await expect(client.close()).rejects.toThrow(
      /^1 event was not accepted: turnlog rejected inbound in slack:C0123ABCD: /,
    );
    expect(() => client.send({ type: 'note' })).toThrow('the turnlog client is closed; note event refused');
    expect(() => client.send(null as never)).toThrow('send: a run event is a JSON object');
  });

  it('a throwing onRejected does not hide the refusal: close() still reports it', async () => {
    const { client } = recordingClient({
      onRejected: () => {
        throw new Error('logger down');
      },
    });
    client.send({
      type: 'note',
      space: SPACE,
      text: 'no turn id is fine, but this type is not',
      level: 'loud',
    });
    await expect(client.close()).rejects.toBeInstanceOf(DeliveryError);
  });
});
