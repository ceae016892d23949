/**
 * spec: docs/architecture.md §1a "turnId propagation through
 * subagents" — the gate test. A 2-level subagent tree (parent + child +
 * grandchild): every event of all three scopes carries the originating turn
 * id; and end to end, through createInProcessClient + createRuntime + the
 * memory surface, the whole tree lands in ONE thread and ONE log message.
 */
import { describe, expect, it } from 'vitest';
import { createInProcessClient } from '../../src/client/index.js';
import type { TurnScope } from '../../src/client/types.js';
import { parseRunEvent } from '../../src/events/parse.js';
import type { RunEvent } from '../../src/events/schema.js';
import { SPACE, startRuntime } from '../runtime/runtime.helpers.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** The tree every test drives: the agent reads, a child explores, a grandchild reviews. */
function runTree(turn: TurnScope): { child: string; grandchild: string } {
  const read = turn.toolCall('Read', { path: 'src/config.ts' });
  turn.toolResult(read, { ok: true, output: 'export const config = {};' });
  const child = turn.subagent('Explore callers');
  const grep = child.toolCall('Grep', { pattern: 'loadConfig' });
  child.toolResult(grep, { ok: true, output: 'src/cli/serve.ts:20' });
  const grandchild = child.subagent('Review serve.ts');
  const bash = grandchild.toolCall('Bash', { command: 'npm test -- serve' });
  grandchild.toolResult(bash, { ok: false, output: 'exit 1: 1 failed', exitCode: 1 });
  grandchild.note('serve reads the raw token', 'warn');
  grandchild.assistant('serve.ts passes env:NAME through unresolved');
  grandchild.end('done');
  child.assistant('one caller, in serve.ts');
  child.end('done');
  turn.assistant('fixing serve.ts');
  turn.answer('Fixed: serve resolves env: secrets now.');
  return { child: child.subagentId, grandchild: grandchild.subagentId };
}

describe('turnId propagation through a 2-level subagent tree (spec §1a gate)', () => {
  it('every event from the parent, the child and the grandchild carries the originating turn id', async () => {
    const recorded: RunEvent[] = [];
    const client = createInProcessClient({
      ingest: (input) => {
        const parsed = parseRunEvent(input);
        if (parsed.ok) recorded.push(parsed.event);
        return parsed;
      },
    });
    const turn = client.startTurn({ space: SPACE, rootRef: 'u1' });
    const ids = runTree(turn);
    await turn.end('ok');

    expect(turn.turnId).toMatch(UUID);
    expect(recorded).toHaveLength(client.counts.sent);
    expect(client.counts).toEqual({ sent: 17, accepted: 17, rejected: 0 });
    expect(recorded.every((e) => e.turnId === turn.turnId)).toBe(true);

    const fromChild = recorded.filter((e) => e.subagentId === ids.child);
    const fromGrandchild = recorded.filter((e) => e.subagentId === ids.grandchild);
    expect(fromChild.map((e) => e.type)).toEqual([
      'subagent',
      'tool_call',
      'tool_result',
      'assistant',
      'subagent',
    ]);
    expect(fromChild.every((e) => e.parentSubagentId === undefined)).toBe(true);
    expect(fromGrandchild.map((e) => e.type)).toEqual([
      'subagent',
      'tool_call',
      'tool_result',
      'note',
      'assistant',
      'subagent',
    ]);
    // The grandchild names its spawner, so the log can indent it one level deeper.
    expect(fromGrandchild.every((e) => e.parentSubagentId === ids.child)).toBe(true);
    expect(recorded.filter((e) => e.type === 'subagent').map((e) => [e.status, e.name])).toEqual([
      ['started', 'Explore callers'],
      ['started', 'Review serve.ts'],
      ['done', 'Review serve.ts'],
      ['done', 'Explore callers'],
    ]);
    expect(recorded.at(-1)).toMatchObject({ type: 'turn_ended', outcome: 'ok', turnId: turn.turnId });
  });

  it('end to end: the whole tree lands in one thread and one log message; the answer goes top-level', async () => {
    const h = await startRuntime();
    const client = createInProcessClient(h.runtime);
    const root = h.surface.inbound({ space: SPACE, text: 'why does serve ignore TURNLOG_TOKEN?' });
    client.inbound({ space: SPACE, messageId: root.messageId, threadId: root.threadId, ref: 'u1' });
    const turn = client.startTurn({ space: SPACE, rootRef: 'u1', turnId: 'T-gate' });
    runTree(turn);
    await h.advance(200);
    await turn.end('ok');
    await h.advance(5000);

    const ok = h.surface.calls.filter((c) => c.status < 300);
    const creates = ok.filter((c) => c.op === 'create');
    const logCreates = creates.filter((c) => c.thread === root.threadId);
    expect(logCreates).toHaveLength(1);
    const logId = logCreates[0]?.messageId;
    const answer = creates.filter((c) => c.thread !== root.threadId);
    expect(answer.map((c) => c.text)).toEqual(['Fixed: serve resolves env: secrets now.']);
    expect(ok.filter((c) => c.op === 'update').every((c) => c.messageId === logId)).toBe(true);

    const log = h.surface.messages(SPACE).find((m) => m.id === logId)?.text ?? '';
    for (const line of [
      'Read',
      'Grep',
      'Bash',
      'serve reads the raw token',
      'subagent: Review serve.ts done',
    ]) {
      expect(log).toContain(line);
    }
    expect(h.runtime.turn('T-gate')).toMatchObject({ outcome: 'ok', logMessages: [{ messageId: logId }] });
    expect(h.warnings).toEqual([]);
    expect(client.counts).toEqual({ sent: 18, accepted: 18, rejected: 0 });
    await h.runtime.stop();
  });
});
