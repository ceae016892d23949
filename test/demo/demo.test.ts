/**
 * `turnlog demo` end to end (issue "turnlog serve and the demo", item 5): the
 * emulator, serve with the SQLite store and the googleapis surface, the
 * scenario over HTTP ingest; the summary is read from the emulator's calls.
 * Real time, played 25× faster; it waits on the turns, never on a fixed sleep.
 */
import { describe, expect, it } from 'vitest';
import { runDemo } from '../../src/demo/run.js';

describe('turnlog demo', () => {
  it('runs the scenario: every event accepted, every final frame landed, no 429, no secret leaked', async () => {
    let printed = '';
    const summary = await runDemo({ speed: 25, out: (text) => (printed += text), settleTimeoutMs: 60_000 });
    expect(summary.eventsAccepted).toBe(summary.eventsSent);
    expect(summary.finalFramesLanded).toBe(2);
    expect(summary.secretsLeaked).toBe(0);
    expect(summary.rateLimited).toBe(0);
    // Two turns' logs, at least one rollover, the approval card, two answers.
    expect(summary.logMessages).toBeGreaterThanOrEqual(3);
    expect(summary.creates).toBeGreaterThanOrEqual(6);
    // Edits never notify: every buzz is a created message.
    expect(summary.notifications).toBeLessThanOrEqual(summary.creates);
    expect(printed).toContain('summary (from the emulator’s call log)');
    expect(printed).toMatch(/secrets leaked\s+0/);
  }, 120_000);
});
