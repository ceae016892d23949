// spec: docs/events.md "Everything that reaches a platform passes secret redaction first";
// docs/architecture.md item 3 (secrets never enter the stream) applied to every free-text field.
import { describe, expect, it } from 'vitest';
import { redactRunEvent } from '../../src/events/redact-event.js';
import type { RunEvent } from '../../src/events/schema.js';

const SPACE = 'slack:C0123ABCD';
const GH = 'ghp_1234567890abcdefghijABCDEFGHIJ123456';
const GH_MARK = '[REDACTED:github-token]';

describe('redactRunEvent', () => {
  it('redacts text, output, summary and command; keeps ids and structure', () => {
    const event: RunEvent = {
      type: 'tool_result',
      space: SPACE,
      turnId: 'T1',
      callId: 'c1',
      tool: 'bash',
      ok: false,
      exitCode: 1,
      output: `push failed: https://x-access-token:${GH}@github.com/o/r`,
      summary: `GITHUB_TOKEN=${GH}`,
    };
    expect(redactRunEvent(event)).toEqual({
      ...event,
      output: 'push failed: https://x-access-token:[REDACTED]@github.com/o/r',
      summary: `GITHUB_TOKEN=${GH_MARK}`,
    });
  });

  it('redacts every string inside tool_call.input recursively, hiding values under secret-named keys', () => {
    const event: RunEvent = {
      type: 'tool_call',
      space: SPACE,
      turnId: 'T1',
      callId: 'c1',
      tool: 'http',
      input: {
        url: 'https://api.example.com',
        headers: { Authorization: `Bearer ${GH}`, Accept: 'application/json' },
        body: { user: 'bob', password: 'hunter2', nested: [{ apiKey: 'k-123' }, `token ${GH}`] },
        retries: 3,
        dryRun: false,
        nothing: null,
      },
    };
    const out = redactRunEvent(event);
    expect(out).toEqual({
      ...event,
      input: {
        url: 'https://api.example.com',
        headers: { Authorization: '[REDACTED]', Accept: 'application/json' },
        body: { user: 'bob', password: '[REDACTED]', nested: [{ apiKey: '[REDACTED]' }, `token ${GH_MARK}`] },
        retries: 3,
        dryRun: false,
        nothing: null,
      },
    });
  });

  it('redacts policy_request command, args[] and title', () => {
    const event: RunEvent = {
      type: 'policy_request',
      space: SPACE,
      turnId: 'T1',
      requestId: 'p1',
      command: 'curl -u admin:hunter2 https://x',
      args: ['-H', `Authorization: token ${GH}`],
      title: `deploy with ${GH}`,
    };
    expect(redactRunEvent(event)).toEqual({
      ...event,
      command: 'curl -u admin:[REDACTED] https://x',
      args: ['-H', 'Authorization: token [REDACTED]'],
      title: `deploy with ${GH_MARK}`,
    });
  });

  it('redacts subagent name, note/assistant/answer/input text and a host extra field', () => {
    const types = ['note', 'assistant', 'answer', 'input'] as const;
    for (const type of types) {
      const event = {
        type,
        space: SPACE,
        turnId: 'T1',
        text: `see ${GH}`,
        hostDebug: `PASSWORD=x`,
      } as RunEvent;
      expect(redactRunEvent(event)).toEqual({
        ...event,
        text: `see ${GH_MARK}`,
        hostDebug: 'PASSWORD=[REDACTED]',
      });
    }
    const subagent: RunEvent = {
      type: 'subagent',
      space: SPACE,
      subagentId: 's1',
      status: 'started',
      name: GH,
    };
    expect(redactRunEvent(subagent)).toEqual({ ...subagent, name: GH_MARK });
  });

  it('leaves identifiers alone even when they look like credentials', () => {
    const event: RunEvent = { type: 'inbound', space: SPACE, messageId: GH, ref: GH, threadId: GH };
    expect(redactRunEvent(event)).toEqual(event);
  });

  it('does not mutate its input', () => {
    const event: RunEvent = {
      type: 'tool_call',
      space: SPACE,
      turnId: 'T1',
      callId: 'c1',
      tool: 't',
      input: { a: { b: [`x ${GH}`] } },
    };
    const before = structuredClone(event);
    const out = redactRunEvent(event);
    expect(event).toEqual(before);
    expect(out.input).not.toBe(event.input);
  });

  it('replaces structures nested deeper than 64 levels instead of overflowing the stack', () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 10_000; i++) deep = { d: deep };
    const event = {
      type: 'tool_call',
      space: SPACE,
      turnId: 'T1',
      callId: 'c',
      tool: 't',
      input: { deep },
    } as RunEvent;
    const out = redactRunEvent(event) as { input: Record<string, unknown> };
    let node: unknown = out.input.deep;
    let depth = 1;
    while (typeof node === 'object' && node !== null) {
      node = (node as { d: unknown }).d;
      depth++;
    }
    expect(node).toBe('[REDACTED]');
    expect(depth).toBe(64);
  });
});
