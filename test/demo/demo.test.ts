/**
 * `turnlog demo` end to end (issue "turnlog serve and the demo", item 5; issue
 * 11 item 9; issue 12 item 11): the Google Chat, Slack and Discord emulators,
 * serve with the SQLite store and the official clients' surfaces, the
 * scenario over HTTP ingest; the summary is read from each emulator's calls.
 * Real time at speed 1 (where the last answer used to land after the summary was
 * read); it waits on the turns and deliveries, never on a fixed sleep.
 */
import { describe, expect, it } from 'vitest';
import { DEMO_PLATFORMS, type DemoSummary, demoSucceeded, runDemo, summarize } from '../../src/demo/run.js';
import { type DemoPlatformId, demoScenario } from '../../src/demo/scenario.js';
import type { RecordedCall } from '../../src/emulators/types.js';

interface PageSpace {
  platform: string;
  space: string;
  messages: Record<string, unknown>[];
}

describe('turnlog demo', () => {
  it('runs the scenario on Google Chat, Slack and Discord: every event accepted, every final frame and answer landed, no 429, no secret leaked', async () => {
    let printed = '';
    let finalCalls: Partial<Record<DemoPlatformId, RecordedCall[]>> = {};
    let duringHold:
      | { status: number; spaces: PageSpace[]; runs: { turnId: string; url: string }[]; runPage: number[] }
      | undefined;
    const summary: DemoSummary = await runDemo({
      speed: 1,
      out: (text) => (printed += text),
      settleTimeoutMs: 60_000,
      // The page is still up while the demo holds it (on a terminal: until Enter).
      holdPage: {
        prompt: 'the page stays up: press Enter',
        until: async () => {
          const page = /watch the spaces live\s+(\S+)/.exec(printed)?.[1];
          const response = await fetch(`${page}/spaces`);
          const view = (await response.json()) as {
            spaces: PageSpace[];
            runs: { turnId: string; url: string }[];
          };
          // Issue 25 item 6: the page links each turn's run page, and each link opens it.
          const runPage = await Promise.all(view.runs.map(async ({ url }) => (await fetch(url)).status));
          duringHold = { status: response.status, spaces: view.spaces, runs: view.runs, runPage };
        },
      },
      onClosed: (calls) => {
        finalCalls = calls;
      },
    });
    const scenario = demoScenario();
    // A person pressed Approve on turn A's card; the scripted agent heard it from GET /v1/actions.
    expect(summary.decisions).toEqual([{ requestId: 'p1', decision: 'approved', by: 'alice' }]);
    expect(printed).toMatch(/alice presses approve on the card → the agent hears: approved by alice/);
    const figures = Object.fromEntries(summary.platforms.map((f) => [f.platform, f]));
    expect(Object.keys(figures)).toEqual(['gchat', 'slack', 'discord']);
    const turnsPer = { gchat: 2, slack: 1, discord: 1 };
    for (const platform of DEMO_PLATFORMS) {
      const f = figures[platform.id]!;
      // Every figure is what the call log says once everything has landed, answers included.
      expect(
        summarize(finalCalls[platform.id] ?? [], scenario, platform, {
          sent: f.eventsSent,
          accepted: f.eventsAccepted,
          lastLogMessages: [],
        }),
      ).toMatchObject({
        apiWrites: f.apiWrites,
        creates: f.creates,
        edits: f.edits,
        notifications: f.notifications,
        answersLanded: turnsPer[platform.id],
      });
      expect(f.eventsSent).toBeGreaterThan(0);
      expect(f.eventsAccepted).toBe(f.eventsSent);
      expect(f.turns).toBe(turnsPer[platform.id]);
      expect(f.finalFramesLanded).toBe(f.turns);
      expect(f.answers).toBe(turnsPer[platform.id]);
      expect(f.answersLanded).toBe(f.answers);
      expect(f.rateLimited).toBe(0);
      expect(f.secretsLeaked).toBe(0);
      // Each turn's log and its answer at least; the log is edited in place.
      expect(f.creates).toBeGreaterThanOrEqual(2 * f.turns);
      expect(f.edits).toBeGreaterThan(0);
      // Edits never notify: every buzz is a created message.
      expect(f.notifications).toBeLessThanOrEqual(f.creates);
      // The secret was really sent on every platform: the 0 above means it was redacted.
      expect(
        scenario.steps.some((step) =>
          step.events.some(
            (e) =>
              e.space === scenario.spaces[platform.id] &&
              String(e.output ?? '').includes(scenario.plantedSecret),
          ),
        ),
      ).toBe(true);
    }
    expect(demoSucceeded(summary)).toBe(true);
    // Two Google Chat turns' logs, at least one rollover, the approval card, two answers.
    expect(figures.gchat!.logMessages).toBeGreaterThanOrEqual(3);
    expect(figures.gchat!.creates).toBeGreaterThanOrEqual(6);

    // The printed table: a column per platform, a row per figure.
    expect(printed).toContain('summary (from each emulator’s call log)');
    expect(printed).toMatch(/Google Chat\s+Slack\s+Discord/);
    expect(printed).toMatch(/answers landed\s+2\/2\s+1\/1\s+1\/1/);
    expect(printed).toMatch(/final frames landed\s+2\/2\s+1\/1\s+1\/1/);
    expect(printed).toMatch(/429s from the platform\s+0\s+0\s+0/);
    expect(printed).toMatch(/secrets leaked\s+0\s+0\s+0/);
    // Issue 26 item 5: the people's messages get their reactions, the Slack turn's adopted follow-up too.
    expect(printed).toMatch(/reactions \(👀, then ✅\)\s+\d+\s+\d+\s+\d+/);
    expect(figures.slack!.reactions).toBeGreaterThanOrEqual(2);
    expect(figures.discord!.reactions).toBeGreaterThanOrEqual(1);
    expect(printed).toMatch(/the Slack turn adopts a follow-up/);
    expect(printed).toContain('the page stays up: press Enter');

    // The page shows the three spaces, each with its person's message and the turn's log under it.
    expect(duringHold?.status).toBe(200);
    // Issue 25 item 6: every turn's run link is printed and on the page, and each opens its page.
    expect(duringHold?.runs.map((r) => r.turnId)).toEqual(scenario.turnIds);
    expect(duringHold?.runPage).toEqual(scenario.turnIds.map(() => 200));
    for (const { turnId, url } of duringHold?.runs ?? []) {
      expect(url).toMatch(new RegExp(`/runs/${turnId}\\?t=[A-Za-z0-9_-]{20,}$`));
      expect(printed).toContain(`${turnId}: ${url}`);
    }
    const spaces = Object.fromEntries((duringHold?.spaces ?? []).map((s) => [s.platform, s]));
    expect(Object.keys(spaces)).toEqual(['gchat', 'slack', 'discord']);
    expect(spaces.slack!.space).toMatch(/^C[A-Z0-9]+$/);
    expect(spaces.discord!.space).toMatch(/^\d+$/);
    for (const { messages } of Object.values(spaces)) {
      expect(messages.some((m) => m.thread === null || m.thread === undefined)).toBe(true);
      expect(messages.some((m) => typeof m.thread === 'string')).toBe(true);
    }
    // The approval card shows its title and who decided, its buttons gone once Alice pressed Approve.
    const card = (
      spaces.gchat!.messages as { card?: { title?: string; text?: string }; buttons?: unknown[] }[]
    ).find((m) => m.card?.title === 'Run a migration?');
    expect(card?.card?.text).toMatch(/approved by alice/i);
    expect(card?.buttons ?? []).toEqual([]);
  }, 120_000);
});
