/**
 * `turnlog demo` end to end (issue "turnlog serve and the demo", item 5): the
 * emulator, serve with the SQLite store and the googleapis surface, the
 * scenario over HTTP ingest; the summary is read from the emulator's calls.
 * Real time at speed 1 (where the last answer used to land after the summary was
 * read); it waits on the turns and deliveries, never on a fixed sleep.
 */
import { describe, expect, it } from 'vitest';
import { runDemo, summarize } from '../../src/demo/run.js';
import { demoScenario } from '../../src/demo/scenario.js';
import type { RecordedCall } from '../../src/emulators/types.js';

describe('turnlog demo', () => {
  it('runs the scenario: every event accepted, every final frame landed, no 429, no secret leaked', async () => {
    let printed = '';
    let finalCalls: RecordedCall[] = [];
    let duringHold: { status: number; messages: Record<string, unknown>[] } | undefined;
    const summary = await runDemo({
      speed: 1,
      out: (text) => (printed += text),
      settleTimeoutMs: 60_000,
      // The page is still up while the demo holds it (on a terminal: until Enter).
      holdPage: {
        prompt: 'the page stays up: press Enter',
        until: async () => {
          const page = /watch the space live\s+(\S+)/.exec(printed)?.[1];
          const response = await fetch(`${page}/messages`);
          duringHold = {
            status: response.status,
            messages: ((await response.json()) as { messages: Record<string, unknown>[] }).messages,
          };
        },
      },
      onClosed: (calls) => {
        finalCalls = calls;
      },
    });
    // Every figure is what the call log says once everything has landed, answers included.
    const scenario = demoScenario();
    expect(
      summarize(finalCalls, scenario, {
        sent: summary.eventsSent,
        accepted: summary.eventsAccepted,
        lastLogMessages: [],
      }),
    ).toMatchObject({
      apiWrites: summary.apiWrites,
      creates: summary.creates,
      edits: summary.edits,
      notifications: summary.notifications,
      answersLanded: 2,
    });
    expect(summary.answersLanded).toBe(2);
    expect(printed).toMatch(/answers landed\s+2\/2/);
    expect(printed).toContain('the page stays up: press Enter');
    expect(duringHold?.status).toBe(200);
    // The approval card shows its title and buttons, not an empty message.
    expect(duringHold?.messages).toContainEqual(
      expect.objectContaining({
        card: expect.objectContaining({ title: 'Run a migration?' }),
        buttons: [
          expect.objectContaining({ label: 'Approve' }),
          expect.objectContaining({ label: 'Reject' }),
        ],
      }),
    );
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
