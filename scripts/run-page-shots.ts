/**
 * Screenshots of the run page for the README (issue 25): a live turn and the
 * finished one, at desktop and phone width, through `turnlog serve` and the
 * Google Chat emulator, in Chromium (TURNLOG_CHROMIUM, default
 * /usr/bin/chromium). Writes docs/images/run-page-{live,finished}-{desktop,phone}.png.
 *
 *   npx tsx scripts/run-page-shots.ts
 */
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { chromium } from 'playwright-core';
import { startGchatEmulator } from '../src/emulators/gchat/index.js';
import { startServe } from '../src/serve/index.js';

const CHANNEL = 'spaces/SHOTS';
const SPACE = `gchat:${CHANNEL}`;
const OUT = 'docs/images';
const SIZES = { desktop: { width: 1100, height: 900 }, phone: { width: 390, height: 844 } };

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const emulator = await startGchatEmulator();
const port = await freePort();
const serve = await startServe({
  config: {
    ingest: { port },
    log: { level: 'silent' },
    platforms: { gchat: { apiUrl: emulator.url } },
    runs: { publicUrl: `http://127.0.0.1:${port}` },
  },
});
const browser = await chromium.launch({
  executablePath: process.env.TURNLOG_CHROMIUM || '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu'],
});
try {
  const at = Date.now();
  const ev = (i: number, rest: Record<string, unknown>) => ({
    space: SPACE,
    turnId: 'demo-1',
    at: at + i * 1300,
    ...rest,
  });
  const post = async (...events: Record<string, unknown>[]) => {
    const response = await fetch(`${serve.url}/v1/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-ndjson' },
      body: events.map((e) => JSON.stringify(e)).join('\n'),
    });
    if (response.status !== 202) throw new Error(`ingest answered ${response.status}`);
  };
  const person = emulator.state.inbound({
    space: CHANNEL,
    text: 'Why does CI fail on main?',
    user: 'users/ada',
  });
  await post(
    ev(0, {
      type: 'turn_started',
      root: { messageId: person.messageId },
      title: 'Fix CI',
      user: { name: 'Ada Lovelace' },
    }),
    ev(1, { type: 'input', text: 'Why does CI fail on main? Please fix it.' }),
    ev(2, {
      type: 'tool_call',
      callId: 'c1',
      tool: 'Bash',
      input: { command: 'npm test -- --reporter=dot' },
    }),
    ev(5, {
      type: 'tool_result',
      callId: 'c1',
      tool: 'Bash',
      ok: false,
      exitCode: 1,
      output:
        'FAIL test/date.test.ts\n  expected "2026-12-02" to be "2026-12-01"\n\nTests: 1 failed, 311 passed',
    }),
    ev(6, { type: 'subagent', subagentId: 'S1', status: 'started', name: 'code reader' }),
    ev(7, {
      type: 'tool_call',
      callId: 'c2',
      tool: 'Read',
      subagentId: 'S1',
      input: { path: 'src/date.ts' },
    }),
    ev(8, {
      type: 'tool_result',
      callId: 'c2',
      tool: 'Read',
      subagentId: 'S1',
      ok: true,
      output: 'export const today = () => new Date().toISOString().slice(0, 10);',
    }),
    ev(9, { type: 'subagent', subagentId: 'S1', status: 'done', name: 'code reader' }),
  );
  // The log's first post waits for its debounce: the link shows up within a few seconds.
  let link: string | undefined;
  for (let tries = 0; link === undefined && tries < 100; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const texts = emulator.state.messages(CHANNEL).map((m) => m.text);
    link = /<(http:\/\/[^|>]+)\|Full log>/.exec(texts.join('\n'))?.[1];
  }
  if (link === undefined) throw new Error('no "Full log" link in the emulator');
  mkdirSync(OUT, { recursive: true });
  const shoot = async (state: string) => {
    for (const [size, viewport] of Object.entries(SIZES)) {
      const page = await browser.newPage({ viewport });
      await page.goto(link);
      await page
        .locator('li.kind-tool_result details')
        .first()
        .evaluate((d) => d.setAttribute('open', ''));
      await page.screenshot({ path: `${OUT}/run-page-${state}-${size}.png`, fullPage: true });
      await page.close();
    }
  };
  await shoot('live');
  await post(
    ev(10, { type: 'policy_request', requestId: 'p1', command: 'git', args: ['push', 'origin', 'fix-ci'] }),
    ev(11, { type: 'policy_decision', requestId: 'p1', decision: 'approved', decidedBy: 'Ada Lovelace' }),
    ev(12, {
      type: 'answer',
      text: 'CI failed because `today()` used **UTC**; the test ran past midnight.\n\n- made `today()` take the time zone\n- pushed `fix-ci`',
    }),
    ev(13, { type: 'turn_ended', outcome: 'ok' }),
  );
  await new Promise((resolve) => setTimeout(resolve, 500));
  await shoot('finished');
  process.stdout.write(`wrote ${OUT}/run-page-{live,finished}-{desktop,phone}.png\n`);
} finally {
  await browser.close();
  await serve.close();
  await emulator.close();
}
