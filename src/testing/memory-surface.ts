/**
 * An in-process ChatSurface for tests. It keeps messages (their frames, and
 * the frames' plain text as what a person sees)
 * and records calls with the emulator core's own recorder, store and fault
 * matcher, so `calls` has the shape of `GET /_emulator/calls` and `fail`
 * takes the rules of `POST /_emulator/faults`.
 *
 * Calls are recorded with REST-like paths in the platform's own space form:
 * `POST /{space}/messages` (create), `PATCH /{space}/messages/{id}` (update),
 * `POST /{space}/messages/{id}/reactions` (reaction); a fault's `path` matches
 * against those.
 */
import { createFaultInjector } from '../emulators/core/faults.js';
import { broadMentionsFor, detectBroadMentions } from '../emulators/core/mentions.js';
import { createMessageStore, type StoredMessage } from '../emulators/core/message-store.js';
import { type CallDescription, createCallRecorder } from '../emulators/core/recorder.js';
import { addReaction, removeReaction } from '../emulators/core/stored-message.js';
import {
  EMULATED_PLATFORMS,
  type EmulatedMessage,
  type FaultRule,
  type Platform,
  type RecordedCall,
} from '../emulators/types.js';
import { builtinPlatforms } from '../platforms/all.js';
import type { PlatformCapabilities } from '../registry/descriptor.js';
import type { PlatformRegistry } from '../registry/registry.js';
import { plainText, type SurfaceFrame } from '../surfaces/frame.js';
import {
  type CallOpts,
  type ChatSurface,
  type EditRequest,
  type PostedMessage,
  type PostRequest,
  type ReactionRequest,
  SurfaceError,
} from '../surfaces/surface.js';

/** The built-in platforms' capabilities, as their descriptors declare them (what the memory surface models). */
export const MEMORY_SURFACE_CAPABILITIES: Readonly<Record<Platform, Readonly<PlatformCapabilities>>> =
  Object.fromEntries(
    EMULATED_PLATFORMS.map((platform) => [platform, builtinPlatforms.require(platform).capabilities]),
  ) as Record<Platform, PlatformCapabilities>;

export interface MemorySurfaceOptions {
  /** The platform it stands in for. Default `gchat`. */
  platform?: string;
  /** Where `platform`'s capabilities come from (its descriptor). Default: the built-ins. */
  platforms?: PlatformRegistry;
  /** Overrides the platform's capabilities (from its descriptor). */
  capabilities?: Partial<PlatformCapabilities>;
  /** Epoch ms for `at` and message timestamps. Default `Date.now`. */
  now?: () => number;
}

export interface MemorySurface extends ChatSurface {
  /** Every call so far, shaped like `GET /_emulator/calls` (a fresh copy on each read). */
  readonly calls: RecordedCall[];
  /** Fails matching calls, like `POST /_emulator/faults` (404 → not-found, 429 → rate-limited, 5xx/408 → transient, 401/403 → forbidden, other 4xx → invalid). */
  fail(rule: FaultRule): void;
  /** A space as a person sees it, like `GET /_emulator/messages` (`gchat:spaces/A` or `spaces/A`). */
  messages(space: string): EmulatedMessage[];
  /** The frame a message of the app shows now (its text in `messages` is the frame's plain form). */
  frameOf(messageId: string): SurfaceFrame | undefined;
  /** A person deletes a message: a later edit or reaction gets `not-found`. */
  deleteMessage(messageId: string): void;
  /** A person posts a message (a new thread unless `threadId`); anchor a turn on the result. */
  inbound(message: { space: string; text: string; threadId?: string }): {
    messageId: string;
    threadId: string;
  };
  /** Holds every post, edit and reaction (pending) until `resume()`, to observe what happens while a call is in flight. */
  pause(): void;
  /** Lets held calls run, in the order they were made. */
  resume(): void;
}

const APP = { kind: 'app', id: 'memory-app' } as const;
const PERSON = { kind: 'user', id: 'memory-user' } as const;

function abortError(): DOMException {
  return new DOMException('The surface call was aborted', 'AbortError');
}

function errorForStatus(status: number, retryAfterS: number | undefined, what: string): SurfaceError {
  const message = `${what}: HTTP ${status}`;
  if (status === 404) return new SurfaceError('not-found', message, { status });
  if (status === 429) {
    return new SurfaceError('rate-limited', message, { status, retryAfterMs: (retryAfterS ?? 1) * 1000 });
  }
  if (status >= 500 || status === 408) return new SurfaceError('transient', message, { status });
  if (status === 401 || status === 403) return new SurfaceError('forbidden', message, { status });
  return new SurfaceError('invalid', message, { status });
}

export function createMemorySurface(opts: MemorySurfaceOptions = {}): MemorySurface {
  const platform = opts.platform ?? 'gchat';
  const capabilities: PlatformCapabilities = {
    ...(opts.platforms ?? builtinPlatforms).require(platform).capabilities,
    ...opts.capabilities,
  };
  /** Broad mentions that would fire: as the emulators judge a built-in platform; any broad one elsewhere. */
  const mentionsIn = (text: string): string[] =>
    (EMULATED_PLATFORMS as readonly string[]).includes(platform)
      ? broadMentionsFor(platform as Platform, text)
      : detectBroadMentions(text);
  const now = opts.now ?? Date.now;
  const recorder = createCallRecorder(now);
  const faults = createFaultInjector();
  const store = createMessageStore(now);
  const frames = new Map<string, SurfaceFrame>();
  let hold: { released: Promise<void>; release: () => void } | null = null;

  const prefix = `${platform}:`;
  /** `gchat:spaces/A` → `spaces/A`; refuses another platform's space. */
  const ownSpace = (space: string): string => {
    if (space.startsWith(prefix)) return space.slice(prefix.length);
    throw new SurfaceError(
      'invalid',
      `space ${JSON.stringify(space)} is not a ${platform} space (${prefix}…)`,
    );
  };
  /** For the test helpers: a prefixed or an own-form space. */
  const anySpace = (space: string): string => (space.startsWith(prefix) ? space.slice(prefix.length) : space);

  async function waitTurn(signal: AbortSignal | undefined): Promise<void> {
    if (signal?.aborted) throw abortError();
    while (hold) {
      const { released } = hold;
      await new Promise<void>((resolve, reject) => {
        const onAbort = () => reject(abortError());
        signal?.addEventListener('abort', onAbort, { once: true });
        released.then(() => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        });
      });
    }
  }

  /** Records a failed call and returns the error to throw. */
  function refuse(call: CallDescription, retryAfterS: number | undefined, what: string): SurfaceError {
    recorder.record({ ...call, notifies: false, mentions: [] });
    return errorForStatus(call.status, retryAfterS, what);
  }

  /** The fault for this call, if a rule matches: recorded and thrown like the platform's error. */
  function checkFault(call: Omit<CallDescription, 'status'>): void {
    const fault = faults.take({ op: call.op, method: call.method, path: call.path });
    // Holds, delays and lost responses are the HTTP emulators'; here a rule answers its status before the write.
    if (fault?.status !== undefined) {
      throw refuse(
        { ...call, status: fault.status, details: { ...call.details, rejectedBy: 'fault' } },
        fault.retryAfterS,
        'injected fault',
      );
    }
  }

  function checkLength(call: Omit<CallDescription, 'status'>, text: string): void {
    if (text.length > capabilities.maxChars) {
      throw refuse(
        { ...call, status: 400 },
        undefined,
        `text is ${text.length} chars, over the ${platform} limit of ${capabilities.maxChars}`,
      );
    }
  }

  /** A message the app may act on, or the not-found a platform answers for a missing or deleted one. */
  function existing(call: Omit<CallDescription, 'status'>, space: string, messageId: string): StoredMessage {
    const message = store.get(messageId);
    if (!message || message.deleted || message.space !== space) {
      throw refuse({ ...call, status: 404 }, undefined, `no message ${messageId} in ${space}`);
    }
    return message;
  }

  /** The thread a post goes in: a known thread id, else the root message's own thread (its id, like Slack `thread_ts`). */
  function threadOf(req: PostRequest, call: Omit<CallDescription, 'status'>, space: string): string | null {
    if (!req.thread) return null;
    if (req.thread.threadId) return req.thread.threadId;
    const rootId = req.thread.rootMessageId;
    if (!rootId) {
      throw refuse({ ...call, status: 400 }, undefined, 'thread anchor needs a rootMessageId or a threadId');
    }
    const root = existing(call, space, rootId);
    return root.thread ?? root.id;
  }

  /** The app's own reaction, added or removed (again is no change, as on the platforms). */
  async function ownReaction(
    kind: 'add' | 'remove',
    req: ReactionRequest,
    signal?: AbortSignal,
  ): Promise<void> {
    await waitTurn(signal);
    const space = ownSpace(req.space);
    const call = {
      method: kind === 'add' ? 'PUT' : 'DELETE',
      path: `/${space}/messages/${req.messageId}/reactions/${req.emoji}`,
      op: 'reaction' as const,
      space,
      messageId: req.messageId,
      details: { emoji: req.emoji, reaction: kind },
    };
    checkFault(call);
    const message = existing(call, space, req.messageId);
    const reaction = { emoji: req.emoji, user: APP.id };
    if (kind === 'add') addReaction(message, reaction);
    else removeReaction(message, reaction);
    recorder.record({ ...call, status: 200, thread: message.thread });
  }

  const posted = (message: StoredMessage): PostedMessage => ({
    messageId: message.id,
    ...(message.thread === null ? {} : { threadId: message.thread }),
  });

  return {
    platform,
    capabilities,
    get calls() {
      return recorder.list();
    },

    async post(req: PostRequest, callOpts?: CallOpts): Promise<PostedMessage> {
      await waitTurn(callOpts?.signal);
      const space = ownSpace(req.space);
      const text = plainText(req.frame);
      const details = {
        ...(req.clientId === undefined ? {} : { clientId: req.clientId }),
        ...(req.silent ? { silent: true } : {}),
        frame: req.frame,
      };
      const call = {
        method: 'POST',
        path: `/${space}/messages`,
        op: 'create' as const,
        space,
        text,
        details,
      };
      checkFault(call);
      checkLength(call, text);
      const thread = threadOf(req, call, space);

      const key = capabilities.idempotentCreate ? req.clientId : undefined;
      const earlier = key === undefined ? undefined : store.findByIdempotencyKey(space, key);
      if (earlier) {
        // The platform returns the message it already made: nothing new reaches anyone.
        recorder.record({
          ...call,
          status: 200,
          thread: earlier.thread,
          messageId: earlier.id,
          details: { ...details, idempotentReplay: true },
        });
        return posted(earlier);
      }

      const message = store.create({
        id: `m${store.nextOrdinal()}`,
        space,
        thread,
        text,
        author: APP,
        ...(key === undefined ? {} : { idempotencyKey: key }),
      });
      recorder.record({
        ...call,
        status: 200,
        thread,
        messageId: message.id,
        notifies: !(req.silent && capabilities.silentPosts),
        mentions: mentionsIn(text),
      });
      frames.set(message.id, req.frame);
      return posted(message);
    },

    async edit(req: EditRequest, callOpts?: CallOpts): Promise<void> {
      await waitTurn(callOpts?.signal);
      const space = ownSpace(req.space);
      const text = plainText(req.frame);
      const call = {
        method: 'PATCH',
        path: `/${space}/messages/${req.messageId}`,
        op: 'update' as const,
        space,
        messageId: req.messageId,
        text,
        details: { frame: req.frame },
        ...(req.threadId === undefined ? {} : { thread: req.threadId }),
      };
      checkFault(call);
      const message = existing(call, space, req.messageId);
      if (message.author.kind !== 'app') {
        throw refuse(
          { ...call, status: 403 },
          undefined,
          `message ${req.messageId} is a person's; an app edits only its own`,
        );
      }
      checkLength(call, text);
      store.edit(message.id, text);
      frames.set(message.id, req.frame);
      // An edit never notifies; a broad mention in it is still recorded (Discord re-parses edits).
      recorder.record({
        ...call,
        status: 200,
        thread: message.thread,
        mentions: mentionsIn(text),
      });
    },

    async react(req, callOpts?: CallOpts): Promise<void> {
      await waitTurn(callOpts?.signal);
      const space = ownSpace(req.space);
      const call = {
        method: 'POST',
        path: `/${space}/messages/${req.messageId}/reactions`,
        op: 'reaction' as const,
        space,
        messageId: req.messageId,
        details: { emoji: req.emoji },
      };
      checkFault(call);
      const message = existing(call, space, req.messageId);
      recorder.record({ ...call, status: 200, thread: message.thread });
    },

    // The app's own reactions (issue 26): kept on the message as a person sees them.
    reactions: {
      add: (req, callOpts) => ownReaction('add', req, callOpts?.signal),
      remove: (req, callOpts) => ownReaction('remove', req, callOpts?.signal),
    },

    ready: async () => true,

    fail(rule) {
      faults.add([rule]);
    },

    messages: (space) => store.view(anySpace(space)),

    frameOf: (messageId) => frames.get(messageId),

    deleteMessage(messageId) {
      const message = store.get(messageId);
      if (!message) throw new Error(`no message ${JSON.stringify(messageId)} to delete`);
      store.markDeleted(messageId);
      recorder.record({
        method: 'POST',
        path: '/_emulator/delete',
        op: 'delete',
        status: 200,
        space: message.space,
        thread: message.thread,
        messageId,
        details: { by: 'person' },
      });
    },

    inbound({ space: given, text, threadId }) {
      const space = anySpace(given);
      const message = store.create({
        id: `m${store.nextOrdinal()}`,
        space,
        thread: threadId ?? null,
        text,
        author: PERSON,
      });
      recorder.record({
        method: 'POST',
        path: '/_emulator/inbound',
        op: 'inbound',
        status: 200,
        space,
        thread: message.thread,
        messageId: message.id,
        text,
      });
      return { messageId: message.id, threadId: threadId ?? message.id };
    },

    pause() {
      if (hold) return;
      let release = () => {};
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      hold = { released, release };
    },

    resume() {
      hold?.release();
      hold = null;
    },
  };
}
