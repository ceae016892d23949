/**
 * The ChatSurface contract (src/surfaces/surface.ts), run against every
 * surface through its official client and emulator: the error taxonomy,
 * idempotent creates, threads, silent posts, deleted messages and aborts.
 *
 * Plugging a surface in: `describeSurfaceContract(name, factory)` where
 * `factory: () => Promise<SurfaceContractHarness>` is called before each
 * test (and `close()` after it). A harness gives:
 * - `surface`: the surface under test, talking to a fresh emulator (or in
 *   process, for memory), with its client's own retries off so every error
 *   reaches the caller;
 * - `space`: a platform-prefixed space the surface can post in;
 * - `fault(rule)`: fail matching calls with an HTTP status, as
 *   `POST /_emulator/faults` does (`op` is `create` for posts, `update` for
 *   edits; `retryAfterS` sends a Retry-After);
 * - `personPosts(text)` / `personDeletes(messageId)`: what a person does
 *   (`POST /_emulator/inbound`, `POST /_emulator/delete`);
 * - `calls()` / `messages()`: `GET /_emulator/calls` (the app's calls) and
 *   `GET /_emulator/messages?space=` (what a person sees);
 * - `unanswered?()`: a surface of the same platform whose calls get no
 *   answer (a server that never responds) with a short request timeout: the
 *   timeout must come back as `transient`. Only a surface without timeouts of
 *   its own (memory) leaves it out, and passes `{timeouts: false}`;
 * - `close()`.
 * Slack: a WebClient (`rejectRateLimitedCalls: true`) on the Slack emulator;
 * Discord: a REST client (no queueing of 429s) on the Discord emulator.
 */
import { createServer, type Server } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EmulatedMessage, RecordedCall } from '../../src/emulators/types.js';
import { type PostRefs, postOnce } from '../../src/runtime/posting.js';
import type { SurfaceFrame } from '../../src/surfaces/frame.js';
import type { ChatSurface, PostedMessage, SurfaceError } from '../../src/surfaces/surface.js';

/** A server that accepts requests and never answers: a harness's `unanswered()` points a surface at it. */
export async function silentServer(): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer(() => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface ContractFault {
  op: 'create' | 'update';
  status: number;
  times?: number;
  retryAfterS?: number;
}

export interface SurfaceContractHarness {
  surface: ChatSurface;
  space: string;
  fault(rule: ContractFault): Promise<void>;
  /** A person's top-level message: the root a thread hangs off (`threadId` when the platform gives one). */
  personPosts(text: string): Promise<{ messageId: string; threadId?: string }>;
  personDeletes(messageId: string): Promise<void>;
  calls(): Promise<RecordedCall[]>;
  messages(): Promise<EmulatedMessage[]>;
  unanswered?(): Promise<ChatSurface>;
  close(): Promise<void>;
}

export type SurfaceContractFactory = () => Promise<SurfaceContractHarness>;

/** A surface harness on a platform's emulator (test/surfaces/gchat/harness.ts, test/platforms/{slack,discord}/harness.ts). */
export interface EmulatedSurfaceHarness {
  surface: ChatSurface;
  emulator: { state: { messages(space: string): EmulatedMessage[] } };
  faults(rules: ContractFault[]): Promise<void>;
  personPosts(text: string): Promise<{ messageId: string; threadId?: string }>;
  personDeletes(messageId: string): Promise<void>;
  calls(): RecordedCall[];
  close(): Promise<void>;
}

/**
 * The contract harness of a surface harness `h`: its surface in `space`
 * (`id` on the platform), a person's texts marked `person:`, what a person
 * sees of `id` (through `seen`, default the message as kept), and
 * `unanswered()`: `surfaceAt` pointed at a {@link silentServer}.
 */
export function onEmulator(
  h: EmulatedSurfaceHarness,
  opts: {
    space: string;
    id: string;
    seen?: (message: EmulatedMessage) => EmulatedMessage;
    surfaceAt(url: string): ChatSurface;
  },
): SurfaceContractHarness {
  let silent: Awaited<ReturnType<typeof silentServer>> | undefined;
  return {
    surface: h.surface,
    space: opts.space,
    fault: (rule) => h.faults([rule]),
    personPosts: (text) => h.personPosts(`person: ${text}`),
    personDeletes: (messageId) => h.personDeletes(messageId),
    calls: async () => h.calls(),
    messages: async () => h.emulator.state.messages(opts.id).map(opts.seen ?? ((message) => message)),
    unanswered: async () => {
      silent = await silentServer();
      return opts.surfaceAt(silent.url);
    },
    close: async () => {
      await silent?.close();
      await h.close();
    },
  };
}

const log = (...texts: string[]): SurfaceFrame => ({
  kind: 'log',
  lines: texts.map((text) => ({ kind: 'tool', status: 'pending', depth: 0, time: '12:00:00', text })),
});

async function rejection(call: Promise<unknown>): Promise<SurfaceError> {
  try {
    await call;
  } catch (error) {
    return error as SurfaceError;
  }
  throw new Error('expected the call to fail, but it succeeded');
}

/** Post refs kept in memory, as the store keeps them. */
function memoryRefs(): PostRefs & { size(): number } {
  const refs = new Map<string, PostedMessage>();
  return {
    recordPost: (clientId, posted) => {
      refs.set(clientId, posted);
    },
    lookupPost: (clientId) => refs.get(clientId),
    size: () => refs.size,
  };
}

export interface SurfaceContractOptions {
  /** The surface times its calls out (every surface over HTTP): the harness has `unanswered()`. Default true. */
  timeouts?: boolean;
}

export function describeSurfaceContract(
  name: string,
  factory: SurfaceContractFactory,
  options: SurfaceContractOptions = { timeouts: true },
): void {
  describe(`ChatSurface contract: ${name}`, () => {
    let h: SurfaceContractHarness;
    beforeEach(async () => {
      h = await factory();
    });
    afterEach(async () => {
      await h.close();
    });

    const appMessages = async () => (await h.messages()).filter((m) => !m.text.startsWith('person:'));

    describe('errors map to the taxonomy', () => {
      it('404 → not-found', async () => {
        const posted = await h.surface.post({ space: h.space, frame: log('tool: a') });
        await h.fault({ op: 'update', status: 404, times: 1 });
        const error = await rejection(
          h.surface.edit({ space: h.space, messageId: posted.messageId, frame: log('tool: b') }),
        );
        expect(error).toMatchObject({ name: 'SurfaceError', kind: 'not-found' });
      });

      it('429 → rate-limited with retryAfterMs (the Retry-After the platform sent)', async () => {
        await h.fault({ op: 'create', status: 429, times: 1, retryAfterS: 2 });
        const error = await rejection(h.surface.post({ space: h.space, frame: log('tool: a') }));
        expect(error).toMatchObject({ name: 'SurfaceError', kind: 'rate-limited' });
        expect(error.retryAfterMs).toBe(2000);
      });

      it.each([500, 502, 503])('%i → transient', async (status) => {
        await h.fault({ op: 'create', status, times: 1 });
        const error = await rejection(h.surface.post({ space: h.space, frame: log('tool: a') }));
        expect(error).toMatchObject({ name: 'SurfaceError', kind: 'transient' });
      });

      it.each([401, 403])('%i → forbidden', async (status) => {
        await h.fault({ op: 'create', status, times: 1 });
        const error = await rejection(h.surface.post({ space: h.space, frame: log('tool: a') }));
        expect(error).toMatchObject({ name: 'SurfaceError', kind: 'forbidden' });
      });

      it('400 → invalid', async () => {
        await h.fault({ op: 'create', status: 400, times: 1 });
        const error = await rejection(h.surface.post({ space: h.space, frame: log('tool: a') }));
        expect(error).toMatchObject({ name: 'SurfaceError', kind: 'invalid' });
      });

      it('a failed call creates nothing, and the next one goes through', async () => {
        await h.fault({ op: 'create', status: 500, times: 1 });
        await rejection(h.surface.post({ space: h.space, frame: log('tool: a') }));
        await h.surface.post({ space: h.space, frame: log('tool: b') });
        expect((await appMessages()).map((m) => m.text)).toEqual([expect.stringContaining('tool: b')]);
      });
    });

    if (options.timeouts) {
      it('a call that gets no answer in time is transient', async () => {
        const surface = await h.unanswered?.();
        if (surface === undefined) throw new Error(`${name}: the harness has no unanswered() surface`);
        const error = await rejection(surface.post({ space: h.space, frame: log('tool: a') }));
        expect(error).toMatchObject({ name: 'SurfaceError', kind: 'transient' });
      });
    }

    it('an idempotent create: a retry after a lost response makes no duplicate', async () => {
      const refs = memoryRefs();
      const request = { space: h.space, frame: log('tool: once'), clientId: 'T1:0' };
      const first = await postOnce(h.surface, refs, request);
      // The answer was lost: a platform with idempotent creates is retried without the recorded ref.
      const again = await postOnce(
        h.surface,
        h.surface.capabilities.idempotentCreate ? undefined : refs,
        request,
      );
      expect(again.messageId).toBe(first.messageId);
      expect((await appMessages()).filter((m) => m.text.includes('tool: once'))).toHaveLength(1);
    });

    it('a threaded post lands under the anchor, and later posts to its thread join it', async () => {
      const root = await h.personPosts('person: fix the build');
      const first = await h.surface.post({
        space: h.space,
        frame: log('tool: Read(a.ts)'),
        thread: { rootMessageId: root.messageId, ...(root.threadId ? { threadId: root.threadId } : {}) },
      });
      expect(first.threadId).toBeDefined();
      if (root.threadId !== undefined) expect(first.threadId).toBe(root.threadId);
      const second = await h.surface.post({
        space: h.space,
        frame: log('tool: Read(b.ts)'),
        thread: { rootMessageId: root.messageId, threadId: first.threadId! },
        silent: true,
      });
      expect(second.threadId).toBe(first.threadId);
      const threads = (await appMessages()).map((m) => m.thread);
      expect(new Set(threads).size).toBe(1);
      expect(threads[0]).not.toBeNull();
    });

    it('a silent post does not notify where the platform supports it (and posts all the same where not)', async () => {
      const posted = await h.surface.post({ space: h.space, frame: log('tool: quiet'), silent: true });
      const create = (await h.calls()).find((c) => c.op === 'create' && c.messageId === posted.messageId);
      expect(create?.notifies).toBe(!h.surface.capabilities.silentPosts);
      const loud = await h.surface.post({ space: h.space, frame: log('tool: loud') });
      const loudCreate = (await h.calls()).find((c) => c.op === 'create' && c.messageId === loud.messageId);
      expect(loudCreate?.notifies).toBe(true);
    });

    it('an edit shows the new frame and notifies no one', async () => {
      const posted = await h.surface.post({ space: h.space, frame: log('tool: v1') });
      await h.surface.edit({
        space: h.space,
        messageId: posted.messageId,
        frame: log('tool: v1', 'tool: v2'),
      });
      const [message] = await appMessages();
      expect(message?.text).toContain('tool: v2');
      const update = (await h.calls()).find((c) => c.op === 'update');
      expect(update).toMatchObject({ status: 200, notifies: false });
    });

    it('prose and cards post with their content visible (plain text at least)', async () => {
      await h.surface.post({ space: h.space, frame: { kind: 'prose', markdown: 'All **done**.' } });
      const card: SurfaceFrame = {
        kind: 'card',
        card: {
          kind: 'policy',
          id: 'p1',
          title: 'Approval needed',
          body: 'rm -rf /tmp/cache',
          actions: [
            { id: 'approve', label: 'Approve' },
            { id: 'reject', label: 'Reject' },
          ],
        },
      };
      const posted = await h.surface.post({ space: h.space, frame: card });
      expect(posted.messageId).not.toBe('');
      const messages = await appMessages();
      expect(messages).toHaveLength(2);
      expect(messages[0]?.text).toContain('done');
    });

    it('an edit of a deleted message is not-found', async () => {
      const posted = await h.surface.post({ space: h.space, frame: log('tool: a') });
      await h.personDeletes(posted.messageId);
      const error = await rejection(
        h.surface.edit({ space: h.space, messageId: posted.messageId, frame: log('tool: b') }),
      );
      expect(error).toMatchObject({ name: 'SurfaceError', kind: 'not-found' });
    });

    // Issue 26: a surface that declares reactions puts them where a person sees them, by unicode emoji.
    describe('reactions (where the surface declares them)', () => {
      it("👀 on a person's message shows as a person sees it, notifies no one, and comes off again; both are idempotent", async () => {
        const reactions = h.surface.reactions;
        if (reactions === undefined) {
          expect(h.surface.reactions).toBeUndefined();
          return;
        }
        const root = await h.personPosts('person: please look');
        const req = { space: h.space, messageId: root.messageId, emoji: '👀' };
        const on = async () => (await h.messages()).find((m) => m.id === root.messageId)?.reactions ?? [];
        await reactions.add(req);
        await reactions.add(req);
        expect((await on()).map((r) => r.emoji)).toEqual(['👀']);
        const calls = (await h.calls()).filter((c) => c.op === 'reaction');
        expect(calls.length).toBeGreaterThan(0);
        expect(calls.every((c) => c.notifies === false)).toBe(true);
        await reactions.remove(req);
        await reactions.remove(req);
        expect(await on()).toEqual([]);
      });

      it('a reaction on a deleted message is not-found', async () => {
        const reactions = h.surface.reactions;
        if (reactions === undefined) {
          expect(h.surface.reactions).toBeUndefined();
          return;
        }
        const root = await h.personPosts('person: gone soon');
        await h.personDeletes(root.messageId);
        const error = await rejection(
          reactions.add({ space: h.space, messageId: root.messageId, emoji: '✅' }),
        );
        expect(error).toMatchObject({ name: 'SurfaceError', kind: 'not-found' });
      });
    });

    it('an aborted call rejects with an AbortError and sends nothing', async () => {
      const aborted = new AbortController();
      aborted.abort();
      await expect(
        h.surface.post({ space: h.space, frame: log('tool: a') }, { signal: aborted.signal }),
      ).rejects.toMatchObject({ name: 'AbortError' });
      expect((await h.calls()).filter((c) => c.op === 'create')).toEqual([]);
      expect(await appMessages()).toEqual([]);
    });
  });
}
