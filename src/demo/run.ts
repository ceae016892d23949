/**
 * `turnlog demo` (`npm start`): the whole system on one machine. It starts the
 * Google Chat, Slack and Discord emulators in process, `turnlog serve` on a
 * temporary SQLite store with the real surfaces (googleapis, @slack/web-api,
 * @discordjs/rest) pointed at them, and a small web page showing the emulated
 * spaces live; replays the bundled scenario through the HTTP ingest API; and
 * prints a summary per platform read from each emulator's own call log, once
 * every turn has ended and every delivery has settled.
 * It ends by itself (on a terminal the CLI first keeps the page up until
 * Enter); `--keep` keeps it serving.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AnyActorRef } from 'xstate';
import type { EmulatorServer } from '../emulators/core/index.js';
import { startDiscordEmulator } from '../emulators/discord/index.js';
import { startGchatEmulator } from '../emulators/gchat/index.js';
import { startSlackEmulator } from '../emulators/slack/index.js';
import type { RecordedCall } from '../emulators/types.js';
import type { Runtime } from '../runtime.js';
import { startServe } from '../serve/index.js';
import { startPage } from './page.js';
import { freePort, type RunLink, runLinksOf } from './run-links.js';
import { type DemoPlatformId, demoScenario, type Scenario } from './scenario.js';

export interface DemoOptions {
  /** Pauses of the scenario are divided by this (default 1). */
  speed?: number;
  /** Keep serving after the scenario (until SIGINT/SIGTERM). */
  keep?: boolean;
  /** Ingest port (default: any free port). */
  port?: number;
  /** Web page port (default: any free port). */
  pagePort?: number;
  out: (text: string) => void;
  /** Resolves when the person asks to stop (--keep). */
  untilStopped?: () => Promise<void>;
  /**
   * Without `keep`: after the summary, keep the page up until this resolves
   * (on a terminal: until Enter or Ctrl-C), so its link is not dead. Absent: end at once.
   */
  holdPage?: { prompt: string; until: () => Promise<void> };
  /** Called with each emulator's whole call log once serve has shut down (tests compare them to the summary). */
  onClosed?: (calls: Record<DemoPlatformId, RecordedCall[]>) => void;
  /** How long to wait for the turns to end after the scenario (ms). Default 60 s. */
  settleTimeoutMs?: number;
}

/** The figures of one platform, read from its emulator's call log. */
export interface PlatformFigures {
  platform: DemoPlatformId;
  label: string;
  eventsSent: number;
  eventsAccepted: number;
  apiWrites: number;
  creates: number;
  edits: number;
  notifications: number;
  rateLimited: number;
  turns: number;
  /** Turns whose last log message's last write succeeded (from the call log). */
  finalFramesLanded: number;
  /** The scenario's answers found in a successful create (from the call log). */
  answersLanded: number;
  answers: number;
  logMessages: number;
  secretsLeaked: number;
  /** Reactions added or removed on people's messages that landed (👀, then ✅ / ❌ / ⏹️). */
  reactions: number;
}

export interface DemoSummary {
  /** One entry per platform, in the order of {@link DEMO_PLATFORMS}. */
  platforms: PlatformFigures[];
  /** The decisions people made on cards, as the scripted agent heard them from `GET /v1/actions`. */
  decisions: { requestId: string; decision: string; by: string }[];
}

/** The Google Chat app's authentication audience in the demo (the emulator signs its JWTs for it). */
const DEMO_GCHAT_AUDIENCE = 'demo-project-number';

/**
 * A platform the demo plays on: how to start its emulator in process, the
 * serve config that points its surface at it, and how a person posts there.
 * Adding a platform to the demo is one entry here (and its turns in the scenario).
 */
export interface DemoPlatform {
  id: DemoPlatformId;
  label: string;
  start(): Promise<EmulatorServer>;
  /** `platforms.<id>` of the serve config, against the emulator at `url`. */
  config(url: string): Record<string, unknown>;
}

export const DEMO_PLATFORMS: readonly DemoPlatform[] = [
  {
    id: 'gchat',
    label: 'Google Chat',
    start: () => startGchatEmulator(),
    // Two-way: Chat's MESSAGE and CARD_CLICKED events, with JWTs the emulator signs.
    config: (apiUrl) => ({
      apiUrl,
      events: { audience: DEMO_GCHAT_AUDIENCE, jwksUrl: `${apiUrl}/_emulator/jwks` },
    }),
  },
  {
    id: 'slack',
    label: 'Slack',
    start: () => startSlackEmulator(),
    config: (apiUrl) => ({ apiUrl, token: 'xoxb-demo-bot-token' }),
  },
  {
    id: 'discord',
    label: 'Discord',
    start: () => startDiscordEmulator(),
    config: (apiUrl) => ({ apiUrl, token: 'demo-bot-token' }),
  },
];

/** The space id on the platform itself (`slack:C123` → `C123`). */
const platformSpaceOf = (space: string): string => space.slice(space.indexOf(':') + 1);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function runDemo(opts: DemoOptions): Promise<DemoSummary> {
  const speed = opts.speed ?? 1;
  const scenario = demoScenario();
  const out = opts.out;
  const dir = mkdtempSync(join(tmpdir(), 'turnlog-demo-'));
  const running: { platform: DemoPlatform; emulator: EmulatorServer; space: string }[] = [];
  let page: Server | undefined;
  let serve: Awaited<ReturnType<typeof startServe>> | undefined;
  let runs: RunLink[] = [];
  try {
    for (const platform of DEMO_PLATFORMS)
      running.push({
        platform,
        emulator: await platform.start(),
        space: platformSpaceOf(scenario.spaces[platform.id]),
      });
    // The run pages' public URL is serve's own origin, so its port is known before serve starts.
    const port = opts.port ?? (await freePort());
    serve = await startServe({
      config: {
        ingest: { host: '127.0.0.1', port },
        runs: { publicUrl: `http://127.0.0.1:${port}` },
        store: { path: join(dir, 'turnlog.sqlite') },
        platforms: Object.fromEntries(
          running.map(({ platform, emulator }) => [platform.id, platform.config(emulator.url)]),
        ),
        // A smaller log message than the default 3500 chars, so the scenario shows a rollover.
        visibility: { threadLog: { maxLogMessageChars: 1500 } },
        log: { level: 'warn' },
      },
    });
    page = await startPage(opts.pagePort ?? 0, () => ({
      spaces: running.map(({ platform, emulator, space }) => ({
        platform: platform.id,
        label: platform.label,
        space,
        messages: emulator.state.messages(space),
      })),
      runs,
    }));
    const pageUrl = `http://127.0.0.1:${(page.address() as { port: number }).port}`;
    out(`turnlog demo\n`);
    for (const { platform, emulator } of running)
      out(`  ${`${platform.label} emulator`.padEnd(22)}${emulator.url}\n`);
    out(`  ingest API            ${serve.url}/v1/events\n`);
    out(`  watch the spaces live ${pageUrl}\n\n`);

    const sent: Record<string, number> = {};
    const accepted: Record<string, number> = {};
    const platformOfSpace = new Map(DEMO_PLATFORMS.map((p) => [scenario.spaces[p.id], p.id]));
    // One request per platform, so each platform's events are counted on their own.
    const send = async (events: Record<string, unknown>[]): Promise<void> => {
      for (const platform of DEMO_PLATFORMS) {
        const mine = events.filter((e) => platformOfSpace.get(String(e.space)) === platform.id);
        if (mine.length === 0) continue;
        const response = await fetch(`${serve!.url}/v1/events`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-ndjson' },
          body: mine.map((e) => JSON.stringify(e)).join('\n'),
        });
        const result = (await response.json()) as {
          accepted?: number;
          rejected?: { line: number; error: string }[];
        };
        for (const rejected of result.rejected ?? [])
          out(`  ! ${platform.label} line ${rejected.line} rejected: ${rejected.error}\n`);
        sent[platform.id] = (sent[platform.id] ?? 0) + mine.length;
        accepted[platform.id] = (accepted[platform.id] ?? 0) + (result.accepted ?? 0);
      }
    };

    // The people's messages: posted in each platform's space, recorded as anchors for the turns.
    const inbound = scenario.userMessages.map((m) => {
      const { emulator, space } = running.find((r) => r.platform.id === m.platform)!;
      const posted = emulator.state.inbound({
        space,
        text: m.text,
        ...(m.platform === 'gchat' ? { user: 'users/demo-person' } : {}),
      });
      return {
        type: 'inbound',
        space: scenario.spaces[m.platform],
        messageId: posted.messageId,
        ...(posted.threadId === undefined ? {} : { threadId: posted.threadId }),
        ref: m.ref,
        // What a turn that adopts it shows (issue 26): who and the first words.
        text: m.text,
        user: 'demo person',
      };
    });
    await send(inbound);
    const asked = running.map(({ platform, space }) => {
      const count = scenario.userMessages.filter((m) => m.platform === platform.id).length;
      return `${count} in ${platform.label} ${space}`;
    });
    out(`  people ask their questions: ${asked.join(', ')}\n`);

    // The Google Chat app's events endpoint: a person's click reaches serve the way Chat sends it.
    const gchat = running.find((r) => r.platform.id === 'gchat');
    if (gchat) {
      await emulatorPost(gchat.emulator.url, 'app', {
        url: `${serve.url}/v1/platforms/gchat/events`,
        secret: DEMO_GCHAT_AUDIENCE,
      });
    }
    const decisions: DemoSummary['decisions'] = [];
    let cursor: string | undefined;
    for (const [index, step] of scenario.steps.entries()) {
      await send(withDecisions(step.events, decisions));
      out(
        `  [${String(index + 1).padStart(2)}/${scenario.steps.length}] ${step.label} (${step.events.length} events)\n`,
      );
      if (step.approval) {
        const { emulator, space } = running.find((r) => r.platform.id === step.approval?.platform)!;
        const heard = await approve(serve.url, emulator, space, step.approval, cursor);
        cursor = heard.cursor;
        decisions.push(heard.decision);
        out(
          `        ${step.approval.person} presses ${step.approval.press} on the card → the agent hears: ${heard.decision.decision} by ${heard.decision.by}\n`,
        );
      }
      if (step.pauseMs > 0) await sleep(step.pauseMs / speed);
      // A turn has its run page once it started: the page lists the links as they come.
      if (runs.length < scenario.turnIds.length) runs = await runLinksOf(serve.url, scenario.turnIds);
    }

    const turnIds = scenario.turnIds;
    // Every figure comes from the call logs, read once nothing is left to land: the turns
    // have ended (their final frames are sent) and every delivery (answers, cards) has settled.
    await waitForSettled(serve.runtime, turnIds, opts.settleTimeoutMs ?? 60_000);
    const summary: DemoSummary = {
      decisions,
      platforms: running.map(({ platform, emulator }) => {
        const turns = turnsOn(scenario, scenario.spaces[platform.id]);
        return summarize(emulator.state.calls(), scenario, platform, {
          sent: sent[platform.id] ?? 0,
          accepted: accepted[platform.id] ?? 0,
          lastLogMessages: turns.map((id) => serve!.runtime.turn(id)?.logMessages.at(-1)?.messageId),
        });
      }),
    };
    out(`\n${formatSummary(summary)}\n`);
    out(`  see the spaces as a person sees them: ${pageUrl}\n`);
    for (const { platform, emulator, space } of running)
      out(`    ${platform.label}: ${emulator.url}/_emulator/messages?space=${space}\n`);
    runs = await runLinksOf(serve.url, turnIds);
    out(`  each turn's full record (its run page, also linked as "Full log" in the chat):\n`);
    for (const { turnId, url } of runs) out(`    ${turnId}: ${url}\n`);

    if (!opts.keep && opts.holdPage) {
      out(`\n  ${opts.holdPage.prompt}\n`);
      await opts.holdPage.until();
    }
    if (opts.keep) {
      out(`\n  --keep: still serving. Send your own events:\n`);
      out(
        `  curl -s ${serve.url}/v1/events -H 'content-type: application/x-ndjson' --data-binary '{"type":"note","space":"${scenario.spaces.gchat}","turnId":"mine","text":"hello"}'\n`,
      );
      out(`  Ctrl-C to stop.\n`);
      await (opts.untilStopped?.() ?? new Promise<void>(() => {}));
    }
    return summary;
  } finally {
    await serve?.close();
    await new Promise<void>((resolve) => (page ? page.close(() => resolve()) : resolve()));
    opts.onClosed?.(
      Object.fromEntries(
        running.map(({ platform, emulator }) => [platform.id, emulator.state.calls()]),
      ) as Record<DemoPlatformId, RecordedCall[]>,
    );
    for (const { emulator } of running) await emulator.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function emulatorPost(url: string, endpoint: string, body: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${url}/_emulator/${endpoint}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const answer = (await response.json()) as Record<string, unknown>;
  if (!response.ok)
    throw new Error(`/_emulator/${endpoint} answered ${response.status}: ${JSON.stringify(answer)}`);
  return answer;
}

/**
 * A person presses a button on the card of `requestId` once it shows, and the
 * scripted agent long-polls `GET /v1/actions` for the decision, as a host does.
 */
async function approve(
  ingestUrl: string,
  emulator: EmulatorServer,
  space: string,
  approval: NonNullable<Scenario['steps'][number]['approval']>,
  after: string | undefined,
): Promise<{ decision: DemoSummary['decisions'][number]; cursor: string | undefined }> {
  const deadline = Date.now() + 30_000;
  let card: { id: string } | undefined;
  while (!card && Date.now() < deadline) {
    card = emulator.state
      .messages(space)
      .find(
        (m) => m.buttons?.some((b) => b.action === approval.press) && m.text.includes(approval.requestId),
      );
    card ??= emulator.state.messages(space).find((m) => m.buttons?.some((b) => b.action === approval.press));
    if (!card) await sleep(50);
  }
  if (!card) throw new Error(`the card of ${approval.requestId} did not show within 30 s`);
  await emulatorPost(emulator.url, 'click', {
    messageId: card.id,
    action: approval.press,
    user: approval.person,
  });
  let cursor = after;
  while (Date.now() < deadline) {
    const query = new URLSearchParams({ wait: '5', ...(cursor ? { after: cursor } : {}) });
    const page = (await (await fetch(`${ingestUrl}/v1/actions?${query}`)).json()) as {
      actions: { type: string; requestId?: string; decision?: string; user: { id: string; name?: string } }[];
      cursor: string;
    };
    cursor = page.cursor;
    const found = page.actions.find((a) => a.type === 'decision' && a.requestId === approval.requestId);
    if (found) {
      return {
        decision: {
          requestId: approval.requestId,
          decision: found.decision ?? '',
          by: found.user.name ?? found.user.id,
        },
        cursor,
      };
    }
  }
  throw new Error(`no decision on ${approval.requestId} reached the agent within 30 s`);
}

/** The agent's `policy_decision` events say what the person decided. */
function withDecisions(
  events: Record<string, unknown>[],
  decisions: DemoSummary['decisions'],
): Record<string, unknown>[] {
  return events.map((event) => {
    if (event.type !== 'policy_decision') return event;
    const heard = decisions.find((d) => d.requestId === event.requestId);
    return heard ? { ...event, decision: heard.decision } : event;
  });
}

/** Delivery actors (answers, cards, top-level entries) still at work in any space. */
function deliveriesInFlight(runtime: Runtime): number {
  let count = 0;
  const spaces = Object.values(runtime.actor.getSnapshot().children ?? {}) as (AnyActorRef | undefined)[];
  for (const space of spaces) {
    const children = (space?.getSnapshot().children ?? {}) as Record<string, AnyActorRef | undefined>;
    for (const [id, child] of Object.entries(children))
      if (id.startsWith('delivery:') && child?.getSnapshot().status === 'active') count++;
  }
  return count;
}

/** Polls until every turn has ended and no delivery is in flight, or the time is up. */
async function waitForSettled(runtime: Runtime, turnIds: string[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ended = turnIds.every((id) => runtime.turn(id)?.state === 'ended');
    if ((ended && deliveriesInFlight(runtime) === 0) || Date.now() >= deadline) return;
    await sleep(50);
  }
}

/** The turns a scenario starts in `space`. */
function turnsOn(scenario: Pick<Scenario, 'steps'>, space: string): string[] {
  return scenario.steps.flatMap((step) =>
    step.events.filter((e) => e.type === 'turn_started' && e.space === space).map((e) => String(e.turnId)),
  );
}

/** The answers a scenario sends in `space`. */
function answerTexts(scenario: Pick<Scenario, 'steps'>, space: string): string[] {
  return scenario.steps.flatMap((step) =>
    step.events.filter((e) => e.type === 'answer' && e.space === space).map((e) => String(e.text)),
  );
}

/**
 * One platform's numbers, read from its emulator's own record of every call.
 * `lastLogMessages`: each of its turns' last log message id (undefined when it has none).
 * A call landed when it answered 2xx without an error (Slack refuses with HTTP 200 and
 * `{ok: false, error}`, which its emulator records as `details.error`).
 */
export function summarize(
  calls: RecordedCall[],
  scenario: Pick<Scenario, 'plantedSecret' | 'steps' | 'spaces'>,
  platform: Pick<DemoPlatform, 'id' | 'label'>,
  counts: { sent: number; accepted: number; lastLogMessages: (string | undefined)[] },
): PlatformFigures {
  const byApp = calls.filter((c) => c.op !== 'inbound' && c.op !== 'other');
  const landed = (c: RecordedCall) => c.status < 300 && c.details?.error === undefined;
  const ok = byApp.filter(landed);
  const texts = calls.map((c) => `${c.text ?? ''}\n${JSON.stringify(c.details ?? {})}`);
  const writes = byApp.filter((c) => c.op === 'create' || c.op === 'update');
  const finalFrameLanded = (messageId: string | undefined) => {
    const last = writes.filter((c) => c.messageId === messageId).at(-1);
    return messageId !== undefined && last !== undefined && landed(last);
  };
  const answers = answerTexts(scenario, scenario.spaces[platform.id]);
  const created = ok.filter((c) => c.op === 'create');
  return {
    platform: platform.id,
    label: platform.label,
    eventsSent: counts.sent,
    eventsAccepted: counts.accepted,
    apiWrites: byApp.filter((c) => c.op === 'create' || c.op === 'update' || c.op === 'delete').length,
    creates: created.length,
    edits: ok.filter((c) => c.op === 'update').length,
    notifications: ok.filter((c) => c.notifies).length,
    rateLimited: byApp.filter((c) => c.status === 429 || c.details?.error === 'ratelimited').length,
    turns: counts.lastLogMessages.length,
    finalFramesLanded: counts.lastLogMessages.filter(finalFrameLanded).length,
    answersLanded: answers.filter((answer) => created.some((c) => c.text?.includes(answer))).length,
    answers: answers.length,
    logMessages: created.filter((c) => c.thread !== null).length,
    secretsLeaked: texts.filter((t) => t.includes(scenario.plantedSecret) || t.includes('hunter2')).length,
    reactions: ok.filter((c) => c.op === 'reaction').length,
  };
}

/** Every figure a row, every platform a column. */
export function formatSummary(s: DemoSummary): string {
  const rows: [string, (f: PlatformFigures) => number | string][] = [
    ['events in (accepted/sent)', (f) => `${f.eventsAccepted}/${f.eventsSent}`],
    ['API writes', (f) => f.apiWrites],
    ['messages created', (f) => f.creates],
    ['edits', (f) => f.edits],
    ['notifications (buzzes)', (f) => f.notifications],
    ['429s from the platform', (f) => f.rateLimited],
    ['final frames landed', (f) => `${f.finalFramesLanded}/${f.turns}`],
    ['answers landed', (f) => `${f.answersLanded}/${f.answers}`],
    ['secrets leaked', (f) => f.secretsLeaked],
    ['reactions (👀, then ✅)', (f) => f.reactions],
  ];
  const width = Math.max(12, ...s.platforms.map((f) => f.label.length + 2));
  const line = (label: string, cells: string[]) =>
    `  ${label.padEnd(28)}${cells.map((cell) => cell.padStart(width)).join('')}`;
  return [
    'summary (from each emulator’s call log)',
    line(
      '',
      s.platforms.map((f) => f.label),
    ),
    ...rows.map(([label, figure]) =>
      line(
        label,
        s.platforms.map((f) => String(figure(f))),
      ),
    ),
  ].join('\n');
}

/** Every turn's final frame and answer landed, and no secret reached any platform. */
export function demoSucceeded(s: DemoSummary): boolean {
  return s.platforms.every(
    (f) => f.finalFramesLanded === f.turns && f.answersLanded === f.answers && f.secretsLeaked === 0,
  );
}
