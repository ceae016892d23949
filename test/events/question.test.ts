// spec: docs/events.md `question` (the seed's ask_question: options as strings or {label, selectedLabel?, value?}).
import { describe, expect, it } from 'vitest';
import { parseRunEvent, parseRunEvents } from '../../src/events/parse.js';
import { redactRunEvent } from '../../src/events/redact-event.js';
import { normalizeOption, type RunEvent } from '../../src/events/schema.js';
import { builtinPlatforms } from '../../src/platforms/all.js';
import { routeEvent } from '../../src/routing/route.js';
import { formatTurnLogEntry } from '../../src/turnlog/format.js';

const question = (extra: Record<string, unknown> = {}) => ({
  type: 'question',
  space: 'gchat:spaces/AAAA',
  turnId: 'T1',
  questionId: 'q-123',
  title: 'Failing Test',
  question: 'How should we handle the failing test?',
  options: [
    'Skip it',
    { label: 'Fix and retry', selectedLabel: '✅ Fixing', value: 'fix' },
    { label: 'Abort deployment', selectedLabel: '❌ Aborted', value: 'abort' },
  ],
  ...extra,
});

function errorOf(input: unknown): string {
  const result = parseRunEvent(input, { platforms: builtinPlatforms });
  if (result.ok) throw new Error(`expected a rejection, got ${JSON.stringify(result.event)}`);
  return result.error;
}

describe('question events', () => {
  it("accepts the seed's ask_question shape", () => {
    expect(parseRunEvent(question())).toEqual({ ok: true, event: question() });
  });

  it('normalizes options: value and selectedLabel default to the label', () => {
    expect(normalizeOption('Skip it')).toEqual({
      label: 'Skip it',
      selectedLabel: 'Skip it',
      value: 'Skip it',
    });
    expect(normalizeOption({ label: 'Fix' })).toEqual({ label: 'Fix', selectedLabel: 'Fix', value: 'Fix' });
    expect(normalizeOption({ label: 'Fix', selectedLabel: '✅', value: 'fix' })).toEqual({
      label: 'Fix',
      selectedLabel: '✅',
      value: 'fix',
    });
  });

  it('refuses a question without options, naming the field', () => {
    expect(errorOf(question({ options: [] }))).toBe(
      'question.options: expected at least 1 option, got an array',
    );
    expect(errorOf(question({ options: undefined }))).toBe('question.options: missing (expected an array)');
  });

  it('refuses an option that is neither a label nor {label, …}', () => {
    expect(errorOf(question({ options: ['A', { value: 'b' }] }))).toBe(
      'question.options[1]: expected a non-empty string or an object {label, selectedLabel?, value?}, got an object',
    );
    expect(errorOf(question({ options: [''] }))).toBe(
      'question.options[0]: expected a non-empty string, got ""',
    );
  });

  it('refuses more options than the platform shows buttons, naming the platform and its limit', () => {
    const options = Array.from({ length: 26 }, (_, i) => `option ${i}`);
    for (const space of ['gchat:spaces/AAAA', 'slack:C0123ABCD', 'discord:123456789012345678']) {
      const error = errorOf(question({ space, options }));
      expect(error).toMatch(/^question\.options: 26 options; .+ shows at most 25 buttons on a card$/);
    }
    expect(
      parseRunEvent(question({ options: options.slice(0, 25) }), { platforms: builtinPlatforms }).ok,
    ).toBe(true);
  });

  it('reports the limit per NDJSON line as well', () => {
    const options = Array.from({ length: 30 }, (_, i) => `o${i}`);
    const { rejected } = parseRunEvents(`${JSON.stringify(question({ options }))}\n`, {
      platforms: builtinPlatforms,
    });
    expect(rejected).toEqual([{ line: 1, error: expect.stringContaining('30 options') }]);
  });

  it('routes to a message in the turn thread, like a policy request', () => {
    expect(routeEvent(question() as RunEvent, { threads: true })).toEqual({ kind: 'thread-message' });
    expect(routeEvent(question() as RunEvent, { threads: true, dm: true })).toEqual({ kind: 'top-level' });
  });

  it('has a log line for spaces that route it to the thread log', () => {
    const entry = formatTurnLogEntry(question({ at: 0 }) as RunEvent, { now: 0, timeZone: 'UTC' });
    expect(entry?.summary).toBe(
      '❓ Failing Test: How should we handle the failing test? — Skip it / Fix and retry / Abort deployment',
    );
  });

  it('redacts the question, the title and the options, but keeps the questionId', () => {
    const secret = 'AKIAIOSFODNN7EXAMPLE';
    const redacted = redactRunEvent(
      question({
        questionId: 'q-keep',
        title: `key ${secret}`,
        question: `use ${secret}?`,
        options: [`yes ${secret}`, { label: `no ${secret}`, value: secret }],
      }) as RunEvent,
    );
    expect(JSON.stringify(redacted)).not.toContain(secret);
    expect((redacted as { questionId: string }).questionId).toBe('q-keep');
  });
});
