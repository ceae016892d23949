// spec: issue 12 items 1–7 and 9 — the Discord surface through @discordjs/rest against the Discord emulator:
// the error taxonomy (10008 → not-found, 429 → rate-limited with retryAfterMs, 5xx → transient, 403 →
// forbidden, 400 → invalid), idempotent create (nonce + enforce_nonce), the log threaded on the person's
// message (160004 → reuse), silent rollovers, allowed_mentions on every create and edit, an edit of a
// deleted message, an aborted call, Components V2 within limits, hostile text, limits from the headers,
// 30046 → rollover, 50083 → unarchive, typing, the invalid-request guard.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  DiscordEditWindowError,
  DiscordThreadArchivedError,
  discordPlatform,
} from '../../../src/platforms/discord/index.js';
import type { FrameLine, SurfaceFrame } from '../../../src/surfaces/frame.js';
import {
  CHANNEL,
  type DiscordSurfaceHarness,
  editReq,
  postReq,
  rejection,
  SPACE,
  startDiscordSurfaceHarness,
} from './harness.js';

const V2 = 1 << 15;
const SILENT = 1 << 12;
const LIVE_MENTION = /<@!?\d+>|<@&\d+>|@everyone|@here/i;

let h: DiscordSurfaceHarness;
beforeEach(async () => {
  h = await startDiscordSurfaceHarness({ emulator: { limits: [] } });
});
afterEach(async () => {
  await h.close();
});

const line = (text: string, extra: Partial<FrameLine> = {}): FrameLine => ({
  kind: 'tool',
  status: 'ok',
  depth: 0,
  time: '12:00:01',
  text,
  ...extra,
});

const log = (lines: FrameLine[], state: 'running' | 'done' = 'running'): SurfaceFrame => ({
  kind: 'log',
  headline: { state, title: 'Fix the build', elapsedMs: 65_000 },
  lines,
});

describe('discord surface: the error taxonomy', () => {
  it('10008 (an edit of a deleted message) → not-found', async () => {
    const posted = await h.surface.post(postReq({ space: SPACE, text: 'v1' }));
    await h.personDeletes(posted.messageId);
    const error = await rejection(
      h.surface.edit(editReq({ space: SPACE, messageId: posted.messageId, text: 'v2' })),
    );
    expect(error).toMatchObject({ kind: 'not-found', details: { status: 404, code: 10008 } });
    expect(error.message).toMatch(/edit message in discord:1800000000000000001: HTTP 404 10008/);
  });

  it('429 → rate-limited with retryAfterMs from Retry-After; the headers then hold the route back without a call', async () => {
    const posted = await h.surface.post(postReq({ space: SPACE, text: 'v1' }));
    await h.faults([{ op: 'update', status: 429, times: 1, retryAfterS: 2 }]);
    const edit = () => h.surface.edit(editReq({ space: SPACE, messageId: posted.messageId, text: 'v2' }));
    const error = await rejection(edit());
    expect(error).toMatchObject({ kind: 'rate-limited', details: { status: 429, code: 'user' } });
    expect(error.retryAfterMs).toBeGreaterThanOrEqual(2000);
    const sent = h.calls().length;
    // Within Retry-After the surface refuses from what the 429 said, and sends nothing.
    h.clock.increment(1500);
    const held = await rejection(edit());
    expect(held).toMatchObject({ kind: 'rate-limited', retryAfterMs: 500 });
    expect(h.calls()).toHaveLength(sent);
    h.clock.increment(500);
    await edit();
  });

  it('5xx → transient; 403 → forbidden; 400 → invalid (the client neither retries nor queues)', async () => {
    const posted = await h.surface.post(postReq({ space: SPACE, text: 'v1' }));
    const edit = () => h.surface.edit(editReq({ space: SPACE, messageId: posted.messageId, text: 'v2' }));
    await h.faults([{ op: 'update', status: 500, times: 1 }]);
    expect(await rejection(edit())).toMatchObject({ kind: 'transient', details: { status: 500 } });
    await h.faults([{ op: 'update', status: 403, times: 1 }]);
    expect(await rejection(edit())).toMatchObject({
      kind: 'forbidden',
      details: { status: 403, code: 50013 },
    });
    await h.faults([{ op: 'update', status: 400, times: 1 }]);
    expect(await rejection(edit())).toMatchObject({ kind: 'invalid', details: { status: 400 } });
    // One call per attempt: nothing retried inside the client.
    expect(h.calls().filter((c) => c.op === 'update')).toHaveLength(3);
  });

  it('401 → forbidden, and the client (which forgets a refused token) keeps saying so', async () => {
    await h.faults([{ op: 'create', status: 401, times: 1 }]);
    expect(await rejection(h.surface.post(postReq({ space: SPACE, text: 'x' })))).toMatchObject({
      kind: 'forbidden',
      details: { status: 401 },
    });
    expect(await rejection(h.surface.post(postReq({ space: SPACE, text: 'x' })))).toMatchObject({
      kind: 'forbidden',
    });
  });

  it('a bad space or id → invalid, before any call', async () => {
    expect(await rejection(h.surface.post(postReq({ space: 'discord:general', text: 'x' })))).toMatchObject({
      kind: 'invalid',
    });
    expect(
      await rejection(h.surface.edit(editReq({ space: SPACE, messageId: 'abc', text: 'x' }))),
    ).toMatchObject({
      kind: 'invalid',
    });
    expect(h.calls()).toEqual([]);
  });

  it('an aborted call rejects with an AbortError; an already aborted one sends nothing', async () => {
    const controller = new AbortController();
    controller.abort();
    const error = await rejection(
      h.surface.post(postReq({ space: SPACE, text: 'x' }), { signal: controller.signal }),
    );
    expect((error as unknown as Error).name).toBe('AbortError');
    expect(h.calls()).toEqual([]);

    const inFlight = new AbortController();
    const call = h.surface.post(postReq({ space: SPACE, text: 'y' }), { signal: inFlight.signal });
    inFlight.abort();
    expect(((await rejection(call)) as unknown as Error).name).toBe('AbortError');
    // The surface still works.
    await expect(h.surface.post(postReq({ space: SPACE, text: 'z' }))).resolves.toMatchObject({});
  });
});

describe('discord surface: idempotent create', () => {
  it('a retry with the same client id (after a lost answer) returns the first message: no duplicate', async () => {
    const req = postReq({ space: SPACE, text: 'the log', clientId: 'turn-1:log:0' });
    const first = await h.surface.post(req);
    // A restarted process retries the same create.
    const again = await h.freshSurface().post(req);
    expect(again.messageId).toBe(first.messageId);
    expect(await h.messages()).toHaveLength(1);
    const creates = h.calls().filter((c) => c.op === 'create');
    expect(creates.map((c) => c.details?.nonceReplay ?? false)).toEqual([false, true]);
    expect(creates[0]!.details).toMatchObject({ enforceNonce: true });
    expect(String(creates[0]!.details?.nonce)).toHaveLength(25);
    // Another client id is another message.
    await h.surface.post(postReq({ ...req, clientId: 'turn-1:log:1' }));
    expect(await h.messages()).toHaveLength(2);
  });
});

describe('discord surface: threads', () => {
  it("starts a thread on the person's message (auto-archive a day) and posts the log in it, notifying once", async () => {
    const person = await h.personPosts('please fix the build');
    const posted = await h.surface.post(
      postReq({
        space: SPACE,
        text: 'log',
        frame: log([line('Bash: npm test')]),
        thread: { rootMessageId: person.messageId },
        clientId: 't1:0',
      }),
    );
    expect(posted.threadId).toBe(person.messageId);
    const [thread, create] = h.calls();
    expect(thread).toMatchObject({
      op: 'thread',
      status: 201,
      messageId: person.messageId,
      details: { autoArchiveDuration: 1440, name: 'Fix the build' },
    });
    expect(create).toMatchObject({ op: 'create', status: 200, thread: person.messageId, notifies: true });

    // A rollover in the same turn: silent, straight into the known thread.
    const rollover = await h.surface.post(
      postReq({
        space: SPACE,
        text: 'log 2',
        frame: log([line('Read: a.ts')]),
        thread: { rootMessageId: person.messageId, threadId: posted.threadId! },
        silent: true,
        clientId: 't1:1',
      }),
    );
    expect(rollover.threadId).toBe(person.messageId);
    const last = h.calls().at(-1)!;
    expect(last).toMatchObject({ op: 'create', notifies: false, thread: person.messageId });
    expect((last.details?.flags as number) & SILENT).toBe(SILENT);
    expect(h.calls().filter((c) => c.op === 'thread')).toHaveLength(1);
  });

  it('160004 (the thread exists, e.g. after a restart) → reuses it: thread id = message id', async () => {
    const person = await h.personPosts('hello');
    await h.surface.post(postReq({ space: SPACE, text: 'one', thread: { rootMessageId: person.messageId } }));
    const restarted = h.freshSurface();
    const posted = await restarted.post(
      postReq({
        space: SPACE,
        text: 'two',
        thread: { rootMessageId: person.messageId },
      }),
    );
    expect(posted.threadId).toBe(person.messageId);
    expect(h.calls().map((c) => [c.op, c.status])).toEqual([
      ['thread', 201],
      ['create', 200],
      ['thread', 400],
      ['create', 200],
    ]);
    const messages = await h.messages();
    expect(messages.filter((m: { thread: string | null }) => m.thread === person.messageId)).toHaveLength(2);
  });

  it("a person's message inside an existing thread: the post goes in that thread, none is started", async () => {
    const starter = await h.personPosts('first');
    const reply = await h.personPosts('and in the thread', { threadId: starter.messageId });
    expect(reply.threadId).toBe(starter.messageId);
    expect(reply.messageId).not.toBe(starter.messageId);
    const posted = await h.surface.post(
      postReq({
        space: SPACE,
        text: 'log',
        thread: { rootMessageId: reply.messageId, threadId: reply.threadId },
      }),
    );
    expect(posted.threadId).toBe(starter.messageId);
    expect(h.calls().map((c) => [c.op, c.status, c.thread])).toEqual([['create', 200, starter.messageId]]);
  });

  it('where threads cannot be started (a DM: 50024) the post goes top level', async () => {
    const dm = '1800000000000000009';
    const dmHarness = await startDiscordSurfaceHarness({
      emulator: { limits: [], channels: [{ id: dm, type: 1 }] },
    });
    try {
      const person = await dmHarness.personPosts('hi', { space: dm });
      const posted = await dmHarness.surface.post(
        postReq({
          space: `discord:${dm}`,
          text: 'answer',
          thread: { rootMessageId: person.messageId },
        }),
      );
      expect(posted.threadId).toBeUndefined();
      expect(dmHarness.calls().map((c) => [c.op, c.status, c.thread])).toEqual([
        ['thread', 400, person.messageId],
        ['create', 200, null],
      ]);
      // The surface remembers the channel has no threads: the next post goes top level at once.
      const next = await dmHarness.personPosts('again', { space: dm });
      await dmHarness.surface.post(
        postReq({ space: `discord:${dm}`, text: 'answer 2', thread: { rootMessageId: next.messageId } }),
      );
      expect(dmHarness.calls().map((c) => c.op)).toEqual(['thread', 'create', 'create']);
    } finally {
      await dmHarness.close();
    }
  });

  it('an edit in an archived thread (50083) unarchives it and goes on', async () => {
    const person = await h.personPosts('go');
    const posted = await h.surface.post(
      postReq({
        space: SPACE,
        text: 'v1',
        thread: { rootMessageId: person.messageId },
      }),
    );
    h.emulator.archiveThread(posted.threadId!);
    await h.surface.edit(
      editReq({
        space: SPACE,
        messageId: posted.messageId,
        threadId: posted.threadId!,
        text: 'v2',
      }),
    );
    const calls = h.calls().slice(-4);
    expect(calls.map((c) => [c.method, c.op, c.status])).toEqual([
      ['PATCH', 'other', 200],
      ['PATCH', 'update', 400],
      ['PATCH', 'other', 200],
      ['PATCH', 'update', 200],
    ]);
    expect(calls[2]!.details).toMatchObject({ archived: false });
    expect((await h.messages()).at(-1)).toMatchObject({ text: 'v2' });
  });
  it('when the thread cannot be reopened, the edit fails not-found with the reason, and a new message reopens it', async () => {
    const person = await h.personPosts('go');
    const posted = await h.surface.post(
      postReq({ space: SPACE, text: 'v1', thread: { rootMessageId: person.messageId } }),
    );
    h.emulator.archiveThread(posted.threadId!);
    await h.faults([{ method: 'PATCH', path: `/\\/channels\\/${posted.threadId}$/`, status: 403, times: 1 }]);
    const error = await rejection(
      h.surface.edit(
        editReq({ space: SPACE, messageId: posted.messageId, threadId: posted.threadId!, text: 'v2' }),
      ),
    );
    expect(error).toBeInstanceOf(DiscordThreadArchivedError);
    expect(error).toMatchObject({ kind: 'not-found', details: { code: 'thread-archived' } });
    expect(error.message).toMatch(/is archived and could not be reopened \(.*HTTP 403 50013/);
    const fresh = await h.surface.post(
      postReq({
        space: SPACE,
        text: 'v2',
        thread: { rootMessageId: person.messageId, threadId: posted.threadId! },
        silent: true,
      }),
    );
    expect(h.calls().at(-1)).toMatchObject({ op: 'create', status: 200, details: { unarchived: true } });
    expect(fresh.threadId).toBe(posted.threadId);
  });
});

describe('discord surface: what the person sees', () => {
  it('the log as Components V2: coloured Container, headline with elapsed time, lines; edited to done', async () => {
    const posted = await h.surface.post(
      postReq({
        space: SPACE,
        text: 'fallback',
        frame: log([line('Bash: npm test', { status: 'pending' })]),
      }),
    );
    const created = h.calls().at(-1)!;
    expect(created.details).toMatchObject({ flags: V2, allowedMentions: { parse: [] } });
    // A Components V2 message has no text field; a person reads its Text Displays.
    expect((await h.messages())[0]).toMatchObject({
      text: '',
      card: { title: null, text: '**⏳ Running** · Fix the build · 1m 05s\n`12:00:01` ⏳ Bash: npm test' },
    });

    await h.surface.edit(
      editReq({
        space: SPACE,
        messageId: posted.messageId,
        text: 'fallback',
        frame: log([line('Bash: npm test')], 'done'),
      }),
    );
    expect(h.calls().at(-1)).toMatchObject({
      op: 'update',
      status: 200,
      details: { flags: V2, allowedMentions: { parse: [] } },
    });
    expect((await h.messages())[0].card.text).toMatch(/^\*\*✅ Done\*\*.*\n`12:00:01` ✅ Bash: npm test$/);
  });

  it('a frame far over the limits is still accepted by Discord (≤ 40 components, ≤ 4,000 chars)', async () => {
    const lines = Array.from({ length: 800 }, (_, i) => line(`tool call ${i} ${'x'.repeat(80)}`));
    await h.surface.post(postReq({ space: SPACE, text: 'x', frame: log(lines) }));
    expect(h.calls().at(-1)).toMatchObject({ op: 'create', status: 200 });
    const [message] = await h.messages();
    expect([...message.card.text].length).toBeLessThanOrEqual(4000);
    expect(message.card.text).toContain('tool call 799 ');
  });

  it('logStyle text: plain content within 2,000 chars', async () => {
    const surface = h.freshSurface({ logStyle: 'text' });
    const lines = Array.from({ length: 300 }, (_, i) => line(`step ${i}`));
    await surface.post(postReq({ space: SPACE, text: 'x', frame: log(lines) }));
    expect(h.calls().at(-1)).toMatchObject({ op: 'create', status: 200, details: { flags: 0 } });
    expect([...(await h.messages())[0].text].length).toBeLessThanOrEqual(2000);
  });

  it('a policy card shows its title, command and buttons; the answer (prose) is a new notifying message', async () => {
    const person = await h.personPosts('deploy');
    await h.surface.post(
      postReq({
        space: SPACE,
        text: 'Approve? rm -rf /tmp/x',
        card: { requestId: 'req-1', title: 'Run a command?', command: 'rm', args: ['-rf', '/tmp/x'] },
        thread: { rootMessageId: person.messageId },
      }),
    );
    await h.surface.post(
      postReq({
        space: SPACE,
        text: 'Done',
        frame: { kind: 'prose', markdown: '**Deployed.** Logs: [here](https://example.com/logs)' },
        thread: { rootMessageId: person.messageId },
      }),
    );
    const [, card, answer] = await h.messages();
    expect(card).toMatchObject({
      text: '',
      card: { title: null, text: '🔐 **Run a command?**\n```\nrm -rf /tmp/x\n```' },
      buttons: [
        { action: 'approve', label: 'Approve' },
        { action: 'reject', label: 'Reject' },
      ],
    });
    expect(answer.text).toBe('**Deployed.** Logs: here (<https://example.com/logs>)');
    expect(
      h
        .calls()
        .filter((c) => c.op === 'create')
        .map((c) => c.notifies),
    ).toEqual([true, true]);
  });

  it('hostile text pings no one and forms no mention or masked link, on create and on edit', async () => {
    const hostile =
      '@everyone @here <@123456789012345678> <@!123456789012345678> <@&987654321098765432> [login](https://evil.example)';
    const posted = await h.surface.post(
      postReq({ space: SPACE, text: hostile, frame: log([line(hostile)]) }),
    );
    await h.surface.edit(
      editReq({
        space: SPACE,
        messageId: posted.messageId,
        text: hostile,
        frame: log([line(hostile), line(hostile)]),
      }),
    );
    const plain = await h.surface.post(postReq({ space: SPACE, text: hostile }));
    await h.surface.edit(editReq({ space: SPACE, messageId: plain.messageId, text: hostile }));
    for (const call of h.calls()) {
      expect(call.mentions).toEqual([]);
      expect(call.details).toMatchObject({ allowedMentions: { parse: [] } });
      expect(call.text).not.toMatch(LIVE_MENTION);
    }
    for (const message of await h.messages()) {
      expect(`${message.text}\n${message.card?.text ?? ''}`).not.toMatch(/\]\(https/);
    }
  });
});

describe('discord surface: limits and Discord-only errors', () => {
  it("paces from the emulator's headers: the 6th post in 5 s is refused unsent, with the wait the headers gave", async () => {
    const limited = await startDiscordSurfaceHarness();
    try {
      for (let i = 0; i < 5; i += 1) await limited.surface.post(postReq({ space: SPACE, text: `m${i}` }));
      limited.clock.increment(1000);
      const error = await rejection(limited.surface.post(postReq({ space: SPACE, text: 'm5' })));
      expect(error).toMatchObject({ kind: 'rate-limited', retryAfterMs: 4000 });
      expect(limited.calls().filter((c) => c.status === 429)).toEqual([]);
      expect(limited.calls()).toHaveLength(5);
      expect(limited.surface.rateLimits.waitMsFor(`POST /channels/${CHANNEL}/messages`)).toBe(4000);
      // What the budget asks before scheduling: posts here wait, edits and other channels don't.
      expect(limited.surface.waitMsFor('post', { space: SPACE })).toBe(4000);
      expect(limited.surface.waitMsFor('post', { space: 'discord:1800000000000000002' })).toBe(0);
      expect(limited.surface.waitMsFor('edit', { space: SPACE, messageId: '1800000000000000099' })).toBe(0);
      limited.clock.increment(4000);
      expect(limited.surface.rateLimits.waitMsFor(`POST /channels/${CHANNEL}/messages`)).toBe(0);
      // The emulator agrees (a fresh client: discord.js' own bucket state runs on the real clock).
      await limited.freshSurface().post(postReq({ space: SPACE, text: 'm5' }));
    } finally {
      await limited.close();
    }
  });

  it('30046 (a log message over an hour old) → DiscordEditWindowError: not-found, so the turn rolls over', async () => {
    const posted = await h.surface.post(postReq({ space: SPACE, text: 'v1' }));
    h.clock.increment(60 * 60_000 + 1);
    const error = await rejection(
      h.surface.edit(editReq({ space: SPACE, messageId: posted.messageId, text: 'v2' })),
    );
    expect(error).toBeInstanceOf(DiscordEditWindowError);
    expect(error).toMatchObject({ kind: 'not-found', details: { code: 'edit-window-closed' } });
    expect(h.surface.capabilities.maxEditableAgeMs).toBeLessThan(60 * 60_000);
  });

  it('typing shows in the thread', async () => {
    await h.surface.typing({ space: SPACE, threadId: '1800000000000000123' });
    expect(h.calls().at(-1)).toMatchObject({
      path: '/api/v10/channels/1800000000000000123/typing',
      status: 204,
    });
  });

  it('stops writing to a space after too many invalid requests, saying why, without sending', async () => {
    const surface = h.freshSurface({ invalidRequests: { spaceLimit: 3 } });
    await h.faults([{ op: 'create', status: 403, times: 3 }]);
    for (let i = 0; i < 3; i += 1) {
      expect(await rejection(surface.post(postReq({ space: SPACE, text: 'x' })))).toMatchObject({
        kind: 'forbidden',
      });
    }
    const sent = h.calls().length;
    const stopped = await rejection(surface.post(postReq({ space: SPACE, text: 'x' })));
    expect(stopped).toMatchObject({ kind: 'forbidden', details: { code: 'invalid-request-limit' } });
    expect(stopped.message).toMatch(/stopped writing to discord:1800000000000000001: 3 invalid requests/);
    expect(h.calls()).toHaveLength(sent);
    // Another space is still written to.
    await surface.post(postReq({ space: 'discord:1800000000000000002', text: 'ok' }));
  });

  it('is built by the descriptor from its config section', async () => {
    const config = discordPlatform.configSchema.parse({ token: 'bot-token', apiUrl: h.emulator.url });
    expect(config).toMatchObject({ gateway: false, logStyle: 'components' });
    const surface = discordPlatform.createSurface(config, { now: () => h.clock.now() });
    expect(await surface.ready?.()).toBe(true);
    await surface.post(postReq({ space: SPACE, text: 'hello' }));
    expect(discordPlatform.spaceIdPattern.test(CHANNEL)).toBe(true);
    expect(discordPlatform.rateChannel(SPACE, '1')).toBe(`${SPACE}#1`);
    expect(() => discordPlatform.configSchema.parse({ token: 'env:1BAD' })).toThrow();
  });
});

describe('discord surface: a create whose answer is lost', () => {
  it('fails transient; the retry with the same client id returns the message the lost call made', async () => {
    // A proxy that forwards every call but cuts the connection instead of answering the first create.
    let cut = false;
    const proxy = createServer(async (incoming, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of incoming) chunks.push(chunk as Buffer);
      const upstream = await fetch(`${h.emulator.url}${incoming.url}`, {
        method: incoming.method!,
        headers: Object.fromEntries(
          Object.entries(incoming.headers).filter(([name]) => name !== 'host' && name !== 'content-length'),
        ) as Record<string, string>,
        ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}),
      });
      const body = await upstream.text();
      if (!cut && incoming.method === 'POST' && incoming.url!.endsWith('/messages')) {
        cut = true;
        res.socket?.destroy();
        return;
      }
      res.writeHead(upstream.status, Object.fromEntries(upstream.headers));
      res.end(body);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = proxy.address() as AddressInfo;
      const surface = h.freshSurface({ apiUrl: `http://127.0.0.1:${port}` });
      const req = postReq({ space: SPACE, text: 'log', frame: log([line('a')]), clientId: 'turn-9:log:0' });
      expect(await rejection(surface.post(req))).toMatchObject({ kind: 'transient' });
      // The emulator made the message; the answer never came back.
      expect(await h.messages()).toHaveLength(1);
      const retried = await surface.post(req);
      expect(await h.messages()).toEqual([expect.objectContaining({ id: retried.messageId })]);
      expect(
        h
          .calls()
          .filter((c) => c.op === 'create')
          .map((c) => c.details?.nonceReplay ?? false),
      ).toEqual([false, true]);
    } finally {
      proxy.closeAllConnections();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    }
  });
});
