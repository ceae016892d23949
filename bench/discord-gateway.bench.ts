/**
 * The Discord gateway intake against the emulator's gateway, through
 * discord.js and a real runtime: how much of Discord's 3 s interaction
 * deadline a button press uses, and how fast a person's message reaches the
 * runtime.
 *
 * - press: `POST /_emulator/click` → INTERACTION_CREATE → the intake →
 *   `runtime.receive` → the interaction callback → the click's answer;
 * - message: `POST /_emulator/inbound` → MESSAGE_CREATE → the intake →
 *   `runtime.receive` (until the runtime has it).
 *
 * Side by side in one run: presses one at a time, and 20 at once (a burst
 * of people pressing). Reported: p50/p95 of each, and p95 as a share of the
 * 3 s deadline.
 */
import type { IntakeEvent, IntakeSink } from '../src/actions/types.js';
import { startDiscordEmulator } from '../src/emulators/discord/index.js';
import { builtinPlatforms } from '../src/platforms/all.js';
import { createDiscordIntake, createDiscordSurface } from '../src/platforms/discord/index.js';
import { createRuntime } from '../src/runtime.js';

const TOKEN = 'bench-gateway';
const CHANNEL = '1900000000000000501';
const PRESSES = 200;
const BURST = 20;
const MESSAGES = 200;
const DEADLINE_MS = 3000;

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
};

export default async function run(): Promise<void> {
  const emulator = await startDiscordEmulator({ gateway: { tokens: [TOKEN] }, limits: [] });
  const surface = createDiscordSurface({ token: TOKEN, apiUrl: emulator.url });
  const runtime = createRuntime({
    platforms: builtinPlatforms,
    config: {},
    surfaces: { discord: surface },
    logger: { warn: () => {}, error: () => {} },
    inspect: () => {},
  });
  await runtime.ready;
  let messagesIn = 0;
  let onMessage: (() => void) | null = null;
  const sink: IntakeSink = {
    async receive(event: IntakeEvent) {
      const result = await runtime.receive(event);
      if (event.kind === 'message') {
        messagesIn += 1;
        onMessage?.();
      }
      return result;
    },
  };
  const intake = createDiscordIntake({
    token: TOKEN,
    apiUrl: emulator.url,
    sink,
    logger: { info: () => {}, warn: () => {} },
  });
  await intake.start();
  const post = (path: string, body: unknown) =>
    fetch(`${emulator.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bot ${TOKEN}` },
      body: JSON.stringify(body),
    }).then((res) => res.json() as Promise<Record<string, unknown>>);

  const card = (await post(`/api/v10/channels/${CHANNEL}/messages`, {
    content: 'Approve?',
    components: [{ type: 1, components: [{ type: 2, style: 1, label: 'Approve', custom_id: 'approve' }] }],
  })) as { id: string };
  const press = async () => {
    const started = performance.now();
    const answer = await post('/_emulator/click', { messageId: card.id, action: 'approve' });
    if (answer.delivered !== true) throw new Error(`a press was not answered: ${JSON.stringify(answer)}`);
    return performance.now() - started;
  };

  const serial: number[] = [];
  for (let i = 0; i < PRESSES; i += 1) serial.push(await press());
  const burst: number[] = [];
  for (let i = 0; i < PRESSES / BURST; i += 1)
    burst.push(...(await Promise.all(Array.from({ length: BURST }, press))));

  const messages: number[] = [];
  for (let i = 0; i < MESSAGES; i += 1) {
    const started = performance.now();
    const reached = new Promise<void>((resolve) => {
      onMessage = () => {
        if (messagesIn > i) resolve();
      };
    });
    await post('/_emulator/inbound', { space: CHANNEL, text: `message ${i}` });
    await reached;
    messages.push(performance.now() - started);
  }

  await intake.stop();
  await runtime.stop();
  await emulator.close();

  const row = (name: string, values: number[]) => {
    const p95 = percentile(values, 95);
    return `| ${name} | ${values.length} | ${percentile(values, 50).toFixed(1)} | ${p95.toFixed(1)} | ${((100 * p95) / DEADLINE_MS).toFixed(2)} % |`;
  };
  console.log('| path | n | p50 ms | p95 ms | p95 / 3 s deadline |');
  console.log('|---|---|---|---|---|');
  console.log(row('press, one at a time', serial));
  console.log(row(`press, ${BURST} at once`, burst));
  console.log(row('message → runtime', messages));
}
