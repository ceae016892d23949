/**
 * `npm run bench -- slack-load`: the run-visibility load harness, raised for
 * Slack (issue 11 item 8). 200 cards over 600 s of simulated time in 20
 * channels of one app: the real runtime (createRuntime) on the Slack surface
 * (@slack/web-api's WebClient) against the Slack emulator with Slack's limits
 * (src/emulators/slack/limits.ts: chat.update 50 a minute per app, posts 5 in
 * 5 s per channel). One SimulatedClock drives the runtime, the surface and the
 * emulator's limit windows; time moves in 100 ms steps, each step waits
 * until no Slack call is in flight.
 *
 * Each turn starts in the first 480 s (seeded), logs a tool call every
 * 2–8 s for 30–120 s, then ends. Reported against the targets:
 * - rate-limited answers (target 0);
 * - terminal frames landed: the card's last write holds the turn's last line
 *   and the turn ended undegraded (target 200/200);
 * - the most chat.update calls in any 60 s (target ≤ 50);
 * - p95 progress lag: from a tool call's arrival to the first write of its
 *   card that shows it, against 1.25 × (live cards ÷ progress rate), the
 *   progress rate being what the target assumes for progress frames
 *   (50 a minute minus the 10 kept for terminal frames).
 * - the 👀 ack card: from turn_started to its post in the person's thread
 *   (issue 11 item 2: within a second), p50 / p95 / max under this load.
 * Besides: the chat.postMessage calls (Slack limits them per channel, apart
 * from chat.update), the chat.update calls that were progress frames, and
 * the rate terminal frames took while cards were live — the 200 terminal
 * frames share chat.update's 50 a minute with the progress frames — and
 * where the lag comes from (issue 26 item 4): which lines were first shown
 * by a progress frame and which only by the terminal frame, each with its
 * lag, how long a terminal frame took after turn_ended, and how many
 * progress frames each card got.
 */
import { SimulatedClock } from 'xstate';
import { startSlackEmulator } from '../src/emulators/slack/index.js';
import type { RecordedCall } from '../src/emulators/types.js';
import { builtinPlatforms } from '../src/platforms/all.js';
import { createSlackSurface } from '../src/platforms/slack/surface.js';
import { createRuntime } from '../src/runtime.js';
import type { ChatSurface } from '../src/surfaces/surface.js';
import { cpuSeconds, printTable, progress } from './runtime/report.js';
import { seeded } from './runtime/seeded.js';

/** `--config=JSON`: the runtime's config (default none), e.g. `--config='{"budgets":{"slack":{"marginFraction":0}}}'`. */
const CONFIG = JSON.parse(
  process.argv.find((a) => a.startsWith('--config='))?.slice('--config='.length) ?? '{}',
) as Record<string, unknown>;
const CARDS = 200;
const CHANNELS = 20;
const SIMULATED_MS = 600_000;
/** Turns start within the first 480 s, so the last ends by 600 s. */
const LAST_START_MS = 480_000;
const STEP_MS = 100;
/** After the last turn ended: time for the booked terminal frames to drain. */
const DRAIN_MS = 180_000;
const START_MS = Date.UTC(2026, 0, 1, 12, 0, 0);
/** chat.update a minute (Slack's Tier 3) and the part kept for terminal frames (the Slack descriptor's budget). */
const UPDATES_PER_MIN = 50;
const RESERVE_PER_MIN = 10;

interface PlannedTurn {
  turnId: string;
  space: string;
  startMs: number;
  /** Offsets (from START_MS) of its tool calls. */
  steps: number[];
}

function plan(): PlannedTurn[] {
  const random = seeded(11);
  return Array.from({ length: CARDS }, (_, i) => {
    const startMs = Math.floor(random() * LAST_START_MS);
    const lengthMs = 30_000 + Math.floor(random() * 90_000);
    const steps: number[] = [];
    for (let at = startMs + 500; at < startMs + lengthMs; at += 2000 + Math.floor(random() * 6000))
      steps.push(at);
    return { turnId: `L${i}`, space: `slack:C0LOAD${String(i % CHANNELS).padStart(4, '0')}`, startMs, steps };
  });
}

const settle = async (): Promise<void> => {
  for (let i = 0; i < 8; i++) await new Promise<void>((resolve) => setImmediate(resolve));
};

export default async function run(): Promise<void> {
  const cpu0 = cpuSeconds();
  const clock = new SimulatedClock();
  clock.set(START_MS);
  const emulator = await startSlackEmulator({ now: () => clock.now() });
  const slack = createSlackSurface({ token: 'xoxb-bench', apiUrl: emulator.url, now: () => clock.now() });
  let inFlight = 0;
  const track = <T>(call: Promise<T>): Promise<T> => {
    inFlight++;
    return call.finally(() => {
      inFlight--;
    });
  };
  const surface: ChatSurface = {
    platform: 'slack',
    capabilities: slack.capabilities,
    post: (req, opts) => track(slack.post(req, opts)),
    edit: (req, opts) => track(slack.edit(req, opts)),
    react: (req, opts) => track(slack.react(req, opts)),
  };
  const runtime = createRuntime({
    platforms: builtinPlatforms,
    config: CONFIG,
    surfaces: { slack: surface },
    clock,
    logger: { warn: () => {}, error: () => {} },
    inspect: () => {},
  });
  await runtime.ready;

  const quiet = async (): Promise<void> => {
    for (let round = 0; round < 10_000; round++) {
      await settle();
      if (inFlight === 0) {
        await settle();
        if (inFlight === 0) return;
      }
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    throw new Error(`${inFlight} Slack calls never landed`);
  };
  const inbound = async (space: string, text: string): Promise<string> => {
    const res = await fetch(`${emulator.url}/_emulator/inbound`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ space: space.slice('slack:'.length), text }),
    });
    return ((await res.json()) as { messageId: string }).messageId;
  };
  const ingest = (event: Record<string, unknown>): void => {
    const result = runtime.ingest(event);
    if (!result.ok) throw new Error(result.error);
  };

  const turns = plan();
  // Every event at its simulated time: [offset, what].
  const schedule: [number, () => Promise<void> | void][] = [];
  /** A turn's tool calls: the line it adds (its path) and when it arrived. */
  const sent = new Map<string, { path: string; at: number }[]>();
  /** A turn's start: the person's message (the card's thread) and when turn_started arrived. */
  const started = new Map<string, { root: string; at: number }>();
  for (const turn of turns) {
    sent.set(turn.turnId, []);
    schedule.push([
      turn.startMs,
      async () => {
        const messageId = await inbound(turn.space, `please ${turn.turnId}`);
        started.set(turn.turnId, { root: messageId, at: clock.now() });
        ingest({ type: 'turn_started', space: turn.space, turnId: turn.turnId, root: { messageId } });
      },
    ]);
    turn.steps.forEach((at, n) => {
      schedule.push([
        at,
        () => {
          const path = `${turn.turnId}-step-${n}.ts`;
          sent.get(turn.turnId)!.push({ path, at: START_MS + at });
          ingest({
            type: 'tool_call',
            space: turn.space,
            turnId: turn.turnId,
            callId: `c${n}`,
            tool: 'Read',
            input: { path },
          });
        },
      ]);
    });
    const endAt = (turn.steps.at(-1) ?? turn.startMs) + 1000;
    schedule.push([
      endAt,
      () => ingest({ type: 'turn_ended', space: turn.space, turnId: turn.turnId, outcome: 'ok' }),
    ]);
  }
  schedule.sort((a, b) => a[0] - b[0]);

  let next = 0;
  const endMs = SIMULATED_MS + DRAIN_MS;
  for (let now = 0; now <= endMs; now += STEP_MS) {
    while (next < schedule.length && schedule[next]![0] <= now) await schedule[next++]![1]();
    await quiet();
    clock.increment(STEP_MS);
    if (now % 60_000 === 0) progress(`${now / 1000} s simulated`);
  }
  await quiet();

  // ---- figures, read from the emulator's own call log
  const calls = emulator.state.calls();
  const refused = calls.filter((c) => c.status === 429 || c.details?.error === 'ratelimited');
  const landedOk = (c: RecordedCall) => c.status < 300 && c.details?.error === undefined;
  const updates = calls.filter((c) => c.op === 'update' && landedOk(c));
  const posts = calls.filter((c) => c.op === 'create' && landedOk(c));
  let maxPerMinute = 0;
  for (let i = 0, j = 0; i < updates.length; i++) {
    while (updates[i]!.at - updates[j]!.at >= 60_000) j++;
    maxPerMinute = Math.max(maxPerMinute, i - j + 1);
  }

  const writesByCard = new Map<string, RecordedCall[]>();
  for (const call of calls) {
    if ((call.op !== 'create' && call.op !== 'update') || !landedOk(call) || call.messageId === null)
      continue;
    const list = writesByCard.get(call.messageId) ?? [];
    list.push(call);
    writesByCard.set(call.messageId, list);
  }
  const lags: number[] = [];
  /** Where the lag comes from: the lags of lines first shown by the terminal frame, and of those by a progress frame. */
  const lagsByTerminal: number[] = [];
  const lagsByProgress: number[] = [];
  /** turn_ended → the terminal frame (the card's last write). */
  const terminalDelays: number[] = [];
  /** Per card: its progress frames (the edits before its terminal frame), the first line's edit included. */
  const progressPerCard: number[] = [];
  let terminalLanded = 0;
  let liveMsTotal = 0;
  for (const turn of turns) {
    const view = runtime.turn(turn.turnId);
    const cards = (view?.logMessages ?? []).map((m) => m.messageId);
    const writes = cards.flatMap((id) => writesByCard.get(id) ?? []).sort((a, b) => a.seq - b.seq);
    const lines = sent.get(turn.turnId)!;
    const lastWrite = writes.at(-1);
    for (const line of lines) {
      const shown = writes.find((w) => w.at >= line.at && (w.text ?? '').includes(line.path));
      if (!shown) continue;
      lags.push(shown.at - line.at);
      (shown === lastWrite ? lagsByTerminal : lagsByProgress).push(shown.at - line.at);
    }
    const endedAt = START_MS + (turn.steps.at(-1) ?? turn.startMs) + 1000;
    if (lastWrite) terminalDelays.push(lastWrite.at - endedAt);
    progressPerCard.push(writes.filter((w) => w.op === 'update').length - 1);
    const last = lines.at(-1);
    const finalCard = cards.at(-1);
    const finalText =
      finalCard === undefined
        ? ''
        : (emulator.state.messages(turn.space.slice(6)).find((m) => m.id === finalCard)?.text ?? '');
    if (
      view?.state === 'ended' &&
      view.degraded === false &&
      last !== undefined &&
      finalText.includes(last.path)
    )
      terminalLanded++;
    liveMsTotal += (turn.steps.at(-1) ?? turn.startMs) + 1000 - turn.startMs;
  }
  lags.sort((a, b) => a - b);
  // The 👀 ack card: turn_started → the first post in the person's thread.
  const acks: number[] = [];
  for (const turn of turns) {
    const start = started.get(turn.turnId);
    const card = start && posts.find((c) => c.thread === start.root);
    if (start && card) acks.push(card.at - start.at);
  }
  acks.sort((a, b) => a - b);
  const byNumber = (a: number, b: number) => a - b;
  const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const quantile = (sorted: number[], q: number) =>
    sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] ?? 0;
  const p95 = lags[Math.min(lags.length - 1, Math.floor(lags.length * 0.95))] ?? 0;
  // Time-averaged over the span any card was live (the first start to the last end).
  const firstStart = Math.min(...turns.map((t) => t.startMs));
  const lastEnd = Math.max(...turns.map((t) => (t.steps.at(-1) ?? t.startMs) + 1000));
  const liveCards = liveMsTotal / (lastEnd - firstStart);
  const progressPerS = (UPDATES_PER_MIN - RESERVE_PER_MIN) / 60;
  const target = 1.25 * (liveCards / progressPerS) * 1000;
  // Each card's last chat.update is its terminal frame (every card ends with one: see terminalLanded).
  const lastUpdateOf = new Map<string, number>();
  for (const call of updates) if (call.messageId !== null) lastUpdateOf.set(call.messageId, call.seq);
  const terminalSeqs = new Set(lastUpdateOf.values());
  const liveMinutes = (lastEnd - firstStart) / 60_000;
  const terminalsWhileLive = updates.filter(
    (c) => terminalSeqs.has(c.seq) && c.at >= START_MS + firstStart && c.at <= START_MS + lastEnd,
  ).length;
  const progressWhileLive = updates.filter(
    (c) => !terminalSeqs.has(c.seq) && c.at >= START_MS + firstStart && c.at <= START_MS + lastEnd,
  ).length;

  await runtime.stop();
  await emulator.close();

  printTable(
    ['figure', 'measured', 'target'],
    [
      ['cards (turns)', String(CARDS), `${CARDS} in ${CHANNELS} channels, ${SIMULATED_MS / 1000} s`],
      ['tool calls', String(lags.length), ''],
      ['rate-limited answers (429 / ratelimited)', String(refused.length), '0'],
      ['terminal frames landed (final state shown)', `${terminalLanded}/${CARDS}`, `${CARDS}/${CARDS}`],
      ['most chat.update in any 60 s', String(maxPerMinute), `≤ ${UPDATES_PER_MIN}`],
      ['chat.update landed (total)', String(updates.length), ''],
      ['chat.postMessage landed (not counted against chat.update)', String(posts.length), ''],
      [
        'chat.update a minute while cards were live: progress + terminal',
        `${(progressWhileLive / liveMinutes).toFixed(1)} + ${(terminalsWhileLive / liveMinutes).toFixed(1)}`,
        `${UPDATES_PER_MIN - RESERVE_PER_MIN} + ${RESERVE_PER_MIN} assumed`,
      ],
      ['live cards (mean while any is live)', liveCards.toFixed(1), ''],
      ['p50 progress lag', `${((lags[Math.floor(lags.length / 2)] ?? 0) / 1000).toFixed(1)} s`, ''],
      ['p95 progress lag', `${(p95 / 1000).toFixed(1)} s`, `≤ ${(target / 1000).toFixed(1)} s`],
      ['ack cards (👀) posted', `${acks.length}/${CARDS}`, `${CARDS}/${CARDS}`],
      [
        'ack card latency p50 / p95 / max (turn_started → post)',
        [0.5, 0.95, 1].map((q) => `${(quantile(acks, q) / 1000).toFixed(1)} s`).join(' / '),
        '≤ 1 s',
      ],
      [
        'lines first shown by a progress frame / by the terminal frame',
        `${lagsByProgress.length} / ${lagsByTerminal.length}`,
        '',
      ],
      [
        'their lag p50 / p95: progress frame · terminal frame',
        `${seconds(quantile(lagsByProgress.sort(byNumber), 0.5))} / ${seconds(quantile(lagsByProgress, 0.95))} · ${seconds(quantile(lagsByTerminal.sort(byNumber), 0.5))} / ${seconds(quantile(lagsByTerminal, 0.95))}`,
        '',
      ],
      [
        'terminal frame after turn_ended p50 / p95 / max',
        [0.5, 0.95, 1].map((q) => seconds(quantile(terminalDelays.sort(byNumber), q))).join(' / '),
        '',
      ],
      [
        'progress frames per card (first line included) p50 / mean',
        `${quantile(progressPerCard.sort(byNumber), 0.5)} / ${(progressPerCard.reduce((a, b) => a + b, 0) / progressPerCard.length).toFixed(2)}`,
        '',
      ],
      ['CPU', `${(cpuSeconds() - cpu0).toFixed(1)} s`, ''],
    ],
  );
}
