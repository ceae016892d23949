/**
 * The Claude Code fixture session end to end: translated, fed to the runtime
 * through the in-process client, onto the memory surface (simulated clock).
 * The secret a tool printed never reaches the chat (docs/architecture.md item 3).
 */
import { createReadStream } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createInProcessClient } from '../../src/client/index.js';
import { translateClaudeCode } from '../../src/ingest/claude-code.js';
import { readNdjsonLines } from '../../src/ingest/ndjson.js';
import { FIXTURE_SECRET, SESSION_FIXTURE, SESSION_ID } from '../fixtures/claude-code/session.js';
import { SPACE, startRuntime } from '../runtime/runtime.helpers.js';

describe('Claude Code session → runtime', () => {
  it('every event is accepted; one log message under the session header shows the tools and the subagent, the secret redacted', async () => {
    const h = await startRuntime();
    const client = createInProcessClient(h.runtime);
    const lines = readNdjsonLines(createReadStream(SESSION_FIXTURE));
    for await (const item of translateClaudeCode(lines, { space: SPACE })) {
      if (!('event' in item)) throw new Error(`line ${item.line} did not translate: ${JSON.stringify(item)}`);
      client.send(item.event);
      await h.advance(300);
    }
    await h.advance(5000);
    await client.close();

    expect(client.counts).toEqual({ sent: 25, accepted: 25, rejected: 0 });
    const ok = h.surface.calls.filter((c) => c.status < 300);
    expect(ok.map((c) => c.text ?? '').join('\n')).not.toContain(FIXTURE_SECRET);
    // No user message anchors a replayed session: its title heads a thread that holds ONE log message.
    const creates = ok.filter((c) => c.op === 'create');
    expect(creates[0]?.text).toBe('🕒 Claude Code in turnlog');
    const thread = creates[1]?.thread;
    expect(thread).toBeTruthy();
    expect(creates.map((c) => (c.thread === thread ? 'log' : c.text?.slice(0, 12)))).toEqual([
      '🕒 Claude Co',
      'log',
      'Fixed: `turn',
    ]);
    const log = h.surface.messages(SPACE).find((m) => m.id === creates[1]?.messageId)?.text ?? '';
    // One line per tool call, completed in place by its result; a long output is not previewed.
    expect(log).toContain('✓ Bash(cat .env.local)\n');
    expect(log).toContain(
      'subagent: Find ingest token readers started\n• 00:00:03    ✓ Grep("ingest\\.token")',
    );
    expect(log).toContain('subagent: Find ingest token readers done');
    expect(log).toContain('✗ Bash(npm test -- test/config.test.ts) — Exit code 1');
    // Every tool call got its result: no tool line is left pending (a subagent's `started` line keeps its own).
    expect(log.split('\n').filter((line) => line.includes('⋯') && !line.includes('subagent:'))).toEqual([]);
    expect(log).toContain('💬 The config tests pass now.');
    expect(h.runtime.turn(SESSION_ID)).toMatchObject({ outcome: 'ok', logMessages: [{ threadId: thread }] });
    expect(h.warnings).toEqual([]);
    await h.runtime.stop();
  });
});
