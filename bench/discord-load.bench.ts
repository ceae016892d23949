/**
 * Discord under load through the whole runtime: createRuntime (ingest →
 * space → turn → budget → pacing) on the Discord surface (@discordjs/rest)
 * against the Discord emulator with Discord's limits (5 creates and 5 edits
 * per 5 s per channel — a thread is a channel of its own — and 50
 * requests/s in all), on the system clock.
 *
 * 100 concurrent turns in 10 channels: each anchored on a person's message,
 * 5 tool calls a second apart, 10 s of quiet thinking (typing shows in each
 * thread, through the budget), an answer and the end. Reported: the
 * emulator's 429s (target 0), terminal frames landed (the log showing its
 * last tool call, and the answer posted), and the lag from `turn_ended` to
 * the log's last edit landing (p50, p95), with the wall time.
 */
import { startDiscordEmulator } from '../src/emulators/discord/index.js';
import { builtinPlatforms } from '../src/platforms/all.js';
import { createDiscordSurface } from '../src/platforms/discord/index.js';
import { createRuntime } from '../src/runtime.js';

const TURNS = 100;
const CHANNELS = 10;
const TOOLS = 5;
const DRAIN_LIMIT_MS = 120_000;
/** The agents think quietly after their tool calls: the typing indicator's time. */
const QUIET_MS = 10_000;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;

export default async function run(): Promise<void> {
  const emulator = await startDiscordEmulator();
  const surface = createDiscordSurface({ token: 'bench', apiUrl: emulator.url });
  const warnings: string[] = [];
  const runtime = createRuntime({
    platforms: builtinPlatforms,
    config: {},
    surfaces: { discord: surface },
    logger: { warn: (m) => warnings.push(m), error: (m) => warnings.push(m) },
  });
  await runtime.ready;
  const started = performance.now();
  const turns = Array.from({ length: TURNS }, (_, t) => {
    const channel = String(1_900_000_000_000_000_000n + BigInt(t % CHANNELS));
    const person = emulator.state.inbound({ space: channel, text: `turn ${t}` });
    return { t, channel, space: `discord:${channel}`, root: person.messageId, endedAt: 0 };
  });
  const send = (space: string, event: Record<string, unknown>) => {
    const result = runtime.ingest({ space, ...event });
    if (!result.ok) throw new Error(result.error);
  };
  for (const turn of turns) {
    send(turn.space, { type: 'turn_started', turnId: `T${turn.t}`, root: { messageId: turn.root } });
  }
  for (let k = 0; k < TOOLS; k += 1) {
    for (const turn of turns) {
      send(turn.space, {
        type: 'tool_call',
        turnId: `T${turn.t}`,
        callId: `c${k}`,
        tool: 'Read',
        input: { path: `src/step-${k}.ts` },
      });
    }
    await sleep(1000);
  }
  await sleep(QUIET_MS);
  for (const turn of turns) {
    send(turn.space, { type: 'answer', turnId: `T${turn.t}`, text: `answer ${turn.t}` });
    send(turn.space, { type: 'turn_ended', turnId: `T${turn.t}`, outcome: 'ok' });
    turn.endedAt = Date.now();
  }
  const last = `step-${TOOLS - 1}.ts`;
  const landed = () =>
    turns.filter((turn) => {
      const all = emulator.state.messages(turn.channel);
      const log = all.find((m) => m.thread === turn.root);
      const shown = `${log?.text ?? ''}\n${log?.card?.text ?? ''}`;
      return shown.includes(last) && all.some((m) => m.thread === null && m.text === `answer ${turn.t}`);
    });
  const drainStart = Date.now();
  while (landed().length < TURNS && Date.now() - drainStart < DRAIN_LIMIT_MS) await sleep(250);
  const wallS = (performance.now() - started) / 1000;
  const done = landed();
  const lags = done
    .map((turn) => {
      const log = emulator.state.messages(turn.channel).find((m) => m.thread === turn.root);
      return (log?.updatedAt ?? log?.createdAt ?? turn.endedAt) - turn.endedAt;
    })
    .sort((a, b) => a - b);
  const calls = emulator.state.calls().filter((c) => c.op !== 'inbound');
  await runtime.stop();
  await emulator.close();
  console.log(
    `${TURNS} turns in ${CHANNELS} channels through createRuntime, ${TOOLS} tool calls 1 s apart, ${QUIET_MS / 1000} s quiet, an answer each; emulator with Discord's limits\n`,
  );
  console.log(
    '| calls | of which typing | 429s | terminal frames + answers landed | lag p50 | lag p95 | wall |',
  );
  console.log('|---|---|---|---|---|---|---|');
  const typing = calls.filter((c) => c.details?.typing === true).length;
  console.log(
    `| ${calls.length} | ${typing} | ${calls.filter((c) => c.status === 429).length} | ${done.length}/${TURNS} | ${percentile(lags, 0.5)} ms | ${percentile(lags, 0.95)} ms | ${wallS.toFixed(1)} s |`,
  );
  if (warnings.length > 0) console.log(`\n${warnings.length} runtime warnings, first: ${warnings[0]}`);
}
