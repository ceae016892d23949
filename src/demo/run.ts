/**
 * `turnlog demo` (`npm start`): the whole system on one machine. It starts the
 * Google Chat emulator, `turnlog serve` on a temporary SQLite store with the
 * real Google Chat surface (googleapis) pointed at the emulator, and a small
 * web page showing the emulated space live; replays the bundled scenario
 * through the HTTP ingest API; and prints a summary read from the emulator's
 * own call log, once every turn has ended and every delivery has settled.
 * It ends by itself (on a terminal the CLI first keeps the page up until
 * Enter); `--keep` keeps it serving.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AnyActorRef } from 'xstate';
import { startGchatEmulator } from '../emulators/gchat/index.js';
import type { RecordedCall } from '../emulators/types.js';
import type { Runtime } from '../runtime.js';
import { startServe } from '../serve/index.js';
import { demoPage } from './page.js';
import { demoScenario, type Scenario } from './scenario.js';

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
  /** Called with the emulator's whole call log once serve has shut down (tests compare it to the summary). */
  onClosed?: (calls: RecordedCall[]) => void;
  /** How long to wait for the turns to end after the scenario (ms). Default 60 s. */
  settleTimeoutMs?: number;
}

export interface DemoSummary {
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
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function runDemo(opts: DemoOptions): Promise<DemoSummary> {
  const speed = opts.speed ?? 1;
  const scenario = demoScenario();
  const out = opts.out;
  const dir = mkdtempSync(join(tmpdir(), 'turnlog-demo-'));
  const emulator = await startGchatEmulator();
  const platformSpace = scenario.space.slice('gchat:'.length);
  let page: Server | undefined;
  let serve: Awaited<ReturnType<typeof startServe>> | undefined;
  try {
    serve = await startServe({
      config: {
        ingest: { host: '127.0.0.1', port: opts.port ?? 0 },
        store: { path: join(dir, 'turnlog.sqlite') },
        platforms: { gchat: { apiUrl: emulator.url } },
        // A smaller log message than the default 3500 chars, so the scenario shows a rollover.
        visibility: { threadLog: { maxLogMessageChars: 1500 } },
        log: { level: 'warn' },
      },
    });
    page = await startPage(opts.pagePort ?? 0, () => emulator.state.messages(platformSpace));
    const pageUrl = `http://127.0.0.1:${(page.address() as { port: number }).port}`;
    out(`turnlog demo\n`);
    out(`  Google Chat emulator  ${emulator.url}\n`);
    out(`  ingest API            ${serve.url}/v1/events\n`);
    out(`  watch the space live  ${pageUrl}\n\n`);

    const send = async (events: Record<string, unknown>[]): Promise<number> => {
      const body = events.map((e) => JSON.stringify({ space: scenario.space, ...e })).join('\n');
      const response = await fetch(`${serve!.url}/v1/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-ndjson' },
        body,
      });
      const result = (await response.json()) as {
        accepted?: number;
        rejected?: { line: number; error: string }[];
      };
      for (const rejected of result.rejected ?? [])
        out(`  ! line ${rejected.line} rejected: ${rejected.error}\n`);
      return result.accepted ?? 0;
    };

    let sent = 0;
    let accepted = 0;
    // The people's messages: posted in the space, recorded as anchors for the turns.
    const inbound = scenario.userMessages.map((m) => {
      const posted = emulator.state.inbound({
        space: platformSpace,
        text: m.text,
        user: 'users/demo-person',
      });
      return { type: 'inbound', messageId: posted.messageId, threadId: posted.threadId, ref: m.ref };
    });
    sent += inbound.length;
    accepted += await send(inbound);
    out(`  a person asks two questions in ${platformSpace}\n`);

    for (const [index, step] of scenario.steps.entries()) {
      sent += step.events.length;
      accepted += await send(step.events);
      out(
        `  [${String(index + 1).padStart(2)}/${scenario.steps.length}] ${step.label} (${step.events.length} events)\n`,
      );
      if (step.pauseMs > 0) await sleep(step.pauseMs / speed);
    }

    const turnIds = scenario.turnIds;
    // Every figure comes from the call log, read once nothing is left to land: the turns
    // have ended (their final frames are sent) and every delivery (answers, cards) has settled.
    await waitForSettled(serve.runtime, turnIds, opts.settleTimeoutMs ?? 60_000);
    const summary = summarize(emulator.state.calls(), scenario, {
      sent,
      accepted,
      lastLogMessages: turnIds.map((id) => serve!.runtime.turn(id)?.logMessages.at(-1)?.messageId),
    });
    out(`\n${formatSummary(summary)}\n`);
    out(
      `  see the space as a person sees it: ${pageUrl} (or ${emulator.url}/_emulator/messages?space=${platformSpace})\n`,
    );

    if (!opts.keep && opts.holdPage) {
      out(`\n  ${opts.holdPage.prompt}\n`);
      await opts.holdPage.until();
    }
    if (opts.keep) {
      out(`\n  --keep: still serving. Send your own events:\n`);
      out(
        `  curl -s ${serve.url}/v1/events -H 'content-type: application/x-ndjson' --data-binary '{"type":"note","space":"${scenario.space}","turnId":"mine","text":"hello"}'\n`,
      );
      out(`  Ctrl-C to stop.\n`);
      await (opts.untilStopped?.() ?? new Promise<void>(() => {}));
    }
    return summary;
  } finally {
    await serve?.close();
    await new Promise<void>((resolve) => (page ? page.close(() => resolve()) : resolve()));
    opts.onClosed?.(emulator.state.calls());
    await emulator.close();
    rmSync(dir, { recursive: true, force: true });
  }
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

/** The answers a scenario sends. */
function answerTexts(scenario: Pick<Scenario, 'steps'>): string[] {
  return scenario.steps.flatMap((step) =>
    step.events.filter((e) => e.type === 'answer').map((e) => String(e.text)),
  );
}

/**
 * The numbers, read from the emulator's own record of every call.
 * `lastLogMessages`: each turn's last log message id (undefined when it has none).
 */
export function summarize(
  calls: RecordedCall[],
  scenario: Pick<Scenario, 'plantedSecret' | 'steps'>,
  counts: { sent: number; accepted: number; lastLogMessages: (string | undefined)[] },
): DemoSummary {
  const byApp = calls.filter((c) => c.op !== 'inbound' && c.op !== 'other');
  const ok = byApp.filter((c) => c.status < 300);
  const texts = calls.map((c) => `${c.text ?? ''}\n${JSON.stringify(c.details ?? {})}`);
  const writes = byApp.filter((c) => c.op === 'create' || c.op === 'update');
  const finalFrameLanded = (messageId: string | undefined) => {
    const last = writes.filter((c) => c.messageId === messageId).at(-1);
    return messageId !== undefined && last !== undefined && last.status < 300;
  };
  const answers = answerTexts(scenario);
  const created = ok.filter((c) => c.op === 'create');
  return {
    eventsSent: counts.sent,
    eventsAccepted: counts.accepted,
    apiWrites: byApp.filter((c) => c.op === 'create' || c.op === 'update' || c.op === 'delete').length,
    creates: created.length,
    edits: ok.filter((c) => c.op === 'update').length,
    notifications: ok.filter((c) => c.notifies).length,
    rateLimited: byApp.filter((c) => c.status === 429).length,
    turns: counts.lastLogMessages.length,
    finalFramesLanded: counts.lastLogMessages.filter(finalFrameLanded).length,
    answersLanded: answers.filter((answer) => created.some((c) => c.text?.includes(answer))).length,
    answers: answers.length,
    logMessages: created.filter((c) => c.thread !== null).length,
    secretsLeaked: texts.filter((t) => t.includes(scenario.plantedSecret) || t.includes('hunter2')).length,
  };
}

export function formatSummary(s: DemoSummary): string {
  const rows: [string, number | string][] = [
    ['events in (accepted/sent)', `${s.eventsAccepted}/${s.eventsSent}`],
    ['API writes', s.apiWrites],
    ['messages created', s.creates],
    ['edits', s.edits],
    ['notifications (buzzes)', s.notifications],
    ['429s from the platform', s.rateLimited],
    ['final frames landed', `${s.finalFramesLanded}/${s.turns}`],
    ['answers landed', `${s.answersLanded}/${s.answers}`],
    ['secrets leaked', s.secretsLeaked],
  ];
  return ['summary (from the emulator’s call log)', ...rows.map(([k, v]) => `  ${k.padEnd(28)} ${v}`)].join(
    '\n',
  );
}

async function startPage(port: number, messages: () => unknown): Promise<Server> {
  const server = createServer((req, res) => {
    if (req.url === '/messages') {
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      res.end(JSON.stringify({ messages: messages() }));
      return;
    }
    if (req.url === '/' || req.url === '/index.html') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(demoPage());
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('not found');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return server;
}
