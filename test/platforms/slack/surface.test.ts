// spec: issue 11 items 1, 2 and 5, issue 10 item 3 (the surface contract cases) — the Slack surface through
// @slack/web-api against the Slack emulator: every failure lands in the port's taxonomy with Slack's code
// (message_not_found → not-found; 429 → rate-limited with retryAfterMs and no hidden retry; 5xx / no answer →
// transient; invalid_auth, access_denied, not_in_channel, is_archived → forbidden; a 400 → invalid), a threaded
// post under the person's message, an edit of a deleted message, an aborted call, frames as Block Kit, the
// text-only fallback when Slack refuses the blocks, and user text that never pings. Issue 11 item 2 · an answer
// Slack's 40,000 would cut once escaped arrives whole.
import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createSlackSurface } from '../../../src/platforms/slack/surface.js';
import { postOnce } from '../../../src/runtime/posting.js';
import { createMemoryStore } from '../../../src/store/memory.js';
import type { FrameLine, SurfaceFrame } from '../../../src/surfaces/frame.js';
import { isSurfaceError, type SurfaceError } from '../../../src/surfaces/surface.js';
import {
  CHANNEL,
  editReq,
  postReq,
  prose,
  rejectionOf,
  type SlackHarness,
  SPACE,
  startSlackHarness,
  TOKEN,
} from './harness.js';

let h: SlackHarness | undefined;

afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function harness(opts: Parameters<typeof startSlackHarness>[0] = {}): Promise<SlackHarness> {
  h = await startSlackHarness(opts);
  return h;
}

async function surfaceErrorOf(promise: Promise<unknown>): Promise<SurfaceError> {
  const error = await rejectionOf(promise);
  if (!isSurfaceError(error)) throw new Error(`expected a SurfaceError, got ${String(error)}`);
  return error;
}

const line = (text: string, extra: Partial<FrameLine> = {}): FrameLine => ({
  kind: 'tool',
  depth: 0,
  time: '12:00:01',
  text,
  ...extra,
});

const liveFrame = (lines: FrameLine[]): SurfaceFrame => ({
  kind: 'log',
  headline: { state: 'running', title: 'Fix the build', elapsedMs: 5000 },
  lines,
});

const HOSTILE =
  '<!channel> <!here|here> <!everyone> <@U0123ABCD> <!subteam^S0TEAM> @here <https://evil.example|x> xoxb-1234-abcd';

/** A local port nothing listens on: a call there gets no answer at all. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('Slack surface: posting and editing', () => {
  it('posts a threaded reply under the person’s message (thread_ts) and returns the thread', async () => {
    const { surface, emulator, personPosts } = await harness();
    const asked = await personPosts('fix the build please');
    const posted = await surface.post(
      postReq({ space: SPACE, frame: prose('log'), thread: { rootMessageId: asked.messageId } }),
    );

    expect(posted.threadId).toBe(asked.threadId);
    expect(emulator.state.messages(CHANNEL)).toEqual([
      expect.objectContaining({ id: asked.messageId, thread: null }),
      expect.objectContaining({ id: posted.messageId, thread: asked.messageId, text: 'log' }),
    ]);
    expect(h!.calls().map((call) => [call.path, call.details?.thread_ts])).toEqual([
      ['/api/chat.postMessage', asked.messageId],
    ]);
  });

  it('a top-level post roots its own thread (later posts reply under its ts)', async () => {
    const { surface, emulator } = await harness();
    const header = await surface.post(postReq({ space: SPACE, frame: prose('Nightly audit') }));
    expect(header.threadId).toBe(header.messageId);
    await surface.post(
      postReq({ space: SPACE, frame: prose('log'), thread: { threadId: header.threadId! } }),
    );
    expect(emulator.state.messages(CHANNEL).map((m) => m.thread)).toEqual([null, header.messageId]);
  });

  it('renders a frame as Block Kit and edits the card in place, the spinner moving on each live frame', async () => {
    const { surface, emulator, personPosts } = await harness();
    const asked = await personPosts('go');
    const posted = await surface.post(
      postReq({
        space: SPACE,
        thread: { rootMessageId: asked.messageId },
        frame: liveFrame([]),
      }),
    );
    await surface.edit(
      editReq({
        space: SPACE,
        messageId: posted.messageId,
        frame: liveFrame([line('Read a.ts')]),
      }),
    );
    await surface.edit(
      editReq({
        space: SPACE,
        messageId: posted.messageId,
        frame: liveFrame([line('Read a.ts')]),
      }),
    );
    await surface.edit(
      editReq({
        space: SPACE,
        messageId: posted.messageId,
        frame: {
          kind: 'log',
          headline: { state: 'done', title: 'Fix the build', elapsedMs: 64_000 },
          lines: [line('Read a.ts', { status: 'ok' })],
        },
      }),
    );

    const texts = emulator.state
      .calls()
      .filter((call) => call.messageId === posted.messageId || call.path === '/api/chat.postMessage')
      .map((call) => call.text?.split('\n')[0]);
    expect(texts).toEqual([
      '👀 *Fix the build* · 5s',
      '⠙ *Fix the build* · 5s',
      '⠹ *Fix the build* · 5s',
      '✅ *Fix the build* · 1m 04s',
    ]);
    const [card] = emulator.state.messages(CHANNEL).filter((m) => m.id === posted.messageId);
    expect(card).toMatchObject({ edits: 3, text: '✅ *Fix the build* · 1m 04s\n12:00:01  ✓ Read a.ts' });
  });

  it('replaces a card with text when a frame has no blocks (chat.update drops the old blocks)', async () => {
    const { surface, emulator } = await harness();
    const posted = await surface.post(postReq({ space: SPACE, frame: liveFrame([line('a')]) }));
    await surface.edit(
      editReq({
        space: SPACE,
        messageId: posted.messageId,
        frame: { kind: 'prose', markdown: '**done**' },
      }),
    );
    expect(emulator.state.messages(CHANNEL)[0]).toMatchObject({ text: '*done*' });
  });

  it('posts a policy card with buttons a person can press', async () => {
    const { surface, emulator } = await harness();
    await surface.post(
      postReq({
        space: SPACE,
        frame: {
          kind: 'card',
          card: {
            kind: 'policy',
            id: 'req-1',
            title: 'Run a command?',
            body: 'rm -rf build',
            actions: [
              { id: 'approve', label: 'Approve', style: 'primary' },
              { id: 'reject', label: 'Reject', style: 'danger' },
            ],
          },
        },
      }),
    );
    const buttons = [
      { action: 'approve', label: 'Approve' },
      { action: 'reject', label: 'Reject' },
    ];
    expect(h!.calls().map((call) => call.details?.buttons)).toEqual([buttons]);
    expect(emulator.state.messages(CHANNEL).map((m) => m.text)).toEqual([
      '🔐 Run a command?\nrm -rf build\n[Approve] [Reject]',
    ]);
  });

  it('with logStyle plan, the log is a native plan block of task cards, edited in place', async () => {
    const { surface, emulator } = await harness({ surface: { logStyle: 'plan' } });
    const posted = await surface.post(
      postReq({ space: SPACE, frame: liveFrame([line('Read a.ts', { status: 'pending' })]) }),
    );
    await surface.edit(
      editReq({
        space: SPACE,
        messageId: posted.messageId,
        frame: liveFrame([line('Read a.ts', { status: 'ok' }), line('npm test', { status: 'failed' })]),
      }),
    );
    expect(h!.calls().map((call) => [call.path, call.status, call.details?.blocks])).toEqual([
      ['/api/chat.postMessage', 200, 2],
      ['/api/chat.update', 200, 2],
    ]);
    expect(emulator.state.messages(CHANNEL)[0]?.text).toBe(
      '⠙ *Fix the build* · 5s\nActivity\n✓ Read a.ts\n✗ npm test',
    );
  });

  it('threads in a DM too: the log replies under the person’s message', async () => {
    const { surface, emulator, personPosts } = await harness();
    const asked = await personPosts('hi', undefined, 'D0DIRECT01');
    const posted = await surface.post(
      postReq({ space: 'slack:D0DIRECT01', frame: prose('log'), thread: { rootMessageId: asked.messageId } }),
    );
    expect(posted.threadId).toBe(asked.threadId);
    expect(emulator.state.messages('D0DIRECT01').map((m) => m.thread)).toEqual([null, asked.messageId]);
  });

  it('a workspace refusing plan blocks gets the rich_text card instead, from then on', async () => {
    const { surface, emulator } = await harness({
      emulator: { unsupportedBlocks: ['plan'] },
      surface: { logStyle: 'plan' },
    });
    const frame = liveFrame([line('Read a.ts', { status: 'ok' }), line('npm test', { status: 'pending' })]);
    const posted = await surface.post(postReq({ space: SPACE, frame }));
    await surface.edit(editReq({ space: SPACE, messageId: posted.messageId, frame }));
    expect(h!.calls().map((call) => [call.path, call.details?.error ?? call.details?.blocks])).toEqual([
      ['/api/chat.postMessage', 'invalid_blocks'],
      ['/api/chat.postMessage', 2],
      ['/api/chat.update', 2],
    ]);
    expect(emulator.state.messages(CHANNEL)[0]?.text).toBe(
      '⠙ *Fix the build* · 5s\n12:00:01  ✓ Read a.ts\n12:00:01  → npm test\nnpm test',
    );
  });

  it('sends the frame once more as text only when Slack refuses its blocks (invalid_blocks)', async () => {
    const { surface, emulator } = await harness({ emulator: { unsupportedBlocks: ['rich_text'] } });
    const posted = await surface.post(
      postReq({
        space: SPACE,
        frame: liveFrame([line('Read a.ts', { status: 'ok' }), line('npm test', { status: 'pending' })]),
      }),
    );
    expect(
      h!.calls().map((call) => [call.path, call.status, call.details?.error ?? call.details?.blocks]),
    ).toEqual([
      ['/api/chat.postMessage', 200, 'invalid_blocks'],
      ['/api/chat.postMessage', 200, undefined],
    ]);
    expect(emulator.state.messages(CHANNEL)).toEqual([
      expect.objectContaining({
        id: posted.messageId,
        // The text-only form marks each line once, from its status.
        text: '⠋ *Fix the build* · 5s\n• 12:00:01  ✓ Read a.ts\n• 12:00:01  ⋯ npm test',
      }),
    ]);
  });

  it.each(['msg_too_long', 'msg_blocks_too_long'])(
    '%s: the card is sent smaller (the oldest lines dropped), then as text only',
    async (code) => {
      // Slack measures differently from the renderer: refuse the first `refusals` posts that carry blocks.
      let refusals = 1;
      const tooLong: typeof fetch = async (input, init) => {
        const body = typeof init?.body === 'string' ? init.body : String(init?.body ?? '');
        if (String(input).endsWith('/chat.postMessage') && body.includes('blocks') && refusals > 0) {
          refusals -= 1;
          return new Response(JSON.stringify({ ok: false, error: code }), {
            status: 200,
            headers: { 'content-type': 'application/json' },
          });
        }
        return fetch(input, init);
      };
      const { surface, emulator } = await harness({ surface: { fetch: tooLong } });
      const lines = Array.from({ length: 30 }, (_, i) =>
        line(`step ${i} ${'x'.repeat(990)}`, { status: 'ok' }),
      );
      const sent = await surface.post(postReq({ space: SPACE, frame: liveFrame(lines) }));
      const shown = emulator.state.messages(CHANNEL).find((m) => m.id === sent.messageId)?.text ?? '';
      expect(h!.calls().map((call) => call.details?.blocks)).toEqual([2]);
      expect(shown).toContain('earlier lines not shown');
      expect(shown).toContain('step 29');
      expect(shown.length).toBeLessThanOrEqual(20_000);

      // Refused again when smaller: text only.
      refusals = 2;
      const again = await surface.post(postReq({ space: SPACE, frame: liveFrame(lines) }));
      const last = h!.calls().at(-1);
      expect(last?.details?.blocks).toBeUndefined();
      expect(emulator.state.messages(CHANNEL).find((m) => m.id === again.messageId)?.text).toContain(
        'step 29',
      );
    },
  );

  it('reacts with an emoji by name, and refuses something that is not one', async () => {
    const { surface } = await harness();
    const posted = await surface.post(postReq({ space: SPACE, frame: prose('x') }));
    await surface.react({ space: SPACE, messageId: posted.messageId, emoji: '👀' });
    await surface.react({ space: SPACE, messageId: posted.messageId, emoji: ':white_check_mark:' });
    expect(
      h!
        .calls()
        .filter((c) => c.op === 'reaction')
        .map((c) => c.details?.name),
    ).toEqual(['eyes', 'white_check_mark']);
    const error = await surfaceErrorOf(
      surface.react({ space: SPACE, messageId: posted.messageId, emoji: 'no way!' }),
    );
    expect(error.kind).toBe('invalid');
  });

  it('refuses a space that is not slack:<channel id>, naming the form', async () => {
    const { surface } = await harness();
    const error = await surfaceErrorOf(surface.post(postReq({ space: 'slack:general', frame: prose('x') })));
    expect(error.kind).toBe('invalid');
    expect(error.message).toContain('slack:<channel id>');
    expect(h!.calls()).toEqual([]);
  });
});

describe('Slack surface: user text never pings', () => {
  it('keeps hostile text literal in a log and a prose answer: no mention fires, no link forms', async () => {
    const { surface, emulator } = await harness();
    const log = await surface.post(
      postReq({
        space: SPACE,
        frame: {
          kind: 'log',
          headline: { state: 'running', title: HOSTILE, elapsedMs: 0, now: `running ${HOSTILE}` },
          lines: [line(HOSTILE, { status: 'pending' })],
        },
      }),
    );
    await surface.edit(
      editReq({
        space: SPACE,
        messageId: log.messageId,
        frame: liveFrame([line(HOSTILE)]),
      }),
    );
    await surface.post(postReq({ space: SPACE, frame: { kind: 'prose', markdown: HOSTILE } }));

    expect(h!.calls().map((call) => call.mentions)).toEqual([[], [], []]);
    const [card, prose] = emulator.state.messages(CHANNEL);
    expect(card?.text).toContain('<!channel> <!here|here>');
    expect(prose?.text).toContain('&lt;!channel&gt;');
    expect(prose?.text).toContain('&lt;https://evil.example|x&gt;');
  });
});

describe('Slack surface: an answer at Slack’s 40,000 characters', () => {
  it('arrives whole even when escaping &, < and > would pass 40,000: literal rich_text, no mention', async () => {
    const { surface, emulator } = await harness();
    const body = `${HOSTILE} a < b && c > d\n`;
    const markdown = `${body.repeat(Math.floor(39_990 / body.length))}THE END`;
    expect(markdown.length).toBeLessThanOrEqual(40_000);
    await surface.post(postReq({ space: SPACE, frame: { kind: 'prose', markdown } }));
    const [answer] = emulator.state.messages(CHANNEL);
    expect(answer?.text.endsWith('THE END')).toBe(true);
    expect(answer?.text).toBe(markdown);
    expect(h!.calls().map((call) => [call.status, call.mentions])).toEqual([[200, []]]);
  });

  it('keeps Markdown formatting for an answer that fits once escaped', async () => {
    const { surface, emulator } = await harness();
    await surface.post(postReq({ space: SPACE, frame: { kind: 'prose', markdown: 'All **done** <b>' } }));
    expect(emulator.state.messages(CHANNEL)[0]).toMatchObject({ text: 'All *done* &lt;b&gt;' });
  });
});

describe('Slack surface: errors in the port’s taxonomy', () => {
  it('an edit of a message a person deleted is not-found (message_not_found)', async () => {
    const { surface, personDeletes } = await harness();
    const posted = await surface.post(postReq({ space: SPACE, frame: prose('log') }));
    await personDeletes(posted.messageId);
    const error = await surfaceErrorOf(
      surface.edit(editReq({ space: SPACE, messageId: posted.messageId, frame: prose('more') })),
    );
    expect(error).toMatchObject({ kind: 'not-found', details: { code: 'message_not_found' } });
  });

  it('an injected 404 on chat.update is not-found', async () => {
    const { surface, faults } = await harness();
    const posted = await surface.post(postReq({ space: SPACE, frame: prose('log') }));
    await faults([{ op: 'update', status: 404, times: 1 }]);
    const error = await surfaceErrorOf(
      surface.edit(editReq({ space: SPACE, messageId: posted.messageId, frame: prose('x') })),
    );
    expect(error.kind).toBe('not-found');
  });

  it('a 429 is rate-limited with Retry-After in ms, sent once: no hidden retry', async () => {
    const { surface, faults } = await harness();
    await faults([{ op: 'create', status: 429, retryAfterS: 7, times: 1 }]);
    const error = await surfaceErrorOf(surface.post(postReq({ space: SPACE, frame: prose('x') })));
    expect(error).toMatchObject({ kind: 'rate-limited', retryAfterMs: 7000, details: { status: 429 } });
    expect(h!.calls()).toHaveLength(1);
  });

  it('the 51st chat.update in a minute is rate-limited by the emulator’s Slack tier', async () => {
    const { surface } = await harness();
    const posted = await surface.post(postReq({ space: SPACE, frame: prose('x') }));
    for (let edit = 0; edit < 50; edit += 1) {
      await surface.edit(
        editReq({ space: SPACE, messageId: posted.messageId, frame: prose(`edit ${edit}`) }),
      );
    }
    const error = await surfaceErrorOf(
      surface.edit(editReq({ space: SPACE, messageId: posted.messageId, frame: prose('one more') })),
    );
    expect(error.kind).toBe('rate-limited');
    expect(error.retryAfterMs).toBeGreaterThan(0);
  });

  it.each([500, 503])('a %i is transient', async (status) => {
    const { surface, faults } = await harness();
    await faults([{ op: 'create', status, times: 1 }]);
    const error = await surfaceErrorOf(surface.post(postReq({ space: SPACE, frame: prose('x') })));
    expect(error).toMatchObject({ kind: 'transient', details: { status } });
  });

  it('no answer at all is transient', async () => {
    const port = await closedPort();
    const surface = createSlackSurface({ token: TOKEN, apiUrl: `http://127.0.0.1:${port}` });
    const error = await surfaceErrorOf(surface.post(postReq({ space: SPACE, frame: prose('x') })));
    expect(error.kind).toBe('transient');
    expect(error.message).toContain('no answer from Slack');
    await expect(surface.ready!()).resolves.toBe(false);
  });

  it.each([
    [401, 'invalid_auth'],
    [403, 'access_denied'],
  ])('a %i is forbidden (%s)', async (status, code) => {
    const { surface, faults } = await harness();
    await faults([{ op: 'create', status, times: 1 }]);
    const error = await surfaceErrorOf(surface.post(postReq({ space: SPACE, frame: prose('x') })));
    expect(error).toMatchObject({ kind: 'forbidden', details: { code } });
  });

  it('a channel the app is not in, or an archived one, is forbidden with the reason', async () => {
    const { surface } = await harness({ emulator: { notMember: ['C0NOTIN001'], archived: ['C0ARCHIVED'] } });
    const notIn = await surfaceErrorOf(
      surface.post(postReq({ space: 'slack:C0NOTIN001', frame: prose('x') })),
    );
    const archived = await surfaceErrorOf(
      surface.post(postReq({ space: 'slack:C0ARCHIVED', frame: prose('x') })),
    );
    expect([notIn.kind, notIn.details.code, archived.kind, archived.details.code]).toEqual([
      'forbidden',
      'not_in_channel',
      'forbidden',
      'is_archived',
    ]);
    expect(notIn.message).toContain('not_in_channel');
  });

  it('a 400 is invalid, with Slack’s code', async () => {
    const { surface, faults } = await harness();
    await faults([{ op: 'create', status: 400, times: 1 }]);
    const error = await surfaceErrorOf(surface.post(postReq({ space: SPACE, frame: prose('x') })));
    expect(error).toMatchObject({ kind: 'invalid', details: { code: 'invalid_arguments' } });
  });
});

describe('Slack surface: aborts and idempotency', () => {
  it('an aborted call rejects with AbortError; one aborted before it starts never reaches Slack', async () => {
    const { surface } = await harness();
    const before = new AbortController();
    before.abort();
    const early = await rejectionOf(
      surface.post(postReq({ space: SPACE, frame: prose('x') }), { signal: before.signal }),
    );
    expect((early as Error).name).toBe('AbortError');
    expect(h!.calls()).toEqual([]);

    const during = new AbortController();
    const pending = surface.post(postReq({ space: SPACE, frame: prose('y') }), { signal: during.signal });
    during.abort();
    const late = await rejectionOf(pending);
    expect((late as Error).name).toBe('AbortError');
  });

  it('declares no idempotent create; postOnce covers a retried post through the store', async () => {
    const { surface, emulator } = await harness();
    expect(surface.capabilities.idempotentCreate).toBe(false);
    const store = createMemoryStore();
    const request = postReq({ space: SPACE, frame: prose('log'), clientId: 'turn-1:0' });
    const first = await postOnce(surface, store, request);
    const retried = await postOnce(surface, store, request);
    expect(retried).toEqual(first);
    expect(emulator.state.messages(CHANNEL)).toHaveLength(1);
  });

  it('is ready when Slack answers auth.test', async () => {
    const { surface } = await harness();
    await expect(surface.ready!()).resolves.toBe(true);
  });
});
