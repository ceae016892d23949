/**
 * The Discord surface under load against the Discord emulator with Discord's
 * limits (5 creates and 5 edits per 5 s per channel — a thread is a channel
 * of its own — and 50 requests/s in all): 100 concurrent turns in 10
 * channels, each threading its log on a person's message and editing it 5
 * times (the last edit the terminal frame). A caller that waits as long as a
 * rate-limited error says and tries again stands in for the budget.
 *
 * Side by side in one run: the surface pacing the global limit from its own
 * count (the default), and the same surface told the global limit is
 * unbounded (per-route buckets still read from the headers). Reported: the
 * emulator's 429s, terminal frames landed, edit lag p95, wall time.
 */
import { startDiscordEmulator } from '../src/emulators/discord/index.js';
import { createDiscordSurface } from '../src/platforms/discord/index.js';
import type { SurfaceFrame } from '../src/surfaces/frame.js';
import { isSurfaceError, type PostRequest } from '../src/surfaces/surface.js';

const TURNS = 100;
const CHANNELS = 10;
const EDITS = 5;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function paced<T>(call: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      return await call();
    } catch (error) {
      if (!(isSurfaceError(error) && error.kind === 'rate-limited')) throw error;
      await sleep(error.retryAfterMs ?? 100);
    }
  }
}

const frame = (turn: number, edits: number): SurfaceFrame => ({
  kind: 'log',
  headline: { state: edits === EDITS ? 'done' : 'running', title: `turn ${turn}`, elapsedMs: edits * 1000 },
  lines: Array.from({ length: edits + 1 }, (_, k) => ({
    kind: 'tool' as const,
    status: 'ok' as const,
    depth: 0,
    time: '12:00:00',
    text: `step ${k}`,
  })),
});

async function load(globalPerSecond: number | undefined) {
  const emulator = await startDiscordEmulator();
  const surface = createDiscordSurface({
    token: 'bench',
    apiUrl: emulator.url,
    ...(globalPerSecond === undefined ? {} : { globalPerSecond }),
  });
  const lags: number[] = [];
  const started = performance.now();
  await Promise.all(
    Array.from({ length: TURNS }, async (_, turn) => {
      const channel = String(1_900_000_000_000_000_000n + BigInt(turn % CHANNELS));
      const person = emulator.state.inbound({ space: channel, text: `turn ${turn}` });
      const space = `discord:${channel}`;
      // Built loosely: the port's requests are gaining `frame` and losing `text`.
      const post = {
        space,
        text: '',
        frame: frame(turn, 0),
        thread: { rootMessageId: person.messageId },
        clientId: `t${turn}:0`,
      };
      const posted = await paced(() => surface.post(post as PostRequest));
      for (let edits = 1; edits <= EDITS; edits += 1) {
        const asked = performance.now();
        const edit = {
          space,
          messageId: posted.messageId,
          threadId: posted.threadId,
          text: '',
          frame: frame(turn, edits),
        };
        await paced(() => surface.edit(edit as Parameters<typeof surface.edit>[0]));
        lags.push(performance.now() - asked);
      }
    }),
  );
  const wallS = (performance.now() - started) / 1000;
  const calls = emulator.state.calls();
  await emulator.close();
  lags.sort((a, b) => a - b);
  return {
    calls: calls.length,
    rateLimited: calls.filter((call) => call.status === 429).length,
    terminal: calls.filter(
      (call) => call.op === 'update' && call.status === 200 && String(call.text).includes('Done'),
    ).length,
    lagP95Ms: Math.round(lags[Math.floor(lags.length * 0.95)] ?? 0),
    wallS,
  };
}

export default async function run(): Promise<void> {
  console.log(
    `${TURNS} turns in ${CHANNELS} channels, 1 post + ${EDITS} edits each, emulator with Discord's limits\n`,
  );
  console.log('| global pacing | calls | 429s | terminal frames | edit lag p95 | wall |');
  console.log('|---|---|---|---|---|---|');
  for (const [name, globalPerSecond] of [
    ['from the surface (50/s)', undefined],
    ['none (per-route headers only)', 1_000_000],
  ] as const) {
    const r = await load(globalPerSecond);
    console.log(
      `| ${name} | ${r.calls} | ${r.rateLimited} | ${r.terminal}/${TURNS} | ${r.lagP95Ms} ms | ${r.wallS.toFixed(1)} s |`,
    );
  }
}
