/**
 * A tiny platform for testing the core: `POST /api/post {channel, text,
 * thread?}` creates, `POST /api/edit {channel, id, text}` edits,
 * `POST /api/crash` throws. Errors answer `{ok: false, kind}` with a
 * `retry-after` header, so tests can see the core used the platform's shape.
 */
import {
  broadMentionsFor,
  EmulatorInputError,
  type PlatformHandler,
  type PlatformRoute,
} from '../../../src/emulators/core/index.js';

const fields = (body: unknown) => (body ?? {}) as Record<string, string | undefined>;

export const fakePlatform: PlatformHandler = {
  match(req, ctx): PlatformRoute | null {
    const body = fields(req.body);
    if (req.method !== 'POST') return null;
    if (req.path === '/api/post') {
      return {
        op: 'create',
        space: body.channel ?? null,
        text: body.text ?? null,
        handle: () => {
          const id = `m${ctx.store.nextOrdinal()}`;
          ctx.store.create({
            id,
            space: body.channel!,
            thread: body.thread ?? null,
            text: body.text ?? '',
            author: { kind: 'app', id: 'bot' },
          });
          return {
            status: 200,
            body: { ok: true, id },
            record: {
              messageId: id,
              thread: body.thread ?? null,
              notifies: true,
              mentions: broadMentionsFor('slack', body.text ?? ''),
            },
          };
        },
      };
    }
    if (req.path === '/api/edit') {
      return {
        op: 'update',
        space: body.channel ?? null,
        messageId: body.id ?? null,
        text: body.text ?? null,
        handle: () => {
          const message = ctx.store.get(body.id ?? '');
          if (!message || message.deleted)
            return { status: 404, body: { ok: false, kind: 'message_not_found' } };
          ctx.store.edit(message.id, body.text ?? '');
          return { status: 200, body: { ok: true } };
        },
      };
    }
    if (req.path === '/api/crash') {
      return {
        op: 'other',
        space: null,
        handle: () => {
          throw new Error('handler bug');
        },
      };
    }
    return null;
  },
  inbound(input, ctx) {
    if (input.threadId && !ctx.store.get(input.threadId)) {
      throw new EmulatorInputError(`unknown threadId ${input.threadId}`);
    }
    const id = `m${ctx.store.nextOrdinal()}`;
    ctx.store.create({
      id,
      space: input.space,
      thread: input.threadId ?? null,
      text: input.text,
      author: { kind: 'user', id: input.user ?? 'U1' },
    });
    return { messageId: id, threadId: input.threadId ?? id };
  },
  errorResponse(status, retryAfterS, kind, rateLimit) {
    const headers: Record<string, string> =
      retryAfterS === undefined ? {} : { 'retry-after': String(Math.ceil(retryAfterS)) };
    return {
      status,
      headers,
      body: { ok: false, kind, ...(rateLimit ? { bucket: rateLimit.bucket } : {}) },
    };
  },
};
