/**
 * The Claude Code fixture session end to end: translated, fed to the runtime
 * through the in-process client, onto the memory surface (simulated clock).
 * The secret a tool printed never reaches the chat (run-visibility.md item 3).
 */
import { createReadStream } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createInProcessClient } from '../../src/client/index.js';
import { translateClaudeCode } from '../../src/ingest/claude-code.js';
import { readNdjsonLines } from '../../src/ingest/ndjson.js';
import { FIXTURE_SECRET, SESSION_FIXTURE, SESSION_ID } from '../fixtures/claude-code/session.js';
import { SPACE, startRuntime } from '../runtime/runtime.helpers.js';

describe('Claude Code session → runtime', () => {
  it('every event is accepted; the log shows the tools and the subagent, with the secret redacted', async () => {
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
    const texts = h.surface.calls.filter((c) => c.status < 300).map((c) => c.text ?? '');
    expect(texts.join('\n')).not.toContain(FIXTURE_SECRET);
    const final = h.surface.messages(SPACE).map((m) => m.text);
    const log = final.join('\n');
    expect(log).toContain('✓ Bash: DATABASE_URL=postgres://turnlog:[REDACTED]@db.internal:5432/turnlog');
    expect(log).toContain(
      'subagent: Find ingest token readers started\n• 00:00:03    tool: Grep("ingest\\.token")',
    );
    expect(log).toContain('subagent: Find ingest token readers done');
    expect(log).toContain('✗ Bash: failed — Exit code 1');
    expect(final.some((t) => t.startsWith('Fixed: `turnlog serve` passed'))).toBe(true);
    expect(h.runtime.turn(SESSION_ID)).toMatchObject({ outcome: 'ok' });
    // No user message anchors a replayed session: its log goes top-level, and the runtime says why.
    expect(h.warnings).toEqual([`turn ${SESSION_ID}: the turn has no root message; its log goes top-level`]);
    await h.runtime.stop();
  });
});
