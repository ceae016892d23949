import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/events/schema.js';
import {
  DEFAULT_MAX_TOOL_PREVIEW,
  describeToolCall,
  formatClockTime,
  formatTurnLogEntry,
  renderEntryLine,
} from '../../src/turnlog/format.js';
import { TRUNCATION_SUFFIX } from '../../src/turnlog/truncate.js';
import type { TurnLogEntry } from '../../src/turnlog/types.js';

const space = 'gchat:spaces/AAAA';
const turnId = 'T1';
// 2024-05-01 12:04:02 UTC
const at = Date.UTC(2024, 4, 1, 12, 4, 2);
const utc = { timeZone: 'UTC' };

function entryOf(event: RunEvent, opts = {}): TurnLogEntry {
  const entry = formatTurnLogEntry(event, { ...utc, ...opts });
  if (entry === null) throw new Error(`expected an entry for ${event.type}`);
  return entry;
}

describe('formatTurnLogEntry', () => {
  // spec: Formatter & condenser "formatTurnLogEntry returns null for UserMessage / AgentReplyMessage"
  it('returns null for UserMessage / AgentReplyMessage equivalents and turn lifecycle events', () => {
    const nonLog: RunEvent[] = [
      { type: 'inbound', space, messageId: 'spaces/AAAA/messages/1' },
      { type: 'turn_started', space, turnId },
      { type: 'answer', space, turnId, text: 'Done: fixed the bug.' },
      { type: 'turn_ended', space, turnId, outcome: 'ok' },
    ];
    for (const event of nonLog) expect(formatTurnLogEntry(event, utc)).toBeNull();
  });

  // spec: Formatter & condenser "…and a structured entry for ToolMessage / SubagentStatusMessage /
  // PolicyRequestMessage / CommandLogMessage / applicable SystemMessages"
  it('returns a structured entry for tool, subagent, policy, command and system events', () => {
    const cases: [RunEvent, TurnLogEntry['kind'], string][] = [
      [
        {
          type: 'tool_call',
          space,
          turnId,
          at,
          seq: 3,
          callId: 'c1',
          tool: 'Read',
          input: { path: 'src/app.ts' },
        },
        'tool',
        'Read(src/app.ts)',
      ],
      [
        { type: 'subagent', space, turnId, at, subagentId: 'sa1', status: 'started', name: 'Explore' },
        'subagent',
        'subagent: Explore started',
      ],
      [
        {
          type: 'policy_request',
          space,
          turnId,
          at,
          requestId: 'r1',
          command: 'rm',
          args: ['-rf', '/tmp/cache'],
        },
        'policy',
        'policy: approval requested — rm -rf /tmp/cache',
      ],
      [
        {
          type: 'policy_decision',
          space,
          turnId,
          at,
          requestId: 'r1',
          decision: 'approved',
          command: 'rm -rf /tmp/cache',
        },
        'policy',
        'policy: approved rm -rf /tmp/cache',
      ],
      [{ type: 'command', space, turnId, at, command: '/compact' }, 'command', 'command: /compact'],
      [{ type: 'note', space, turnId, at, text: 'context compacted' }, 'system', 'note: context compacted'],
      [{ type: 'assistant', space, turnId, at, text: 'Let me look.' }, 'system', '💬 Let me look.'],
      [{ type: 'input', space, turnId, at, text: 'fix the bug' }, 'system', '👤 fix the bug'],
    ];
    for (const [event, kind, summary] of cases) {
      const entry = entryOf(event);
      expect(entry).toMatchObject({ kind, summary, timestamp: '12:04:02', messageRole: event.type });
      expect(entry.rawLength).toBe(summary.length);
    }
    expect(entryOf(cases[0]![0]).seq).toBe(3);
  });

  it('formats the spec examples as rendered lines', () => {
    const lines = [
      entryOf({
        type: 'tool_call',
        space,
        turnId,
        at,
        callId: 'c1',
        tool: 'Grep',
        input: { pattern: 'TODO', path: 'src' },
        summary: '7 matches',
      }),
      entryOf(
        {
          type: 'subagent',
          space,
          turnId,
          at: at + 39_000,
          subagentId: 'sa1',
          status: 'done',
          name: 'Explore',
        },
        {
          startedAt: at + 25_000,
        },
      ),
    ].map(renderEntryLine);
    expect(lines).toEqual([
      '• 12:04:02  ⋯ Grep("TODO") — 7 matches',
      '• 12:04:41  ✓ subagent: Explore done (14s)',
    ]);
  });

  it('marks tool results ✓ / ✗ with the exit code and the result summary', () => {
    const ok = entryOf({
      type: 'tool_result',
      space,
      turnId,
      at,
      callId: 'c',
      tool: 'bash',
      ok: true,
      summary: '3 files',
    });
    expect(ok).toMatchObject({ summary: 'bash — 3 files', status: 'ok', callId: 'c', outcome: '3 files' });
    const failed = entryOf({
      type: 'tool_result',
      space,
      turnId,
      at,
      callId: 'c',
      tool: 'bash',
      ok: false,
      exitCode: 1,
      summary: 'npm ERR! missing script: lint',
    });
    expect(failed).toMatchObject({
      summary: 'bash — exit 1 · npm ERR! missing script: lint',
      status: 'failed',
      outcome: 'exit 1 · npm ERR! missing script: lint',
    });
    const bare = entryOf({ type: 'tool_result', space, turnId, at, callId: 'c', tool: 'Read', ok: false });
    expect(bare).toMatchObject({ summary: 'Read', status: 'failed', outcome: '' });
    const silent = entryOf({ type: 'tool_result', space, turnId, at, callId: 'c', tool: 'Write', ok: true });
    expect(silent).toMatchObject({ summary: 'Write', status: 'ok', outcome: '' });
    const exitOnly = entryOf({
      type: 'tool_result',
      space,
      turnId,
      at,
      callId: 'c',
      tool: 'bash',
      ok: true,
      exitCode: 2,
      summary: 'exit 2: no such file',
    });
    // An executor that already says `exit <code>: …` is not told twice.
    expect(exitOnly).toMatchObject({ summary: 'bash — exit 2: no such file', status: 'failed' });
  });

  it('previews a successful result only when it says something short', () => {
    const result = (extra: Partial<RunEvent & { type: 'tool_result' }>) =>
      entryOf({ type: 'tool_result', space, turnId, at, callId: 'c', tool: 'Grep', ok: true, ...extra });
    expect(result({ output: '7 matches\n' }).summary).toBe('Grep — 7 matches');
    expect(result({ output: 'y'.repeat(60) }).outcome).toBe('y'.repeat(60));
    // Longer than 60 chars, or more than one line: no preview.
    expect(result({ output: 'y'.repeat(61) })).toMatchObject({ summary: 'Grep', outcome: '' });
    expect(result({ output: 'a.ts\nb.ts' })).toMatchObject({ summary: 'Grep', outcome: '' });
    expect(result({ summary: 'x'.repeat(80) }).outcome).toBe('');
    // A failure always says why, however long.
    const failed = result({ ok: false, exitCode: 1, output: `3 failing\n${'trace\n'.repeat(50)}` });
    expect(failed.outcome).toBe('exit 1 · 3 failing');
  });

  it("summarizes a tool result's output when it carries no summary", () => {
    const entry = entryOf({
      type: 'tool_result',
      space,
      turnId,
      at,
      callId: 'c',
      tool: 'bash',
      ok: true,
      output: '\n\nfirst line\nsecond line',
    });
    // A successful multi-line output is not previewed; a failed one shows its first line.
    expect(entry.summary).toBe('bash');
    const failed = entryOf({
      type: 'tool_result',
      space,
      turnId,
      at,
      callId: 'c',
      tool: 'bash',
      ok: false,
      output: '\n\nfirst line\nsecond line',
    });
    expect(failed.summary.startsWith('bash — first line')).toBe(true);
    expect(failed.summary).not.toContain('second line');
  });

  it('labels note levels and failed subagents', () => {
    expect(entryOf({ type: 'note', space, turnId, at, text: 'slow', level: 'warn' }).summary).toBe('⚠ slow');
    expect(entryOf({ type: 'note', space, turnId, at, text: 'boom', level: 'error' }).summary).toBe('✗ boom');
    expect(
      entryOf(
        { type: 'subagent', space, turnId, at, subagentId: 'sa9', status: 'failed' },
        { startedAt: at - 125_000 },
      ).summary,
    ).toBe('subagent: sa9 failed (2m 05s)');
    expect(
      entryOf(
        { type: 'subagent', space, turnId, at, subagentId: 'sa9', status: 'done' },
        { startedAt: at - 3_720_000 },
      ).summary,
    ).toBe('subagent: sa9 done (1h 02m)');
    expect(
      entryOf({ type: 'policy_decision', space, turnId, at, requestId: 'r7', decision: 'rejected' }).summary,
    ).toBe('policy: rejected request r7');
    expect(
      entryOf({ type: 'command', space, turnId, at, command: 'make', exitCode: 2, output: 'no rule' })
        .summary,
    ).toBe('command: make — exit 2 — no rule');
  });

  // spec: Formatter & condenser "formatTurnLogEntry truncates tool content longer than maxToolPreview"
  it('truncates tool content longer than maxToolPreview', () => {
    const long = 'x'.repeat(1000);
    const entry = entryOf({
      type: 'tool_call',
      space,
      turnId,
      at,
      callId: 'c',
      tool: 'bash',
      input: { command: long },
    });
    expect(entry.summary.endsWith(TRUNCATION_SUFFIX)).toBe(true);
    expect(entry.summary.length).toBe(DEFAULT_MAX_TOOL_PREVIEW);
    expect(entry.rawLength).toBe('bash()'.length + long.length);
    const short = entryOf(
      { type: 'tool_call', space, turnId, at, callId: 'c', tool: 'bash', input: { command: long } },
      { maxToolPreview: 50 },
    );
    expect(short.summary.length).toBeLessThanOrEqual(50);
    expect(short.summary).toBe(`bash(${'x'.repeat(50 - 5 - TRUNCATION_SUFFIX.length)}${TRUNCATION_SUFFIX}`);
  });

  // spec: Formatter & condenser "formatTurnLogEntry replaces newlines in tool content with spaces"
  it('replaces newlines (and tabs, CR LF) in tool content with spaces', () => {
    const entry = entryOf({
      type: 'tool_call',
      space,
      turnId,
      at,
      callId: 'c',
      tool: 'bash',
      input: { command: 'echo a\nb\r\nc\td' },
    });
    expect(entry.summary).toBe('bash(echo a b c d)');
  });

  it('keeps every summary one line within maxToolPreview (property)', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 600 }),
        fc.integer({ min: 20, max: 500 }),
        (text, max) => {
          const entry = entryOf({ type: 'assistant', space, turnId, at, text }, { maxToolPreview: max });
          expect(entry.summary.length).toBeLessThanOrEqual(max);
          expect(entry.summary).not.toMatch(/[\n\r\t\u2028\u2029]/);
          expect(entry.rawLength).toBeGreaterThanOrEqual(entry.summary.length - TRUNCATION_SUFFIX.length);
        },
      ),
    );
  });

  it('rejects a maxToolPreview too small to hold the truncation marker', () => {
    expect(() =>
      formatTurnLogEntry({ type: 'note', space, turnId, text: 'x' }, { maxToolPreview: 5 }),
    ).toThrow(/maxToolPreview must be an integer ≥ 20, got 5/);
  });

  it('formats HH:MM:SS in the configured IANA time zone and rejects an unknown zone', () => {
    const event: RunEvent = { type: 'note', space, turnId, at, text: 'x' };
    expect(formatTurnLogEntry(event, { timeZone: 'Asia/Tokyo' })?.timestamp).toBe('21:04:02');
    expect(formatTurnLogEntry(event, { timeZone: 'America/New_York' })?.timestamp).toBe('08:04:02');
    expect(formatClockTime(Date.UTC(2024, 0, 1, 0, 0, 7), 'UTC')).toBe('00:00:07');
    expect(() => formatTurnLogEntry(event, { timeZone: 'Mars/Olympus' })).toThrow(
      /timeZone "Mars\/Olympus" is not a known IANA time zone/,
    );
  });

  it('uses opts.now when the event has no `at`, and a placeholder when neither is known', () => {
    const event: RunEvent = { type: 'note', space, turnId, text: 'x' };
    expect(formatTurnLogEntry(event, { ...utc, now: at })?.timestamp).toBe('12:04:02');
    expect(formatTurnLogEntry(event, utc)?.timestamp).toBe('--:--:--');
  });

  it('infers subagent depth from subagentId / parentSubagentId unless given', () => {
    const parent = entryOf({ type: 'tool_call', space, turnId, at, callId: 'a', tool: 'Read' });
    const child = entryOf({
      type: 'tool_call',
      space,
      turnId,
      at,
      callId: 'b',
      tool: 'Read',
      subagentId: 's1',
    });
    const grandchild = entryOf({
      type: 'tool_call',
      space,
      turnId,
      at,
      callId: 'c',
      tool: 'Read',
      subagentId: 's2',
      parentSubagentId: 's1',
    });
    const childStarted = entryOf({
      type: 'subagent',
      space,
      turnId,
      at,
      subagentId: 's1',
      status: 'started',
    });
    const nestedStarted = entryOf({
      type: 'subagent',
      space,
      turnId,
      at,
      subagentId: 's2',
      parentSubagentId: 's1',
      status: 'started',
    });
    expect([parent, child, grandchild, childStarted, nestedStarted].map((e) => e.depth)).toEqual([
      0, 1, 2, 0, 1,
    ]);
    expect(child.subagentId).toBe('s1');
    expect(
      entryOf({ type: 'tool_call', space, turnId, at, callId: 'd', tool: 'Read' }, { depth: 4 }).depth,
    ).toBe(4);
  });
});

describe('describeToolCall', () => {
  it('names the target from the conventional input keys', () => {
    expect(describeToolCall('Read', { file_path: 'src/a.ts' })).toBe('Read(src/a.ts)');
    expect(describeToolCall('ls', { path: '/tmp' })).toBe('ls(/tmp)');
    expect(describeToolCall('bash', { command: 'npm test', description: 'run tests' })).toBe(
      'bash(npm test)',
    );
    expect(describeToolCall('use_skill', { name: 'code-review' })).toBe('use_skill(code-review)');
    expect(describeToolCall('web_fetch', { url: 'https://example.com', prompt: 'x' })).toBe(
      'web_fetch(https://example.com)',
    );
    expect(describeToolCall('web_search', { query: 'xstate v5' })).toBe('web_search("xstate v5")');
    expect(describeToolCall('Glob', { pattern: '**/*.ts', path: 'src' })).toBe('Glob("**/*.ts")');
  });

  it('falls back to the bare tool name when no key names a target', () => {
    expect(describeToolCall('TodoWrite', { todos: [] })).toBe('TodoWrite');
    expect(describeToolCall('Read', { path: '' })).toBe('Read');
    expect(describeToolCall('Read', { path: 42 })).toBe('Read');
    expect(describeToolCall('Read')).toBe('Read');
  });
});

describe('renderEntryLine', () => {
  const base: TurnLogEntry = {
    timestamp: '12:04:02',
    kind: 'tool',
    summary: 'tool: Read(a)',
    rawLength: 13,
    messageRole: 'tool_call',
  };

  it('renders bullet, timestamp and summary', () => {
    expect(renderEntryLine(base)).toBe('• 12:04:02  tool: Read(a)');
  });

  it('indents two spaces per subagent depth after the timestamp, capped at 8 levels', () => {
    expect(renderEntryLine({ ...base, depth: 2 })).toBe('• 12:04:02      tool: Read(a)');
    expect(renderEntryLine({ ...base, depth: 50 })).toBe(`• 12:04:02  ${'  '.repeat(8)}tool: Read(a)`);
  });
});
