/**
 * Issue 25.1/25.2 (docs/http-api.md, the run page, §2 runUrl): the run page of `turnlog serve`
 * in process. A capability token per turn (only its sha256 kept), the page
 * and its event stream (`id:` = seq, Last-Event-ID resumes, an ended turn's
 * stream closes), one plain 404 for every wrong case, no token in the logs,
 * a strict CSP, and no route at all without `runs.publicUrl`.
 */
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RUN_PAGE_CSP } from '../../../src/serve/run-page/index.js';
import {
  closeTestServe,
  getJson,
  ndjson,
  postEvents,
  SPACE,
  startTestServe,
  type TestServe,
  turnEvents,
} from '../serve.helpers.js';

const PUBLIC = 'https://runs.example.test';
let serve: TestServe | undefined;
afterEach(async () => {
  if (serve) await closeTestServe(serve);
  serve = undefined;
});

async function startedTurn(turnId: string, runs: Record<string, unknown> | null = { publicUrl: PUBLIC }) {
  serve = await startTestServe(runs ? { config: { runs } } : {});
  const { status } = await postEvents(serve.url, ndjson(...turnEvents(serve.surface, turnId)));
  expect(status).toBe(202);
  return serve;
}

async function runUrlOf(s: TestServe, turnId: string): Promise<URL> {
  const { json } = await getJson(s.url, `/v1/turns/${turnId}`);
  expect(json.runUrl).toEqual(
    expect.stringMatching(new RegExp(`^${PUBLIC}/runs/${turnId}\\?t=[A-Za-z0-9_-]{43}$`)),
  );
  return new URL(json.runUrl as string);
}

/** The same link on this serve's own origin. */
const local = (s: TestServe, link: URL, suffix = '') => `${s.url}${link.pathname}${suffix}${link.search}`;

/** Reads an SSE body until it ends or `until` holds; answers its frames. */
async function readStream(
  response: Response,
  until: (frames: string[]) => boolean = () => false,
): Promise<string[]> {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = '';
  for (;;) {
    const frames = text.split('\n\n').filter((frame) => frame.trim() !== '');
    if (until(frames)) {
      await reader.cancel();
      return frames;
    }
    const { done, value } = await reader.read();
    if (done) return text.split('\n\n').filter((frame) => frame.trim() !== '');
    text += decoder.decode(value, { stream: true });
  }
}
const ids = (frames: string[]) =>
  frames.flatMap((frame) => /^id: (\d+)$/m.exec(frame)?.[1] ?? []).map(Number);

describe('run page tokens and routes', () => {
  it('without runs.publicUrl there is no run page route and no runUrl', async () => {
    const s = await startedTurn('T1', null);
    const { json } = await getJson(s.url, '/v1/turns/T1');
    expect(json.runUrl).toBeUndefined();
    const response = await fetch(`${s.url}/runs/T1?t=anything`);
    expect(response.status).toBe(404);
    expect(response.headers.get('content-security-policy')).toBeNull();
  });

  it('gives each turn a 256-bit token, keeps only its sha256, and the link opens the page with a strict CSP', async () => {
    const s = await startedTurn('T1');
    const link = await runUrlOf(s, 'T1');
    const token = link.searchParams.get('t') as string;
    expect(Buffer.from(token, 'base64url')).toHaveLength(32);
    // The same link every time within this process.
    expect((await runUrlOf(s, 'T1')).href).toBe(link.href);
    const hashes = await s.store.runTokenHashes?.('T1');
    expect(hashes).toEqual([createHash('sha256').update(token).digest('hex')]);
    expect(JSON.stringify(hashes)).not.toContain(token);

    const page = await fetch(local(s, link));
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toBe(RUN_PAGE_CSP);
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    const html = await page.text();
    expect(html).toContain('Bash');
    expect(html).toContain('npm test');
    expect(html).toContain('<meta name="viewport"');
    expect(html).not.toMatch(/<script>/);
    // Tokens never appear in the logs, request lines included.
    expect(s.logText()).toContain('"path":"/runs/T1"');
    expect(s.logText()).not.toContain(token);
  });

  it('a wrong token, a missing token, another turn’s token and an unknown turn are the same plain 404', async () => {
    const s = await startedTurn('T1');
    await postEvents(s.url, ndjson(...turnEvents(s.surface, 'T2')));
    const one = await runUrlOf(s, 'T1');
    const two = await runUrlOf(s, 'T2');
    const token1 = one.searchParams.get('t') as string;
    const wrong = [
      `${s.url}/runs/T1?t=${token1.slice(0, -1)}A`,
      `${s.url}/runs/T1`,
      `${s.url}/runs/T1?t=`,
      `${s.url}/runs/T2?t=${token1}`,
      `${s.url}/runs/NOPE?t=${token1}`,
      `${s.url}/runs/T1/events?t=${two.searchParams.get('t')}`,
      `${s.url}/runs/%E0%A4%A?t=${token1}`,
    ];
    const answers = await Promise.all(
      wrong.map(async (url) => {
        const response = await fetch(url);
        return {
          status: response.status,
          type: response.headers.get('content-type'),
          body: await response.text(),
        };
      }),
    );
    for (const answer of answers)
      expect(answer).toEqual({ status: 404, type: 'text/plain; charset=utf-8', body: 'not found\n' });
  });

  it('serves the page’s script and style from its own origin', async () => {
    const s = await startedTurn('T1');
    const js = await fetch(`${s.url}/runs/assets/run-page.js`);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    const source = await js.text();
    expect(source).toContain('EventSource');
    expect(source).not.toContain('innerHTML');
    const css = await fetch(`${s.url}/runs/assets/run-page.css`);
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
  });
});

describe('run page event stream', () => {
  it('sends every event with id = seq, resumes after Last-Event-ID with nothing lost or repeated', async () => {
    const s = await startedTurn('T1');
    const link = await runUrlOf(s, 'T1');
    const events = s.store.events('T1') as { seq?: number }[];
    const seqs = events.map((event) => event.seq);
    const first = await fetch(local(s, link, '/events'));
    expect(first.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const frames = await readStream(first, (f) => ids(f).length >= seqs.length);
    expect(ids(frames)).toEqual(seqs);

    // Two more events while nobody listens; a reconnect from the second seq gets the rest once.
    await postEvents(
      s.url,
      ndjson(
        {
          type: 'tool_result',
          space: SPACE,
          turnId: 'T1',
          callId: 'c1',
          tool: 'Bash',
          ok: true,
          output: 'passed',
        },
        { type: 'note', space: SPACE, turnId: 'T1', text: 'halfway' },
      ),
    );
    const all = (s.store.events('T1') as { seq?: number }[]).map((event) => event.seq as number);
    const resumed = await fetch(local(s, link, '/events'), {
      headers: { 'last-event-id': String(all[1]) },
    });
    const rest = await readStream(resumed, (f) => ids(f).length >= all.length - 2);
    expect(ids(rest)).toEqual(all.slice(2));
  });

  it('a live stream grows as events arrive (polled on the clock) and closes once the turn has ended', async () => {
    const s = await startedTurn('T1');
    const link = await runUrlOf(s, 'T1');
    const before = (s.store.events('T1') as { seq?: number }[]).length;
    const response = await fetch(local(s, link, '/events'));
    const reading = readStream(response);
    await postEvents(
      s.url,
      ndjson(
        { type: 'answer', space: SPACE, turnId: 'T1', text: 'All **green**.' },
        { type: 'turn_ended', space: SPACE, turnId: 'T1', outcome: 'ok' },
      ),
    );
    await vi.waitFor(
      async () => {
        s.clock.increment(1000);
        const ended = await s.runtime.finishedTurn('T1');
        expect(ended).toBeDefined();
      },
      { timeout: 10_000, interval: 20 },
    );
    // Polls until the stream ends on its own.
    const ticking = setInterval(() => s.clock.increment(1000), 10);
    const frames = await reading.finally(() => clearInterval(ticking));
    const all = (s.store.events('T1') as { seq?: number }[]).map((event) => event.seq as number);
    expect(all.length).toBeGreaterThan(before);
    expect(ids(frames)).toEqual(all);
    const end = frames.at(-1) as string;
    expect(end).toMatch(/^event: end$/m);
    expect(JSON.parse(end.split('data: ')[1] as string)).toMatchObject({ ended: true, outcome: 'ok' });
    expect(frames.join('\n')).toContain('"t":"strong"');
  });
});
