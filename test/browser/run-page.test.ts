/**
 * Issue 25.5 ("Tested in a real browser"): Chromium (playwright-core) opens
 * the run page from the "Full log" link found in the Google Chat emulator's
 * message, through `turnlog serve` in process. It shows the events, grows
 * live without a reload, an output expands, the hostile payloads are inert
 * (no dialog, no new element, no request to another origin), a wrong token
 * is a 404, and a reconnect with Last-Event-ID resumes at the right seq.
 */
import { createServer } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import type { EmulatorServer } from '../../src/emulators/core/index.js';
import { startGchatEmulator } from '../../src/emulators/gchat/index.js';
import { type Serve, startServe } from '../../src/serve/index.js';
import { emulatorCall } from '../emulators/inspection.js';
import { ndjson, postEvents } from '../serve/serve.helpers.js';
import { launchChromium } from './chromium.js';

const CHANNEL = 'spaces/BROWSER';
const SPACE = `gchat:${CHANNEL}`;
const HOSTILE =
  '</script><script>alert(1)</script>"><img src=x onerror=alert(2)><img src="https://evil.example/x.png">';

let browser: Browser;
let emulator: EmulatorServer | undefined;
let serve: Serve | undefined;
beforeAll(async () => {
  browser = await launchChromium();
}, 120_000);
afterAll(async () => browser?.close());
afterEach(async () => {
  await serve?.close();
  serve = undefined;
  await emulator?.close();
  emulator = undefined;
});

/** A free loopback port, so runs.publicUrl can name serve's own origin before it starts. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const ev = (rest: Record<string, unknown>) => ({ space: SPACE, turnId: 'B1', ...rest });
const post = async (...events: Record<string, unknown>[]) =>
  expect((await postEvents((serve as Serve).url, ndjson(...events))).status).toBe(202);

async function turnWithLink(): Promise<string> {
  emulator = await startGchatEmulator();
  const port = await freePort();
  serve = await startServe({
    config: {
      ingest: { port },
      log: { level: 'silent' },
      platforms: { gchat: { apiUrl: emulator.url } },
      runs: { publicUrl: `http://127.0.0.1:${port}` },
    },
  });
  const person = await emulatorCall<{ messageId: string }>(emulator.url, 'inbound', {
    space: CHANNEL,
    text: 'check the build',
  });
  await post(
    ev({
      type: 'turn_started',
      root: { messageId: person.messageId },
      title: 'Build',
      user: { name: 'Ada' },
    }),
    ev({ type: 'input', text: 'please run the tests' }),
    ev({ type: 'tool_call', callId: 'c1', tool: 'Bash', input: { command: 'npm test' } }),
  );
  let link: string | undefined;
  const started = Date.now();
  // The link as a person sees it in the chat: the log message's text.
  while (link === undefined) {
    const messages = emulator.state.messages(CHANNEL);
    link = messages.flatMap((m) => /<(http:\/\/[^|>]+)\|Full log>/.exec(m.text)?.[1] ?? [])[0];
    if (link === undefined) {
      if (Date.now() - started > 10_000) throw new Error('no "Full log" link in the emulator within 10 s');
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
  return link;
}

/** Everything the page did that could matter: dialogs, requests, console errors. */
function watch(page: Page) {
  const seen = { dialogs: [] as string[], requests: [] as string[] };
  page.on('dialog', (dialog) => {
    seen.dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  page.on('request', (request) => seen.requests.push(request.url()));
  return seen;
}

it('opens from the chat link, shows the events, grows live, expands an output', async () => {
  const link = await turnWithLink();
  const page = await browser.newPage();
  const seen = watch(page);
  const response = await page.goto(link);
  expect(response?.status()).toBe(200);
  await expect(page.locator('#started-by').textContent()).resolves.toBe('Ada');
  await expect(page.locator('li.item').count()).resolves.toBeGreaterThanOrEqual(3);
  await expect(page.locator('#events').textContent()).resolves.toContain('please run the tests');

  // Live: new events appear without a reload.
  await post(
    ev({
      type: 'tool_result',
      callId: 'c1',
      tool: 'Bash',
      ok: true,
      exitCode: 0,
      output: 'all 42 tests passed',
    }),
  );
  const output = page.locator('li.kind-tool_result details.output');
  await output.waitFor({ timeout: 10_000 });
  await expect(output.evaluate((d) => (d as unknown as { open: boolean }).open)).resolves.toBe(false);
  await output.locator('summary').click();
  await expect(output.evaluate((d) => (d as unknown as { open: boolean }).open)).resolves.toBe(true);
  await expect(output.locator('pre').isVisible()).resolves.toBe(true);
  await expect(output.locator('pre').textContent()).resolves.toBe('all 42 tests passed');

  await post(ev({ type: 'answer', text: 'All **green**.' }), ev({ type: 'turn_ended', outcome: 'ok' }));
  await page.locator('#state[data-ended="true"]').waitFor({ timeout: 10_000 });
  await expect(page.locator('.kind-answer strong').textContent()).resolves.toBe('green');
  await expect(page.locator('#status').textContent()).resolves.toBe('This turn has finished.');
  const origin = new URL(link).origin;
  expect(seen.requests.every((url) => url.startsWith(`${origin}/`))).toBe(true);
  expect(seen.dialogs).toEqual([]);
  // A reload of the finished page shows the same record, the answer as Markdown.
  await page.reload();
  await expect(page.locator('.kind-answer strong').textContent()).resolves.toBe('green');
});

it('keeps hostile payloads inert, live and after a reload', async () => {
  const link = await turnWithLink();
  const page = await browser.newPage();
  const seen = watch(page);
  await page.goto(link);
  const elements = () => page.locator('*').count();
  const hostile = [
    ev({
      type: 'tool_result',
      callId: 'c1',
      tool: 'Bash',
      ok: false,
      exitCode: 1,
      output: `${HOSTILE}\n${'y'.repeat(1_000_000)}`,
    }),
    ev({ type: 'note', text: `bidi \u202Egnp.exe\u202C ${HOSTILE}` }),
    ev({
      type: 'answer',
      text: `[click](javascript:alert(3)) <javascript:alert(4)> ${HOSTILE}\n\n\`\`\`\n${HOSTILE}\n\`\`\``,
    }),
    ev({ type: 'turn_ended', outcome: 'error' }),
  ];
  await post(...hostile);
  await page.locator('#state[data-ended="true"]').waitFor({ timeout: 10_000 });
  for (const phase of ['live', 'reloaded']) {
    expect(await page.locator('img, iframe, object, embed').count(), phase).toBe(0);
    expect(await page.locator('script').count(), phase).toBe(2);
    expect(await page.locator('a[href^="javascript:" i]').count(), phase).toBe(0);
    // No bidi control reaches the page to reorder what it shows (the run record drops them, the page shows any as <U+…>).
    await expect(page.locator('.kind-note .text').textContent()).resolves.toMatch(
      /^bidi (<U\+202E>)?gnp\.exe/,
    );
    expect(await page.locator('body').textContent()).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);
    await expect(page.locator('.kind-tool_result pre').textContent()).resolves.toHaveLength(8000);
    await expect(page.locator('.kind-answer pre').textContent()).resolves.toBe(HOSTILE);
    if (phase === 'live') {
      const live = await elements();
      await page.reload();
      // The reloaded page builds the same elements the live one added.
      expect(await elements()).toBe(live);
    }
  }
  const origin = new URL(link).origin;
  expect(seen.requests.filter((url) => !url.startsWith(`${origin}/`))).toEqual([]);
  expect(seen.dialogs).toEqual([]);
});

it('a wrong token is a 404, and a reconnect with Last-Event-ID resumes at the right seq', async () => {
  const link = await turnWithLink();
  const page = await browser.newPage();
  const wrong = new URL(link);
  wrong.searchParams.set('t', `${(wrong.searchParams.get('t') as string).slice(0, -2)}AA`);
  const refused = await page.goto(wrong.href);
  expect(refused?.status()).toBe(404);
  await expect(page.locator('body').textContent()).resolves.toBe('not found\n');

  await page.goto(link);
  await post(
    ev({ type: 'note', text: 'four' }),
    ev({ type: 'note', text: 'five' }),
    ev({ type: 'turn_ended', outcome: 'ok' }),
  );
  await page.locator('#state[data-ended="true"]').waitFor({ timeout: 10_000 });
  const seqs = await page
    .locator('li.item')
    .evaluateAll((items) => items.map((li) => Number(li.getAttribute('data-seq'))));
  // From the page, as its EventSource would reconnect: after the third event, the rest once each, then the end.
  const { pathname, search } = new URL(link);
  const resumed = await page.evaluate(
    async ({ url, lastId }) => {
      const response = await fetch(url, { headers: { 'Last-Event-ID': String(lastId) } });
      return response.text();
    },
    { url: `${pathname}/events${search}`, lastId: seqs[2] },
  );
  const ids = [...resumed.matchAll(/^id: (\d+)$/gm)].map((match) => Number(match[1]));
  expect(ids).toEqual(seqs.slice(3));
  expect(resumed.trimEnd().split('\n\n').at(-1)).toMatch(/^event: end$/m);
});
